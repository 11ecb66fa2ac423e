"""paddle.text.datasets on tiny files written in the real formats (aclImdb tarball, PTB
simple-examples.tgz, housing.data, ml-1m.zip, CoNLL-05 tarball + dictionaries, WMT14/16
tarballs); offline and malformed-file errors."""
import gzip
import io
import tarfile
import zipfile

import numpy as np
import pytest

from sampan.text import datasets as D


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def _tar(path, files, mode="w:gz"):
    with tarfile.open(path, mode) as tar:
        for name, data in files.items():
            data = data.encode() if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return str(path)


def test_imdb_dictionary_labels_and_tokens(tmp_path):
    path = _tar(tmp_path / "imdb.tgz", {
        "aclImdb/train/pos/0_9.txt": "Good movie, good fun!\n",
        "aclImdb/train/neg/1_2.txt": "Bad movie. Bad bad.",
        "aclImdb/test/pos/2_8.txt": "good good movie",
        "aclImdb/test/neg/3_1.txt": "boring",
        "aclImdb/train/unsup/4_0.txt": "ignored ignored ignored ignored",
    })
    train = D.Imdb(data_file=path, mode="train", cutoff=1)
    # counts over train+test pos/neg: good 4, bad 3, movie 3, fun 1, boring 1
    # the words are bytes, "<unk>" a str (Paddle 3.3.1)
    assert train.word_idx == {b"good": 0, b"bad": 1, b"movie": 2, "<unk>": 3}
    assert len(train) == 2
    doc, label = train[0]
    assert doc.tolist() == [0, 2, 0, 3] and label.tolist() == [0]  # 'fun' is unknown
    doc, label = train[1]
    assert doc.tolist() == [1, 2, 1, 1] and label.tolist() == [1]
    test = D.Imdb(data_file=path, mode="test", cutoff=1)
    assert [test[i][1].item() for i in range(2)] == [0, 1]


def _ptb(tmp_path):
    return _tar(tmp_path / "simple-examples.tgz", {
        "./simple-examples/data/ptb.train.txt": " a b a \n b c \n",
        "./simple-examples/data/ptb.valid.txt": " a <unk> \n",
        "./simple-examples/data/ptb.test.txt": " a b \n c \n",
    })


def test_imikolov_ngram_and_seq(tmp_path):
    path = _ptb(tmp_path)
    ngram = D.Imikolov(data_file=path, data_type="NGRAM", window_size=3, mode="test",
                       min_word_freq=1)
    # counts: <s> 3, <e> 3, a 3, b 2, c 1 -> <e> 0, <s> 1, a 2, b 3, <unk> 4
    assert ngram.word_idx == {b"<e>": 0, b"<s>": 1, b"a": 2, b"b": 3, b"<unk>": 4}
    grams = [tuple(int(x) for x in ngram[i]) for i in range(len(ngram))]
    assert grams == [(1, 2, 3), (2, 3, 0), (1, 4, 0)]
    seq = D.Imikolov(data_file=path, data_type="seq", window_size=-1, mode="train",
                     min_word_freq=1)
    src, trg = seq[0]
    assert src.tolist() == [1, 2, 3, 2] and trg.tolist() == [2, 3, 2, 0]
    with pytest.raises(ValueError, match="window_size"):
        D.Imikolov(data_file=path, data_type="NGRAM")
    with pytest.raises(ValueError, match="data_type should be one of"):
        D.Imikolov(data_file=path, data_type="CHAR", window_size=2)


