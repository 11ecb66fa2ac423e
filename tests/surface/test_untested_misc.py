"""The other untested names (optimizer, io, vision, static, inference, ...) vs Paddle 3.3.1.

Cases: cases_misc.py; expected values: paddle_values.py (recorded from PaddlePaddle 3.3.1 by
record_paddle.py)."""
import numpy as np
import pytest

import sampan as paddle
from tests.surface import cases_misc as cases
from tests.surface._check import check_case, params
from tests.surface.paddle_values import VALUES


@pytest.mark.parametrize("cid", params(cases))
def test_case_matches_paddle(cid):
    check_case(paddle, cases, VALUES, cid)




