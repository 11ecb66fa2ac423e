"""Paddle 3.3.1's alias keywords and PyTorch-style call forms (sampan/tensor/param_alias.py).

The tables are data taken from Paddle 3.3.1 (decorators, "Alias Support" docstrings, then
every public function probed with each candidate alias). The generic tests hold every entry:
a call with the alias behaves exactly as the call with the canonical name (same result or
same error), both given raise Paddle's error type, and the public objects carry the entry.
Values and errors of the call forms below were recorded from Paddle 3.3.1 (eager, CPU).
"""
import gc
import inspect
import warnings

import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F
from sampan.tensor import param_alias as pa
from tests.static_util import static_guard

SPACES = {"paddle.": paddle, "paddle.nn.functional.": F, "paddle.linalg.": paddle.linalg,
          "paddle.fft.": paddle.fft, "paddle.sparse.": paddle.sparse}
ENTRIES = [(prefix, name, alias, canonical)
           for prefix, table in pa.TABLES.items()
           for name, aliases in sorted(table.items())
           for alias, canonical in sorted(aliases.items())]
IDS = [f"{p}{n}:{a}" for p, n, a, _ in ENTRIES]


class _Marker:
    """A value no API accepts: the call fails where the argument is first used."""

    def __repr__(self):
        return "MARKER"


M = _Marker()


@pytest.fixture(autouse=True, scope="module")
def _collect_garbage():
    """The failed calls leave reference cycles (tracebacks); collect them so that timing
    tests of later modules do not pay for this module's garbage."""
    yield
    gc.collect()


def _outcome(fn, *args, **kwargs) -> str:
    paddle.seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(*args, **kwargs)
            return "ok"
        except Exception as exc:  # the exact error is what is compared
            return f"{type(exc).__name__}: {exc}"


def _callable(prefix, name):
    """The public object, or the bound Tensor method for Tensor-only names; and the
    positional arguments that go before the keyword under test."""
    owner = SPACES[prefix]
    if hasattr(owner, name):
        return getattr(owner, name), True
    return getattr(paddle.rand([2, 3]), name), False


def _lead(fn, canonical, unbound):
    if not unbound:
        return ()
    target = fn.__init__ if isinstance(fn, type) else fn
    params = [p for p in inspect.signature(target).parameters if p != "self"]
    return (paddle.rand([2, 3]),) if params and params[0] != canonical else ()


def _spec(obj):
    target = obj.__init__ if isinstance(obj, type) else obj
    return getattr(target, "_call_spec", None)


@pytest.mark.parametrize("prefix,name,alias,canonical", ENTRIES, ids=IDS)
def test_alias_is_the_canonical_keyword(prefix, name, alias, canonical):
    fn, unbound = _callable(prefix, name)
    lead = _lead(fn, canonical, unbound)
    assert _outcome(fn, *lead, **{alias: M}) == _outcome(fn, *lead, **{canonical: M})


@pytest.mark.parametrize("prefix,name,alias,canonical", ENTRIES, ids=IDS)
def test_both_given_raise_paddles_error(prefix, name, alias, canonical):
    fn, unbound = _callable(prefix, name)
    lead = _lead(fn, canonical, unbound)
    how = pa.both_given(prefix + name)
    if how == "wins":  # Paddle's decorator lets the alias override
        assert (_outcome(fn, *lead, **{canonical: 0, alias: M})
                == _outcome(fn, *lead, **{alias: M}))
        return
    error = TypeError if how == "type" else ValueError
    with pytest.raises(error, match=f"'{alias}'"):
        fn(*lead, **{canonical: M, alias: M})


@pytest.mark.parametrize("prefix,name,alias,canonical", ENTRIES, ids=IDS)
def test_public_object_carries_the_entry(prefix, name, alias, canonical):
    fn, unbound = _callable(prefix, name)
    spec = _spec(fn) if unbound else _spec(getattr(paddle.Tensor, name))
    assert spec is not None and spec[2][alias] == canonical
    target = spec[0]
    params = inspect.signature(target).parameters
    assert alias not in params
    assert canonical in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
    if prefix == "paddle." and name in paddle.Tensor.__dict__:  # the method has it too
        assert _spec(paddle.Tensor.__dict__[name])[2].get(alias) == canonical


