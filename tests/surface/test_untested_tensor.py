"""`paddle.Tensor` methods no other test exercised, against Paddle 3.3.1's recorded results.

Cases: cases_tensor.py; expected values: paddle_values.py (recorded from PaddlePaddle 3.3.1 by
record_paddle.py)."""
import numpy as np
import pytest

import sampan as paddle
from tests.surface import cases_tensor as cases
from tests.surface._check import check_case, params
from tests.surface.paddle_values import VALUES


@pytest.mark.parametrize("cid", params(cases))
def test_case_matches_paddle(cid):
    check_case(paddle, cases, VALUES, cid)


def test_top_p_sampling_keeps_only_the_nucleus():
    # Paddle 3.3.1 has no CPU kernel for top_p_sampling; with these probabilities the nucleus
    # of each row holds one token, so the draw is determined: row 0 -> id 1, row 1 -> id 0.
    p = paddle.to_tensor([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]])
    vals, ids = p.top_p_sampling(paddle.to_tensor([[0.5], [0.4]]), seed=3)
    assert ids.dtype == paddle.int64 and ids.shape == [2, 1]
    np.testing.assert_array_equal(ids.numpy(), [[1], [0]])
    np.testing.assert_allclose(vals.numpy(), [[0.6], [0.5]], rtol=1e-6)
