"""paddle.iinfo of a non-integer dtype is a ValueError (Paddle) and a TypeError."""
import pytest

import sampan as paddle


@pytest.mark.parametrize("dtype", [paddle.float16, paddle.float32, paddle.bfloat16,
                                   paddle.complex64, paddle.bool, "float64", "uint16"])
@pytest.mark.parametrize("err", [ValueError, TypeError])
def test_non_integer(dtype, err):
    with pytest.raises(err, match="iinfo: dtype must be an integer type"):
        paddle.iinfo(dtype)


def test_integer():
    assert paddle.iinfo(paddle.int16).max == 32767 and paddle.iinfo("uint8").min == 0
