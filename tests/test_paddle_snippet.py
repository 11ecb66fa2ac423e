"""A typical Paddle tensor/autograd program, written as a Paddle user would, runs unchanged."""
import numpy as np

import sampan as paddle


def test_paddle_style_program():
    paddle.seed(2023)
    x = paddle.rand([4, 3])
    w = paddle.create_parameter(shape=[3, 2], dtype="float32")
    b = paddle.zeros([2])
    b.stop_gradient = False
    y = paddle.matmul(x, w) + b
    y = paddle.tanh(y)
    loss = paddle.mean(paddle.square(y - 0.5))
    loss.backward()
    assert w.grad.shape == [3, 2] and b.grad.shape == [2]
    assert loss.shape == [] and loss.dtype == paddle.float32

    idx = paddle.argmax(y, axis=1)
    picked = paddle.gather(y, idx, axis=1)
    assert picked.shape == [4, 4]
    top, pos = paddle.topk(y, k=1, axis=-1)
    assert pos.dtype == paddle.int64
    z = paddle.concat([x, x], axis=0).reshape([2, 4, 3]).transpose([0, 2, 1])
    assert z.shape == [2, 3, 4]
    mask = x > 0.5
    assert paddle.masked_select(x, mask).shape[0] == int(mask.astype("int64").sum())
    x[0, :] = 0.0
    assert float(x[0].sum()) == 0.0
    with paddle.no_grad():
        w.set_value(w - 0.1 * w.grad)
    w.clear_grad()
    assert float(paddle.abs(w.grad).sum()) == 0.0
    np.testing.assert_allclose(paddle.linalg.norm(paddle.to_tensor([3.0, 4.0])).numpy(), 5.0)
