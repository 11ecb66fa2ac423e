"""`paddle.nn` / `paddle.nn.functional` names no other test exercised, against Paddle 3.3.1.

Cases: cases_nn.py; expected values: paddle_values.py (recorded from PaddlePaddle 3.3.1 by
record_paddle.py)."""
import numpy as np
import pytest

import sampan as paddle
from tests.surface import cases_nn as cases
from tests.surface._check import check_case, params
from tests.surface.paddle_values import VALUES


@pytest.mark.parametrize("cid", params(cases))
def test_case_matches_paddle(cid):
    check_case(paddle, cases, VALUES, cid)




def test_sparse_attention_matches_masked_softmax_attention():
    # Paddle 3.3.1 runs sparse_attention on CUDA only, so the reference is dense attention
    # restricted to the CSR pattern, computed with NumPy.
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 2, 4, 3)).astype("float32") for _ in range(3))
    rows = [[0], [0, 1], [1, 2], [0, 3]]              # allowed key columns per query row
    offset = np.cumsum([0] + [len(r) for r in rows]).astype("int32")
    columns = np.concatenate(rows).astype("int32")
    offs = np.broadcast_to(offset, (1, 2, 5)).copy()
    cols = np.broadcast_to(columns, (1, 2, len(columns))).copy()
    out = paddle.nn.functional.sparse_attention(
        paddle.to_tensor(q), paddle.to_tensor(k), paddle.to_tensor(v),
        paddle.to_tensor(offs), paddle.to_tensor(cols))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(3.0)
    mask = np.full((4, 4), -np.inf)
    for r, cs in enumerate(rows):
        mask[r, cs] = 0.0
    p = np.exp(scores + mask - (scores + mask).max(-1, keepdims=True))
    want = (p / p.sum(-1, keepdims=True)) @ v
    assert out.dtype == paddle.float32 and out.shape == [1, 2, 4, 3]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)
