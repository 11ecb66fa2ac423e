"""Conv list arguments that are not ints (a string output_size, a bool stride) raise an error
that is both TypeError and Paddle's ValueError, naming the API and the argument."""
import pytest

import sampan as paddle


@pytest.mark.parametrize("err", [TypeError, ValueError])
def test_string_output_size_is_type_and_value_error(err):
    x = paddle.ones([1, 4, 5, 5])
    with pytest.raises(err, match="conv2d_transpose: output_size must be an int or a list "
                                  "of 2 ints, got 'not_valid'"):
        paddle.nn.Conv2DTranspose(4, 2, 3)(x, output_size="not_valid")
    with pytest.raises(err, match="conv1d_transpose: output_size"):
        paddle.nn.functional.conv1d_transpose(paddle.ones([1, 4, 5]), paddle.ones([4, 2, 3]),
                                              output_size="bad")


def test_bool_and_non_int_elements():
    x, w = paddle.ones([1, 2, 5, 5]), paddle.ones([3, 2, 3, 3])
    with pytest.raises(ValueError, match="conv2d: stride must be an int or a list"):
        paddle.nn.functional.conv2d(x, w, stride=True)
    with pytest.raises(TypeError, match=r"conv2d: dilation must be .* got \['a', 1\]"):
        paddle.nn.functional.conv2d(x, w, dilation=["a", 1])
