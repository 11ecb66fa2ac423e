"""The elementwise math functions are plain defs a reader can find (issue #8): each lives in
its family module under its own name, with a Paddle-style docstring and a doctest example,
and calls the op of the same name."""
import inspect

import numpy as np
import pytest

import sampan as paddle
from sampan.tensor import math, math_binary, math_trig, math_unary

MODULES = (math_binary, math_unary, math_trig)
NAMES = [(m, n) for m in MODULES for n in m.__all__ if n not in ("mod", "floor_mod")]


@pytest.mark.parametrize("mod,name", NAMES, ids=[n for _, n in NAMES])
def test_written_out_with_docstring_and_example(mod, name):
    fn = getattr(mod, name)
    assert fn.__name__ == name and fn.__module__ == mod.__name__
    source = inspect.getsource(mod)
    assert f"\ndef {name}(" in source  # findable by grep, not generated in a loop
    doc = fn.__doc__
    for section in ("Args:", "Returns:", "Examples:", f"paddle.{name}("):
        assert section in doc, (name, section)
    assert inspect.unwrap(getattr(paddle, name)) is fn and getattr(math, name) is fn
    params = inspect.signature(fn).parameters.values()  # Paddle 3's keyword-only ones follow
    assert [p.name for p in params if p.kind is not p.KEYWORD_ONLY][-1] == "name"


def test_aliases_and_math_exports():
    assert paddle.mod is paddle.floor_mod is paddle.remainder
    for mod in MODULES:
        assert set(mod.__all__) <= set(math.__all__)
    assert len(math.__all__) == len(set(math.__all__))


def test_defs_call_their_ops():
    x = paddle.to_tensor([0.25, 0.5, 4.0], dtype="float64")
    np.testing.assert_allclose(paddle.log2(x).numpy(), np.log2(x.numpy()))
    np.testing.assert_allclose(paddle.atan2(x, 2.0).numpy(), np.arctan2(x.numpy(), 2.0))
    assert paddle.gcd(paddle.to_tensor([12]), paddle.to_tensor([18])).tolist() == [6]
    m, e = paddle.frexp(x)
    np.testing.assert_array_equal(m.numpy() * 2.0 ** e.numpy(), x.numpy())
    assert x.exp().numpy().tolist() == paddle.exp(x).numpy().tolist()  # Tensor method bound
