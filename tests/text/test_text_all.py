"""paddle.text.__all__ is Paddle's list: the datasets and the Viterbi decoder (no submodule
names; docs/guides/beginner/data_load_cn.ipynb prints it)."""
import sampan as paddle


def test_text_all_lists_datasets_and_decoder_only():
    assert paddle.text.__all__ == ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing",
                                   "WMT14", "WMT16", "ViterbiDecoder", "viterbi_decode"]
