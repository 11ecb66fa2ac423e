"""nll_loss accepts labels with a singleton class axis ([N, 1], [N, 1, d1]) as Paddle 3.3.1
does (docs/guides/advanced/layer_and_model_cn.md passes a [64, 1] label); values recorded
from Paddle 3.3.1."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F

LOGP = np.log(np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3], [0.25, 0.25, 0.5]], np.float32))


def test_label_n1_equals_label_n():
    x = paddle.to_tensor(LOGP)
    a = F.nll_loss(x, paddle.to_tensor([[2], [0], [1]]))
    b = F.nll_loss(x, paddle.to_tensor([2, 0, 1]))
    ref = -(np.log(0.5) + np.log(0.6) + np.log(0.25)) / 3
    np.testing.assert_allclose(a.numpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(a.numpy(), b.numpy())
    assert F.nll_loss(x, paddle.to_tensor([[2], [0], [1]]), reduction="none").shape == [3]
    assert paddle.nn.NLLLoss()(x, paddle.to_tensor([[2], [0], [1]])).shape == []


def test_label_with_singleton_axis_for_nd_input():
    x = paddle.to_tensor(np.log(np.full([2, 3, 4], 1 / 3, np.float32)))
    lab = paddle.to_tensor(np.zeros([2, 1, 4], np.int64))
    out = F.nll_loss(x, lab, reduction="none")
    assert out.shape == [2, 4]
    np.testing.assert_allclose(out.numpy(), np.full([2, 4], np.log(3.0)), rtol=1e-6)


def test_other_label_shapes_refused():
    x = paddle.to_tensor(LOGP)
    with pytest.raises(ValueError, match="nll_loss: label must have shape"):
        F.nll_loss(x, paddle.to_tensor([[0, 1], [2, 0], [1, 1]]))
    with pytest.raises(ValueError, match="nll_loss: label must have shape"):
        F.nll_loss(x, paddle.to_tensor([0, 1]))
