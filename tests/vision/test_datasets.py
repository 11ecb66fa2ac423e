"""vision.datasets on tiny files written in the real formats (idx-ubyte.gz, CIFAR python
tarballs, Flowers .tgz + .mat, the VOC tar, image folders); offline and corrupt-file errors."""
import gzip
import io
import os
import pickle
import re
import struct
import tarfile

import numpy as np
import pytest

import sampan as paddle
from sampan.vision import datasets as D
from sampan.vision import transforms as T

Image = pytest.importorskip("PIL.Image", reason="Pillow decodes the dataset images")


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the cache dir lives under ~
    return tmp_path


def _idx(path, arr, magic):
    header = struct.pack(">I", magic) + struct.pack(f">{arr.ndim}I", *arr.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + arr.astype(np.uint8).tobytes())
    return str(path)


def _mnist_files(tmp_path, n=5):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (n, 28, 28)).astype(np.uint8)
    labels = np.arange(n) % 10
    return (_idx(tmp_path / "img.gz", images, 2051), _idx(tmp_path / "lab.gz", labels, 2049),
            images, labels)


def test_mnist_reads_idx_files_with_both_backends(tmp_path):
    img_path, lab_path, images, labels = _mnist_files(tmp_path)
    ds = D.MNIST(image_path=img_path, label_path=lab_path, mode="test")
    assert len(ds) == 5
    image, label = ds[3]
    assert isinstance(image, Image.Image) and image.mode == "L"
    np.testing.assert_array_equal(np.asarray(image), images[3])
    assert label.dtype == np.int64 and label.tolist() == [3]
    ds = D.FashionMNIST(image_path=img_path, label_path=lab_path, backend="cv2",
                        transform=T.Normalize(mean=[127.5], std=[127.5], data_format="HWC"))
    image, label = ds[1]  # (28, 28) against a (1, 1, 1) mean broadcasts to (1, 28, 28) as in Paddle
    assert image.dtype == np.float32 and image.shape == (1, 28, 28)
    np.testing.assert_allclose(image[0], images[1] / 127.5 - 1, rtol=1e-6)


def test_mnist_cache_dir_and_md5_warning(tmp_path):
    cache = tmp_path / "home" / ".cache" / "paddle" / "dataset" / "mnist"
    cache.mkdir(parents=True)
    _, _, images, labels = _mnist_files(tmp_path)
    _idx(cache / "train-images-idx3-ubyte.gz", images, 2051)
    _idx(cache / "train-labels-idx1-ubyte.gz", labels, 2049)
    with pytest.warns(UserWarning) as record:
        ds = D.MNIST(download=False)
    messages = sorted(str(w.message) for w in record)
    assert len(messages) == 2 and len(ds) == 5
    assert re.search(r"train-images-idx3-ubyte.gz has md5 [0-9a-f]{32}, expected "
                     r"f68b3c2dcbeaaa9fbdd348bbdeb94873", messages[0])
    assert "train-labels-idx1-ubyte.gz has md5" in messages[1]


def test_mnist_missing_offline_and_bad_files(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        D.MNIST(mode="test", download=False)
    msg = str(info.value)
    assert "t10k-images-idx3-ubyte.gz" in msg and ".cache/paddle/dataset/mnist" in msg
    assert "https://dataset.bj.bcebos.com/mnist/" in msg and "image_path" in msg
    with pytest.raises(FileNotFoundError, match="label_path='nope.gz' does not exist"):
        D.MNIST(image_path=_mnist_files(tmp_path)[0], label_path="nope.gz")
    img_path, lab_path, _, _ = _mnist_files(tmp_path)
    with gzip.open(img_path, "rb") as f:
        raw = f.read()
    with gzip.open(tmp_path / "short.gz", "wb") as f:
        f.write(raw[:1000])
    with pytest.raises(ValueError, match="short.gz is truncated"):
        D.MNIST(image_path=str(tmp_path / "short.gz"), label_path=lab_path)
    (tmp_path / "plain.gz").write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match="plain.gz is not a readable gzip file"):
        D.MNIST(image_path=str(tmp_path / "plain.gz"), label_path=lab_path)
    with pytest.raises(ValueError, match="magic number 2051"):
        D.MNIST(image_path=lab_path, label_path=lab_path)
    with pytest.raises(ValueError, match="mode should be one of"):
        D.MNIST(image_path=img_path, label_path=lab_path, mode="valid")
    with pytest.raises(ValueError, match="backend"):
        D.MNIST(image_path=img_path, label_path=lab_path, backend="tensor")


