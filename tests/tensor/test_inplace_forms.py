"""In-place forms built by make_inplace: the updated tensor may be passed by name (addmm_'s
`input`, add_'s `x`); cumsum_ with axis None flattens x, as in Paddle."""
import numpy as np
import pytest

import sampan as paddle


def test_tensor_given_by_name():
    rng = np.random.default_rng(0)
    inp = paddle.to_tensor(rng.random((2, 2)))
    x, y = paddle.to_tensor(rng.random((2, 3))), paddle.to_tensor(rng.random((3, 2)))
    want = inp.numpy() + x.numpy() @ y.numpy()
    assert paddle.addmm_(inp, x=x, y=y) is inp
    np.testing.assert_allclose(inp.numpy(), want)
    a = paddle.to_tensor([1.0, 2.0])
    assert paddle.add_(x=a, y=paddle.to_tensor([1.0, 1.0])) is a
    assert a.numpy().tolist() == [2.0, 3.0]
    with pytest.raises(TypeError, match="add_: missing the tensor to update"):
        paddle.add_(y=a)


def test_cumsum_inplace_flattens_without_axis():
    v = paddle.to_tensor(np.arange(6.0).reshape(2, 3, 1))
    out = paddle.cumsum_(v)
    assert out is v and v.shape == [6] and v.inplace_version == 1
    np.testing.assert_allclose(v.numpy(), np.cumsum(np.arange(6.0)))
    w = paddle.ones([2, 3])
    with pytest.raises(ValueError, match="cannot change the shape"):
        paddle.squeeze_(w).unsqueeze_(0).add_(paddle.ones([4, 2, 3]))