def test_positional_and_alias_conflict():
    x = paddle.rand([2, 3])
    with pytest.raises(ValueError, match="'x'"):  # C++-parsed in Paddle
        paddle.abs(x, input=x)
    with pytest.raises(ValueError, match="'axis'"):
        paddle.sum(x, 0, dim=0)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        paddle.add(x, input=x, y=x)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        paddle.concat([x], tensors=[x])
    with pytest.raises(TypeError, match="multiple values"):
        x.add(input=x)


def test_alias_values():
    x = paddle.to_tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    np.testing.assert_array_equal(paddle.abs(input=x).numpy(), np.abs(x.numpy()))
    np.testing.assert_array_equal(paddle.sum(x, dim=0).numpy(), [5.0, 3.0, -3.0])
    np.testing.assert_array_equal(x.sum(dim=1, keepdim=True).numpy(), [[2.0], [3.0]])
    np.testing.assert_array_equal(paddle.add(input=x, other=x).numpy(), 2 * x.numpy())
    np.testing.assert_array_equal(x.argmax(dim=1).numpy(), [2, 1])
    np.testing.assert_allclose(F.softmax(input=x, dim=0).numpy(),
                               F.softmax(x, axis=0).numpy())
    np.testing.assert_allclose(paddle.linalg.norm(A=x, ord=2, dim=1).numpy(),
                               np.linalg.norm(x.numpy(), 2, axis=1), rtol=1e-6)
    np.testing.assert_allclose(paddle.fft.fft(input=x, dim=0).numpy(),
                               np.fft.fft(x.numpy(), axis=0), rtol=1e-6)
    assert paddle.concat(tensors=[x, x], dim=1).shape == [2, 6]
    assert x.flatten(start_dim=0, end_dim=1).shape == [6]
    assert paddle.eye(n=2, m=3).shape == [2, 3]
    np.testing.assert_allclose(paddle.linspace(0, 1, steps=3).numpy(), [0.0, 0.5, 1.0])
    assert paddle.full(size=[2], fill_value=1.0).shape == [2]
    assert paddle.finfo(type="float32").eps == np.finfo(np.float32).eps
    y = x.clone()
    y.add_(other=x)
    np.testing.assert_array_equal(y.numpy(), 2 * x.numpy())
    y.uniform_(**{"from": 2.0, "to": 3.0})
    assert y.min().item() >= 2.0 and y.max().item() <= 3.0


def test_alias_wins_where_paddle_lets_it():
    # Paddle 3.3.1: ones(shape=[2], size=[3]) has shape [3]; F.softmax(x=a, input=b) uses b
    assert paddle.ones(shape=[2], size=[3]).shape == [3]
    a, b = paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([3.0, 1.0])
    np.testing.assert_allclose(F.softmax(x=a, input=b).numpy(), F.softmax(b).numpy())


# Values recorded from Paddle 3.3.1 for x = arange(6).reshape([2, 3]) (float32)
def _x():
    return paddle.arange(6, dtype="float32").reshape([2, 3])


def test_size_varargs():
    assert paddle.ones(2, 3).shape == [2, 3]
    assert paddle.zeros(2, 3, dtype="int32").dtype == paddle.int32
    for fn in (paddle.empty, paddle.rand, paddle.randn):
        assert fn(2, 3).shape == [2, 3]
    assert paddle.ones(size=2).shape == [2]
    with pytest.raises(TypeError):  # every positional is a size: Paddle rejects it too
        paddle.ones(2, "float32")


def test_shape_varargs():
    x = _x()
    assert x.reshape(3, 2).shape == [3, 2]
    assert paddle.reshape(x, 3, 2).shape == [3, 2]
    assert x.reshape(paddle.to_tensor(3), 2).shape == [3, 2]
    assert x.reshape(-1).shape == [6]
    assert x.view(3, 2).shape == [3, 2] and x.view(-1).shape == [6]
    assert x.view(size=[3, 2]).shape == [3, 2]
    assert x.view(dtype="int32").dtype == paddle.int32
    assert x.expand(2, 2, 3).shape == [2, 2, 3]
    assert x.expand(size=[2, 2, 3]).shape == [2, 2, 3]
    assert paddle.broadcast_to(x, size=[2, 2, 3]).shape == [2, 2, 3]
    assert paddle.tile(x, dims=[2]).shape == [2, 6]


