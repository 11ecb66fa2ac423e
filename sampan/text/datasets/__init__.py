"""paddle.text.datasets: Imdb, Imikolov, UCIHousing, Movielens, Conll05st, WMT14, WMT16 read
from their published files (local paths or ~/.cache/paddle/dataset)."""
from .conll05 import Conll05st
from .imdb import Imdb
from .imikolov import Imikolov
from .movielens import Movielens
from .uci_housing import UCIHousing
from .wmt14 import WMT14
from .wmt16 import WMT16

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16"]