def test_download_failure_is_quick_and_clear(monkeypatch):
    from sampan.utils import data_files

    def offline(url, timeout):
        assert timeout <= 30
        raise OSError("network is unreachable")
    monkeypatch.setattr(data_files.urllib.request, "urlopen", offline)
    with pytest.raises(FileNotFoundError) as info:
        D.Cifar10(download=True)
    msg = str(info.value)
    assert "could not download https://dataset.bj.bcebos.com/cifar/cifar-10-python.tar.gz" in msg
    assert "data_file=" in msg and "network is unreachable" in msg


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _cifar(tmp_path, hundred=False):
    rng = np.random.default_rng(1)
    path = tmp_path / ("c100.tar.gz" if hundred else "c10.tar.gz")
    key = b"fine_labels" if hundred else b"labels"
    batches = {"train": [3, 2], "test": [2]} if hundred else \
        {"data_batch_1": [3], "data_batch_2": [2], "test_batch": [2]}
    content = {}
    with tarfile.open(path, "w:gz") as tar:
        for name, (n, *_) in batches.items():
            data = rng.integers(0, 256, (n, 3072)).astype(np.uint8)
            labels = list(range(n))
            content[name] = (data, labels)
            _add(tar, f"cifar-python/{name}", pickle.dumps({b"data": data, key: labels}, 2))
        _add(tar, "cifar-python/batches.meta", b"ignored")
    return str(path), content


@pytest.mark.parametrize("hundred", [False, True])
def test_cifar_reads_python_tarball(tmp_path, hundred):
    path, content = _cifar(tmp_path, hundred)
    cls = D.Cifar100 if hundred else D.Cifar10
    train = cls(data_file=path, mode="train")
    assert len(train) == (3 if hundred else 5)
    image, label = train[1]
    first = content["train" if hundred else "data_batch_1"][0][1]
    np.testing.assert_array_equal(np.asarray(image), first.reshape(3, 32, 32).transpose(1, 2, 0))
    assert label.dtype == np.int64 and int(label) == 1
    test = cls(data_file=path, mode="test", backend="cv2", transform=T.ToTensor())
    image, _ = test[0]
    assert isinstance(image, paddle.Tensor) and image.shape == [3, 32, 32]


def test_cifar_refuses_code_in_pickles_and_wrong_archives(tmp_path):
    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))
    path = tmp_path / "evil.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        _add(tar, "cifar-10-batches-py/test_batch", pickle.dumps({b"data": Evil()}))
    with pytest.raises(ValueError, match="not a valid CIFAR python batch.*not allowed"):
        D.Cifar10(data_file=str(path), mode="test")
    path100, _ = _cifar(tmp_path, hundred=True)
    with pytest.raises(ValueError, match="no 'data_batch' batch"):
        D.Cifar10(data_file=path100)
    (tmp_path / "cut.tar.gz").write_bytes(open(path100, "rb").read()[:100])
    with pytest.raises(ValueError, match="cut.tar.gz is .*(truncated|not a readable tar)"):
        D.Cifar100(data_file=str(tmp_path / "cut.tar.gz"))


def _jpeg(color, size=(6, 4)):
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="JPEG")
    return buf.getvalue()


def test_flowers_reads_tgz_and_mat_files(tmp_path):
    scipy_io = pytest.importorskip("scipy.io")
    with tarfile.open(tmp_path / "102flowers.tgz", "w:gz") as tar:
        for i in range(1, 5):
            _add(tar, f"jpg/image_{i:05}.jpg", _jpeg((60 * i, 0, 0)))
    scipy_io.savemat(tmp_path / "labels.mat", {"labels": np.array([[7, 8, 9, 10]])})
    scipy_io.savemat(tmp_path / "setid.mat", {"trnid": np.array([[1, 2]]),
                                              "tstid": np.array([[3, 4, 1]]),
                                              "valid": np.array([[2]])})
    kw = dict(data_file=str(tmp_path / "102flowers.tgz"), label_file=str(tmp_path / "labels.mat"),
              setid_file=str(tmp_path / "setid.mat"))
    train = D.Flowers(mode="train", **kw)  # Paddle's 'train' is the 'tstid' split
    assert len(train) == 3
    image, label = train[1]
    assert image.size == (6, 4) and label.tolist() == [10] and label.dtype == np.int64
    valid = D.Flowers(mode="valid", backend="cv2", **kw)
    image, label = valid[0]
    assert image.dtype == np.float32 and image.shape == (4, 6, 3) and label.tolist() == [8]
    assert abs(float(image[..., 0].mean()) - 120) < 5
    with pytest.raises(ValueError, match="labels.mat has no 'trnid' entry"):
        D.Flowers(mode="test", data_file=kw["data_file"], label_file=kw["label_file"],
                  setid_file=kw["label_file"])