def test_transpose_and_permute_forms():
    x = _x()
    expected = x.numpy().T
    np.testing.assert_array_equal(x.transpose(0, 1).numpy(), expected)
    np.testing.assert_array_equal(paddle.transpose(x, 0, 1).numpy(), expected)
    np.testing.assert_array_equal(x.transpose(dim0=0, dim1=1).numpy(), expected)
    np.testing.assert_array_equal(paddle.transpose(x, axis0=0, axis1=1).numpy(), expected)
    np.testing.assert_array_equal(x.transpose([1, 0]).numpy(), expected)
    assert paddle.rand([2, 3, 4]).transpose(-1, 0).shape == [4, 3, 2]
    assert x.permute(1, 0).shape == [3, 2] and x.permute(dims=[1, 0]).shape == [3, 2]


def test_index_sum_forms():
    x, i = _x(), paddle.to_tensor([1, 0])
    assert paddle.index_select(x, 1, i).numpy().tolist() == [[1.0, 0.0], [4.0, 3.0]]
    assert x.index_select(1, i).numpy().tolist() == [[1.0, 0.0], [4.0, 3.0]]
    assert paddle.index_select(x, 1, index=i).numpy().tolist() == [[1.0, 0.0], [4.0, 3.0]]
    with pytest.raises(TypeError, match="index"):
        paddle.index_select(x, 1)
    assert paddle.sum(x, 0, True).shape == [1, 3]
    assert paddle.sum(x, 0, "float64").dtype == paddle.float64
    assert paddle.sum(x, 0, True, "float64").dtype == paddle.float64
    assert paddle.sum(x, 0, "float64", True).shape == [1, 3]
    assert x.sum(0, True).shape == [1, 3]
    ones = paddle.ones([2, 3])
    assert (paddle.index_add(x, 0, i, ones).numpy().tolist()
            == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert (x.index_add(1, i, paddle.ones([2, 2])).numpy().tolist()
            == [[1.0, 2.0, 2.0], [4.0, 5.0, 5.0]])
    z = paddle.zeros([2, 3])
    z.index_add_(0, paddle.to_tensor([1]), paddle.ones([1, 3]))
    paddle.index_add_(z, 1, paddle.to_tensor([1]), paddle.ones([2, 1]))
    assert z.numpy().tolist() == [[0.0, 1.0, 0.0], [1.0, 2.0, 1.0]]


def test_tensor_split_and_median_forms():
    x = _x()
    shapes = [t.shape for t in paddle.tensor_split(x, indices_or_sections=2, dim=1)]
    assert shapes == [[2, 2], [2, 1]]
    assert [t.shape for t in paddle.tensor_split(x, sections=2, axis=1)] == [[2, 2], [2, 1]]
    assert [t.shape for t in paddle.tensor_split(x, indices=[1], axis=1)] == [[2, 1], [2, 2]]
    with pytest.warns(Warning, match="mode"):  # PyTorch-style median: mode='min'
        values, index = paddle.median(input=x, dim=1)
    assert values.numpy().tolist() == [1.0, 4.0] and index.numpy().tolist() == [1, 1]
    assert paddle.median(x, axis=1).numpy().tolist() == [1.0, 4.0]


def test_static_graph_and_to_static():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        outs = [paddle.sum(input=x, dim=0), x.reshape(3, 2).transpose(0, 1),
                paddle.ones(2, 3) + x, x.sum(0, True)]
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    got = paddle.static.Executor().run(main, feed={"x": xv}, fetch_list=outs)
    np.testing.assert_array_equal(got[0], xv.sum(0))
    np.testing.assert_array_equal(got[1], xv.reshape(3, 2).T)
    np.testing.assert_array_equal(got[2], xv + 1)
    np.testing.assert_array_equal(got[3], xv.sum(0, keepdims=True))

    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        i = paddle.static.data("i", [2, 1], "int64")
        outs = [x.gather(1, i), paddle.index_select(x, 1, paddle.to_tensor([2, 0])),
                x.view(-1), x.expand(2, 2, 3), paddle.argmax(x, dim=1, keepdims=True)]
    got = paddle.static.Executor().run(main, feed={"x": xv, "i": np.array([[0], [1]])},
                                       fetch_list=outs)
    assert got[0].tolist() == [[0.0], [4.0]] and got[1].tolist() == [[2.0, 0.0], [5.0, 3.0]]
    assert got[2].tolist() == list(range(6)) and got[3].shape == (2, 2, 3)
    assert got[4].tolist() == [[2], [2]]

    @paddle.jit.to_static
    def f(t):
        return (paddle.add(input=t, other=t).sum(dim=1)
                + t.view(3, 2).transpose(dim0=0, dim1=1).sum(dim=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to eager
        assert f(paddle.to_tensor(xv)).numpy().tolist() == [12.0, 33.0]


def test_no_alias_names_keep_their_objects():
    # names Paddle binds to one object stay one object; mul is not multiply in Paddle 3.3.1
    assert paddle.clamp is paddle.clip and paddle.cat is paddle.concat
    assert paddle.mul is not paddle.multiply
    assert paddle.Tensor.add is paddle.add
    # the aliases are not in the signature (as in Paddle)
    assert inspect.signature(paddle.reshape) == inspect.signature(inspect.unwrap(paddle.reshape))


def test_pytorch_keywords_refused_with_paddles_hint():
    # Paddle 3.3.1: paddle.max/min/sort/split and the PyTorch-style paddle.softmax refuse
    # PyTorch's keywords (TypeError) and name the paddle.compat function to use
    x = paddle.rand([2, 3])
    for call, api, keys, instead in (
            (lambda: paddle.max(x, dim=0), "paddle.max", "'dim'", "paddle.compat.max"),
            (lambda: x.min(dim=0, input=x), "paddle.min", "'dim', 'input'", "paddle.compat.min"),
            (lambda: paddle.sort(x, dim=0), "paddle.sort", "'dim'", "paddle.compat.sort"),
            (lambda: paddle.split(x, 3, dim=1), "paddle.split", "'dim'", "paddle.compat.split"),
            (lambda: paddle.softmax(x, axis=0), "paddle.compat.nn.functional.softmax", "'axis'",
             "paddle.nn.functional.softmax")):
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value).startswith(f"{api}() received unexpected keyword argument")
        assert keys in str(info.value) and f"Did you mean to use {instead}() instead?" in str(
            info.value)
    assert paddle.max(x, axis=0).shape == [3]
    assert paddle.softmax(x, 0, 3).shape == [2, 3]  # PyTorch's _stacklevel is ignored


def test_pytorch_gather_scatter_overloads():
    # Paddle 3.3.1: an int second argument (or dim=) selects PyTorch's gather/scatter, i.e.
    # take_along_axis / put_along_axis without broadcasting; values recorded from Paddle
    x, i = _x(), paddle.to_tensor([[0], [1]])
    assert x.gather(1, i).numpy().tolist() == [[0.0], [4.0]]
    assert paddle.gather(x, dim=1, index=i).numpy().tolist() == [[0.0], [4.0]]
    assert paddle.gather(x, paddle.to_tensor([1]), 0).numpy().tolist() == [[3.0, 4.0, 5.0]]
    assert x.scatter(1, i, 9.0).numpy().tolist() == [[9.0, 1.0, 2.0], [3.0, 9.0, 5.0]]
    assert (paddle.scatter(x, 1, i, src=paddle.ones([2, 1]), reduce="add").numpy().tolist()
            == [[1.0, 1.0, 2.0], [3.0, 5.0, 5.0]])
    y = x.clone()
    y.scatter_(1, i, 5.0)
    assert y.numpy().tolist() == [[5.0, 1.0, 2.0], [3.0, 5.0, 5.0]]
    assert (paddle.scatter(paddle.zeros([3]), paddle.to_tensor([1]), paddle.ones([1]))
            .numpy().tolist() == [0.0, 1.0, 0.0])
    with pytest.raises(TypeError, match="expect one of the following input pattern"):
        paddle.scatter(x, 1, i)
    with pytest.raises(TypeError, match="`value` is useless when `src` is specified"):
        paddle.scatter(x, 1, i, src=paddle.ones([2, 1]), value=1.0)
    out = paddle.zeros([1])
    assert paddle.gather(x, 1, i, out=out) is out and out.shape == [2, 1]
