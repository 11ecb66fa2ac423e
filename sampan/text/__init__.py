"""paddle.text: text datasets (Imdb, Imikolov, UCIHousing, Movielens, Conll05st, WMT14, WMT16)
read from their published files, and Viterbi decoding."""
from . import datasets
from .datasets import Conll05st, Imdb, Imikolov, Movielens, UCIHousing, WMT14, WMT16
from .viterbi_decode import ViterbiDecoder, viterbi_decode

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16",
           "ViterbiDecoder", "viterbi_decode"]
