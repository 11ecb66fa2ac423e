"""Top-level `paddle.*` names (mostly in-place variants) against Paddle 3.3.1's recorded results.

The cases are in cases_paddle.py; the expected values in paddle_values.py came from running the
same snippets on PaddlePaddle 3.3.1 (record_paddle.py)."""
import pytest

import sampan as paddle
from tests.surface import cases_paddle as cases
from tests.surface._check import check_case, params
from tests.surface.paddle_values import VALUES


@pytest.mark.parametrize("cid", params(cases))
def test_case_matches_paddle(cid):
    check_case(paddle, cases, VALUES, cid)
