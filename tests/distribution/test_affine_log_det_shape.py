"""AffineTransform's log-det-Jacobian is log|scale| in scale's shape, not broadcast to x
(Paddle 3.3.1: shape [] for a 0-d scale); TransformedDistribution still broadcasts it."""
import numpy as np

import sampan as paddle


def test_log_det_has_the_scale_shape():
    t = paddle.distribution.AffineTransform(paddle.to_tensor(0.0), paddle.to_tensor(1.0))
    out = t.forward_log_det_jacobian(paddle.to_tensor([1.0, 2.0]))
    assert out.shape == [] and float(out) == 0.0
    t = paddle.distribution.AffineTransform(paddle.to_tensor([0.0, 1.0]),
                                            paddle.to_tensor([2.0, -3.0]))
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(t.forward_log_det_jacobian(x).numpy(), [0.6931472, 1.0986123],
                               rtol=1e-6)
    np.testing.assert_allclose(t.inverse_log_det_jacobian(x).numpy(),
                               [-0.6931472, -1.0986123], rtol=1e-6)


def test_transformed_distribution_log_prob_broadcasts():
    d = paddle.distribution.TransformedDistribution(
        paddle.distribution.Normal(0.0, 1.0),
        [paddle.distribution.AffineTransform(paddle.to_tensor(1.0), paddle.to_tensor(2.0))])
    # Paddle 3.3.1 numbers
    np.testing.assert_allclose(d.log_prob(paddle.to_tensor([0.5, 1.5])).numpy(),
                               [-1.6433357, -1.6433357], rtol=1e-6)
