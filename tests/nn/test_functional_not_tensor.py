"""nn.functional common APIs given a NumPy array where a Tensor is required: Paddle 3.3.1
raises ValueError ("argument 'x' must be Tensor"); sampan's error is both ValueError and
TypeError, so triplet_margin_with_distance_loss with ndarrays fails as in Paddle."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F


@pytest.mark.parametrize("err", [ValueError, TypeError])
def test_cosine_similarity_refuses_ndarray(err):
    with pytest.raises(err, match="cosine_similarity: x1 must be a Tensor, got ndarray"):
        F.cosine_similarity(np.ones((2, 3)), np.ones((2, 3)))


def test_triplet_loss_with_ndarray_inputs_is_value_error():
    arrs = [np.random.default_rng(i).uniform(0, 1, (5, 5)) for i in range(3)]
    with pytest.raises(ValueError):
        F.triplet_margin_with_distance_loss(
            *arrs, distance_function=lambda a, b: -1.0 - F.cosine_similarity(a, b))
    assert F.cosine_similarity(paddle.ones([2, 3]), paddle.ones([2, 3])).shape == [2]
