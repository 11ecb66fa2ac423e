"""paddle.compat (sampan/compat.py): values and errors recorded from Paddle 3.3.1 (CPU)."""
import numpy as np
import pytest

import sampan as paddle
from sampan import compat as C


def _x():
    return paddle.to_tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0]])


def _pair(r):
    return r[0].numpy().tolist(), r[1].numpy().tolist()


def test_reachable_as_paddle_compat():
    assert paddle.compat is C
    assert sorted(C.__all__) == sorted(["equal", "slogdet", "sort", "split", "min", "max",
                                        "unique", "median", "nanmedian", "seed"])


def test_max_min_forms():
    x = _x()
    assert C.max(x).item() == 5.0 and C.min(x).item() == 0.0
    r = C.max(x, 1)
    assert type(r).__name__ == "MinMaxRetType" and r.values is r[0] and r.indices is r[1]
    assert _pair(r) == ([3.0, 5.0], [0, 1])
    assert _pair(C.max(x, 1, True)) == ([[3.0], [5.0]], [[0], [1]])
    assert _pair(C.max(x, dim=0)) == ([3.0, 5.0, 5.0], [0, 1, 1])
    assert _pair(C.max(x, dim=0, keepdim=True)) == ([[3.0, 5.0, 5.0]], [[0, 1, 1]])
    assert _pair(C.min(x, 0)) == ([0.0, 1.0, 2.0], [1, 0, 0])
    two = x * 0 + 2
    expected = [[3.0, 2.0, 2.0], [2.0, 5.0, 5.0]]
    assert C.max(x, two).numpy().tolist() == expected
    assert C.max(x, other=two).numpy().tolist() == expected
    out = (paddle.zeros([1]), paddle.zeros([1], "int64"))
    r = C.max(x, 1, out=out)
    assert r.values is out[0] and out[1].numpy().tolist() == [0, 1]


@pytest.mark.parametrize("call,detail", [
    (lambda x: C.max(x, None), "Got: (paddle.Tensor input, NoneType)"),
    (lambda x: C.max(x, 1.5), "The second input must be int or Tensor or implicit None in "
                              "compat.max, but received <class 'float'>."),
    (lambda x: C.max(x, 1, 2, 3), "Got: (paddle.Tensor input, int, int, int)"),
    (lambda x: C.min(x, keepdim=True), "Invalid arguments for `paddle.compat.min`"),
])
def test_max_min_invalid_arguments(call, detail):
    with pytest.raises(TypeError) as info:
        call(_x())
    assert str(info.value).startswith("Invalid arguments for `paddle.compat.")
    assert detail in str(info.value)


def test_paddle_keywords_point_back():
    x = _x()
    for call, msg in ((lambda: C.max(x, axis=1), "paddle.compat.max() received unexpected "
                       "keyword argument 'axis'. \nDid you mean to use paddle.max() instead?"),
                      (lambda: C.sort(x, axis=0), "Did you mean to use paddle.sort() instead?"),
                      (lambda: C.split(x, num_or_sections=2), "paddle.split()"),
                      (lambda: C.equal(x=x, y=x), "unexpected keyword arguments 'x', 'y'"),
                      (lambda: C.median(x, axis=1), "paddle.median()")):
        with pytest.raises(TypeError) as info:
            call()
        assert msg in str(info.value)


def test_median_nanmedian():
    x = _x()
    n = paddle.to_tensor([[3.0, float("nan"), 2.0], [1.0, 4.0, 0.0]])
    assert C.median(x).item() == 2.0
    assert C.median(paddle.to_tensor([1.0, 2.0, 3.0, 4.0])).item() == 2.0  # lower median
    r = C.median(x, 1)
    assert type(r).__name__ == "MedianRetType" and _pair(r) == ([2.0, 5.0], [2, 1])
    assert _pair(C.median(x, dim=1, keepdim=True)) == ([[2.0], [5.0]], [[2], [1]])
    assert C.nanmedian(n).item() == 2.0
    assert _pair(C.nanmedian(n, 1)) == ([2.0, 1.0], [2, 0])
    values, indices = _pair(C.median(n, 1))
    assert np.isnan(values[0]) and values[1] == 1.0 and indices == [1, 0]