def test_uci_housing_normalization_and_split(tmp_path):
    rng = np.random.default_rng(0)
    table = rng.uniform(0, 100, (10, 14))
    path = tmp_path / "housing.data"
    path.write_text("\n".join(" ".join(f"{v:.4f}" for v in row) for row in table))
    table = np.loadtxt(path)
    feats = (table[:, :13] - table[:, :13].mean(0)) / (table[:, :13].max(0) - table[:, :13].min(0))
    train, test = D.UCIHousing(str(path)), D.UCIHousing(str(path), mode="test")
    assert len(train) == 8 and len(test) == 2
    x, y = test[1]
    assert x.dtype == np.float32 and x.shape == (13,) and y.shape == (1,)
    np.testing.assert_allclose(x, feats[9], rtol=1e-6)
    np.testing.assert_allclose(y, table[9, 13:], rtol=1e-6)
    bad = tmp_path / "bad.data"
    bad.write_text("1 2 3\n4 5 6\n")
    with pytest.raises(ValueError, match="bad.data rows have 3 columns, expected 14"):
        D.UCIHousing(str(bad))


def test_uci_housing_offline_error():
    with pytest.raises(FileNotFoundError) as info:
        D.UCIHousing(download=False)
    msg = str(info.value)
    assert ".cache/paddle/dataset/uci_housing/housing.data" in msg
    assert "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data" in msg


def _movielens(tmp_path):
    path = tmp_path / "ml-1m.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ml-1m/movies.dat", "1::Toy Story (1995)::Animation|Comedy\n"
                                       "2::Heat (1995)::Action\n")
        z.writestr("ml-1m/users.dat", "1::F::1::10::48067\n2::M::56::16::70072\n")
        z.writestr("ml-1m/ratings.dat", "".join(f"{1 + i % 2}::{1 + i % 3 // 2}::{1 + i % 5}::9\n"
                                                for i in range(40)))
    return str(path)


def test_movielens_split_and_sample(tmp_path):
    path = _movielens(tmp_path)
    train = D.Movielens(data_file=path, mode="train", test_ratio=0.25, rand_seed=3)
    test = D.Movielens(data_file=path, mode="test", test_ratio=0.25, rand_seed=3)
    draws = np.random.RandomState(3).random_sample(40) < 0.25  # Paddle's split
    assert len(test) == draws.sum() and len(train) == 40 - draws.sum()
    sample = train[0]
    first = int(np.argmin(draws))  # first train line: i -> user 1 + i % 2 ...
    assert sample[0].tolist() == [1 + first % 2] and len(sample) == 8
    assert sample[-1].tolist() == [float(1 + first % 5) * 2 - 5]
    assert train.categories_dict == {"Action": 0, "Animation": 1, "Comedy": 2}
    assert train.movie_title_dict == {"heat": 0, "story": 1, "toy": 2}
    user2 = D.Movielens(data_file=path, test_ratio=0.0).user_info[2]
    assert user2.value() == [[2], [0], [6], [16]]
    (tmp_path / "cut.zip").write_bytes(open(path, "rb").read()[:60])
    with pytest.raises(ValueError, match="cut.zip is not a complete ml-1m zip"):
        D.Movielens(data_file=str(tmp_path / "cut.zip"))


def _conll(tmp_path):
    words = "The\ncat\nsat\n\nDogs\nbark\n\n"
    props = ("-\t(A0*\n-\t*)\nsat\t(V*)\n\n"
             "-\t(A0*)\nbark\t(V*)\n\n")
    files = {"conll05st-release/test.wsj/words/test.wsj.words.gz": gzip.compress(words.encode()),
             "conll05st-release/test.wsj/props/test.wsj.props.gz": gzip.compress(props.encode())}
    paths = {"data_file": _tar(tmp_path / "conll.tgz", files)}
    for arg, text in (("word_dict_file", "<unk>\nthe\ncat\nsat\nbos\neos\n"),
                      ("verb_dict_file", "sat\nbark\n"),
                      ("target_dict_file", "B-V\nI-V\nB-A0\nI-A0\nO\n"),
                      ("emb_file", "emb")):
        (tmp_path / arg).write_text(text)
        paths[arg] = str(tmp_path / arg)
    return paths


