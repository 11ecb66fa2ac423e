"""static.InputSpec: normalisation, constructors, batch/unbatch, equality, errors."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec


def test_shape_dtype_name_and_repr():
    spec = InputSpec([None, 3], "float64", "x")
    assert spec.shape == (-1, 3) and spec.dtype == paddle.float64 and spec.name == "x"
    assert repr(spec) == ("InputSpec(shape=(-1, 3), dtype=paddle.float64, name=x, "
                          "stop_gradient=False)")
    assert spec == InputSpec((-1, 3), paddle.float64, "x") and len({spec, spec}) == 1


def test_constructors_and_batching():
    t = paddle.ones([2, 5], dtype="int64")
    assert InputSpec.from_tensor(t, "t").shape == (2, 5)
    assert InputSpec.from_numpy(np.zeros((4,), "float32")).dtype == paddle.float32
    spec = InputSpec([3])
    assert spec.batch(16) is spec and spec.shape == (16, 3)
    assert spec.unbatch().shape == (3,)


def test_errors():
    with pytest.raises(ValueError, match="int >= -1 or None"):
        InputSpec([2, -3])
    with pytest.raises(TypeError, match="shape must be a list"):
        InputSpec("abc")
    with pytest.raises(ValueError, match="no batch dim"):
        InputSpec([]).unbatch()