def test_sort():
    x = _x()
    r = C.sort(x)
    assert type(r).__name__ == "SortRetType"
    assert _pair(r) == ([[1.0, 2.0, 3.0], [0.0, 5.0, 5.0]], [[1, 2, 0], [0, 1, 2]])
    assert _pair(C.sort(x, 0, True)) == ([[3.0, 5.0, 5.0], [0.0, 1.0, 2.0]],
                                         [[0, 1, 1], [1, 0, 0]])
    assert _pair(C.sort(x, dim=1, descending=True, stable=True)) == (
        [[3.0, 2.0, 1.0], [5.0, 5.0, 0.0]], [[0, 2, 1], [1, 2, 0]])


def test_split():
    parts = C.split(paddle.arange(10), 3)
    assert isinstance(parts, tuple)
    assert [p.numpy().tolist() for p in parts] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert [p.shape for p in C.split(paddle.arange(10), [2, 8])] == [[2], [8]]
    assert [p.numpy().tolist() for p in C.split(_x(), 1, dim=1)] == [
        [[3.0], [0.0]], [[1.0], [5.0]], [[2.0], [5.0]]]
    assert [p.shape for p in C.split(_x(), [1, 1], 0)] == [[1, 3], [1, 3]]
    with pytest.raises(ValueError):
        C.split(paddle.arange(10), [2, 3])
    with pytest.raises(AssertionError, match="greater than 0"):
        C.split(_x(), 0)


def test_unique():
    t = paddle.to_tensor([3, 1, 3, 2])
    assert C.unique(t).numpy().tolist() == [1, 2, 3]
    assert C.unique(t, sorted=False).numpy().tolist() == [1, 2, 3]
    assert _pair(C.unique(t, return_inverse=True)) == ([1, 2, 3], [2, 0, 2, 1])
    r = C.unique(t, return_counts=True, return_inverse=True)
    assert [v.numpy().tolist() for v in r] == [[1, 2, 3], [2, 0, 2, 1], [1, 1, 2]]
    r = C.unique(paddle.to_tensor([[1, 2], [1, 2], [0, 1]]), dim=0, return_counts=True)
    assert _pair(r) == ([[0, 1], [1, 2]], [1, 2])


def test_slogdet_equal_seed_dtypes():
    r = C.slogdet(paddle.to_tensor([[2.0, 1.0], [1.0, 3.0]]))
    assert type(r).__name__ == "SlogdetResult" and r.sign.item() == 1.0
    np.testing.assert_allclose(r.logabsdet.item(), 1.6094379425048828, rtol=1e-6)
    r = C.slogdet(paddle.to_tensor([[[1.0, 2.0], [3.0, 4.0]]]))
    assert r.sign.numpy().tolist() == [-1.0]
    np.testing.assert_allclose(r.logabsdet.numpy(), [0.6931471228599548], rtol=1e-6)
    x = _x()
    assert C.equal(x, x) is True and C.equal(x, x + 1) is False
    assert C.equal(x, x[0]) is False
    assert C.equal(paddle.to_tensor([1, 2]), paddle.to_tensor([1.0, 2.0])) is True
    n = paddle.to_tensor([float("nan")])
    assert C.equal(n, n) is False
    s = C.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 63
    a = paddle.rand([3])
    paddle.seed(s)
    assert paddle.rand([3]).numpy().tolist() == a.numpy().tolist()
    assert (C.f4, C.i8, C.b1) == (paddle.float32, paddle.int64, paddle.bool)
    assert C.PROMOTE_DICT[(C.i4, C.f2)] == paddle.float16
    assert C.PROMOTE_DICT[(C.u1, C.i1)] == paddle.int16