def _png(arr):
    buf = io.BytesIO()
    Image.fromarray(arr.astype(np.uint8), mode="L").save(buf, format="PNG")
    return buf.getvalue()


def test_voc2012_reads_the_tar_in_place(tmp_path):
    path = tmp_path / "voc.tar"
    root = "VOCdevkit/VOC2012/"
    with tarfile.open(path, "w") as tar:
        _add(tar, root + "ImageSets/Segmentation/val.txt", b"2007_000032\n2007_000039\n")
        _add(tar, root + "ImageSets/Segmentation/trainval.txt", b"2007_000032\n")
        for name, k in (("2007_000032", 1), ("2007_000039", 2)):
            _add(tar, root + f"JPEGImages/{name}.jpg", _jpeg((0, 50 * k, 0)))
            _add(tar, root + f"SegmentationClass/{name}.png", _png(np.full((4, 6), k)))
    valid = D.VOC2012(data_file=str(path), mode="valid")
    assert len(valid) == 2
    image, label = valid[1]
    assert image.size == (6, 4) and np.asarray(label).max() == 2
    image, label = D.VOC2012(data_file=str(path), mode="train", backend="cv2")[0]
    assert image.dtype == np.float32 and label.dtype == np.float32 and label.max() == 1
    with pytest.raises(ValueError, match="has no member .*ImageSets/Segmentation/train.txt"):
        D.VOC2012(data_file=str(path), mode="test")


def test_dataset_and_image_folders(tmp_path):
    for cls, color in (("cat", (255, 0, 0)), ("dog", (0, 0, 255))):
        (tmp_path / "root" / cls / "sub").mkdir(parents=True)
        Image.new("RGB", (3, 2), color).save(tmp_path / "root" / cls / "a.png")
        Image.new("RGB", (3, 2), color).save(tmp_path / "root" / cls / "sub" / "b.PNG")
    (tmp_path / "root" / "dog" / "notes.txt").write_text("skip me")
    ds = D.DatasetFolder(str(tmp_path / "root"))
    assert ds.classes == ["cat", "dog"] and ds.targets == [0, 0, 1, 1]
    sample, target = ds[2]
    assert target == 1 and np.asarray(sample)[0, 0].tolist() == [0, 0, 255]
    only_a = D.DatasetFolder(str(tmp_path / "root"), is_valid_file=lambda p: p.endswith("a.png"),
                             loader=lambda p: p)
    assert len(only_a) == 2 and only_a[1] == (str(tmp_path / "root" / "dog" / "a.png"), 1)
    images = D.ImageFolder(str(tmp_path / "root"), transform=T.ToTensor())
    assert len(images) == 4 and images[0][0].shape == [3, 2, 3]
    paddle.vision.set_image_backend("cv2")
    try:
        arr = D.ImageFolder(str(tmp_path / "root"))[0][0]
        assert isinstance(arr, np.ndarray) and arr[0, 0].tolist() == [255, 0, 0]
    finally:
        paddle.vision.set_image_backend("pil")
    with pytest.raises(RuntimeError, match="found 0 files"):
        D.ImageFolder(str(tmp_path / "root"), extensions=(".gif",))
    with pytest.raises(FileNotFoundError, match="is not a directory"):
        D.DatasetFolder(str(tmp_path / "missing"))


def test_image_backend_and_image_load(tmp_path):
    Image.new("RGB", (3, 2), (10, 20, 30)).save(tmp_path / "x.png")
    assert paddle.vision.get_image_backend() == "pil"
    assert paddle.vision.image_load(str(tmp_path / "x.png")).size == (3, 2)
    bgr = paddle.vision.image_load(str(tmp_path / "x.png"), backend="cv2")
    assert bgr.shape == (2, 3, 3) and bgr[0, 0].tolist() == [30, 20, 10]
    t = paddle.vision.image_load(str(tmp_path / "x.png"), backend="tensor")
    assert t.shape == [3, 2, 3] and t.numpy()[:, 0, 0].tolist() == [10, 20, 30]
    with pytest.raises(ValueError, match="Expected backend"):
        paddle.vision.set_image_backend("opencv")
    with pytest.raises(FileNotFoundError, match="no image file"):
        paddle.vision.image_load(str(tmp_path / "nope.png"))


def test_mnist_through_dataloader(tmp_path):
    img_path, lab_path, images, labels = _mnist_files(tmp_path)
    ds = D.MNIST(image_path=img_path, label_path=lab_path, transform=T.ToTensor())
    batches = list(paddle.io.DataLoader(ds, batch_size=2))
    assert len(batches) == 3 and batches[0][0].shape == [2, 1, 28, 28]
    assert batches[0][1].shape == [2, 1]