def test_conll05st_samples(tmp_path):
    ds = D.Conll05st(**_conll(tmp_path))
    assert len(ds) == 2
    assert ds.label_dict == {"B-A0": 0, "I-A0": 1, "B-V": 2, "I-V": 3, "O": 4}
    words, n2, n1, c0, p1, p2, pred, mark, labels = ds[0]
    assert words.tolist() == [0, 2, 3]  # 'The' is not 'the' -> unk
    assert n2.tolist() == [0] * 3 and n1.tolist() == [2] * 3 and c0.tolist() == [3] * 3
    assert p1.tolist() == [5] * 3 and p2.tolist() == [5] * 3  # eos, eos
    assert pred.tolist() == [0] * 3 and mark.tolist() == [1, 1, 1]
    assert labels.tolist() == [0, 1, 2]
    assert ds[1][-1].tolist() == [0, 2] and ds[1][6].tolist() == [1, 1]
    assert ds.get_embedding().endswith("emb_file")


def _wmt14(tmp_path):
    return _tar(tmp_path / "wmt14.tgz", {
        "wmt14/src.dict": "<s>\n<e>\n<unk>\nhello\nworld\n",
        "wmt14/trg.dict": "<s>\n<e>\n<unk>\nbonjour\nmonde\n",
        "wmt14/train/train": "hello world\tbonjour monde\nbroken line\nhello\tsalut\n",
        "wmt14/test/test": "world\tmonde\n",
    })


def test_wmt14(tmp_path):
    ds = D.WMT14(data_file=_wmt14(tmp_path), mode="train", dict_size=4)
    assert len(ds) == 2
    src, trg, nxt = ds[0]
    assert src.tolist() == [0, 3, 2, 1]  # 'world' is beyond dict_size=4
    assert trg.tolist() == [0, 3, 2] and nxt.tolist() == [3, 2, 1]
    assert ds.get_dict(reverse=True)[1][3] == "bonjour"
    with pytest.raises(ValueError, match="dict_size"):
        D.WMT14(data_file=_wmt14(tmp_path))


def test_wmt16_dictionaries_per_language(tmp_path):
    path = _tar(tmp_path / "wmt16.tgz", {
        "wmt16/train": "a b a\tx y\nb a\ty y z\n",
        "wmt16/val": "a c\tz x\n",
        "wmt16/test": "",
    })
    ds = D.WMT16(data_file=path, mode="val", src_dict_size=5, trg_dict_size=5, lang="en")
    assert ds.get_dict("en") == {"<s>": 0, "<e>": 1, "<unk>": 2, "a": 3, "b": 4}
    assert ds.get_dict("de") == {"<s>": 0, "<e>": 1, "<unk>": 2, "y": 3, "x": 4}
    src, trg, nxt = ds[0]
    assert src.tolist() == [0, 3, 2, 1] and trg.tolist() == [0, 2, 4] and nxt.tolist() == [2, 4, 1]
    de = D.WMT16(data_file=path, mode="train", src_dict_size=4, trg_dict_size=9, lang="de")
    assert de[0][0].tolist() == [0, 2, 3, 1] and len(de.trg_dict) == 5
    with pytest.raises(ValueError, match="lang should be one of"):
        D.WMT16(data_file=path, src_dict_size=3, trg_dict_size=3, lang="fr")
    with pytest.raises(ValueError, match="has no member 'wmt16/train'"):
        D.WMT16(data_file=_wmt14(tmp_path), src_dict_size=3, trg_dict_size=3)


def test_corrupt_archives_name_the_file(tmp_path):
    (tmp_path / "junk.tgz").write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(ValueError, match="junk.tgz is .*(truncated|not a readable tar)"):
        D.Imdb(data_file=str(tmp_path / "junk.tgz"))
    paths = _conll(tmp_path)
    files = {"conll05st-release/test.wsj/words/test.wsj.words.gz": b"plain",
             "conll05st-release/test.wsj/props/test.wsj.props.gz": b"plain"}
    paths["data_file"] = _tar(tmp_path / "bad.tgz", files)
    with pytest.raises(ValueError, match="test.wsj.words.gz is not a readable gzip stream"):
        D.Conll05st(**paths)
    with pytest.raises(FileNotFoundError, match="conll05st-tests.tar.gz"):
        D.Conll05st(download=False)
