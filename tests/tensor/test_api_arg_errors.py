"""Per-API argument errors Paddle 3.3.1 raises: static-graph dtype checks (std, var, nanmean,
inner take integers eagerly but not as Variables), non-Tensor x (isnan/isinf/isfinite/sign:
ValueError eagerly, TypeError in static mode; sampan's error is both), cov weights."""
import numpy as np
import pytest

import sampan as paddle

from ..static_util import static_guard


@pytest.mark.parametrize("api", ["std", "var", "nanmean"])
def test_static_float_only_reductions(api):
    fn = getattr(paddle, api)
    ints = paddle.to_tensor([[1, 2], [3, 4]], dtype="int32")
    assert fn(ints).dtype == paddle.float32 or api == "var"   # eager takes integers
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [2, 3], "int32")
        with pytest.raises(TypeError, match=f"{api}: the data type of 'x' must be one of"):
            fn(x)
        fn(paddle.static.data("f", [2, 3], "float32"))


def test_static_inner_refuses_int8():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [4], "int8")
        with pytest.raises(TypeError, match="inner: the data type of 'x'"):
            paddle.inner(x, x)


@pytest.mark.parametrize("api", ["isnan", "isinf", "isfinite", "sign"])
def test_non_tensor_x(api):
    fn = getattr(paddle, api)
    for value in ([1, 2, 3], 12):
        with pytest.raises(ValueError, match=f"{api}: x must be a Tensor"):
            fn(value)
        with pytest.raises(TypeError):
            fn(value)


def test_cov_weight_errors():
    x = paddle.to_tensor(np.random.default_rng(0).random((5, 10)))
    with pytest.raises(ValueError, match="aweights cannot be negative"):
        paddle.linalg.cov(x, aweights=paddle.to_tensor(-np.ones(10)))
    with pytest.raises(ValueError, match="sum of weights is zero"):
        paddle.linalg.cov(x, fweights=paddle.to_tensor(np.zeros(10, "int32")))
    out = paddle.linalg.cov(x, fweights=paddle.to_tensor(np.ones(10, "int32")))
    np.testing.assert_allclose(out.numpy(), np.cov(x.numpy()), rtol=1e-10)
