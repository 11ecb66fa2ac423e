"""static.nn.cond / while_loop / case / switch_case / Print: programs with sub-blocks (golden
text, JSON round-trip, verify, inference export), values and gradients vs the eager (Python)
equivalents, nested control flow, errors."""
from __future__ import annotations

import json

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.static.io import program_from_dict, program_to_dict
from sampan.static.verify import VerifyError
from sampan.utils import unique_name
from tests.static_util import static_guard


def _build(fn):
    main = static.Program()
    with unique_name.guard(), static_guard(main, static.Program()):
        out = fn()
    return main, out


def _round_trip(program):
    copy = program_from_dict(json.loads(json.dumps(program_to_dict(program))))
    assert str(copy) == str(program)
    copy.verify()
    return copy


GOLDEN = """\
block 0:
  data %x: float32[-1, 2]
  const %const_0: float32[]
  const %const_1: float32[]
  const %const_2: int64[]
  const %const_3: int64[]
  const %const_4: float32[]
  %tmp_0 = full(dtype="int64")  # int64[]
  %tmp_1 = sum(x=%x)  # float32[]
  %tmp_2 = greater_than(x=%tmp_1, y=%const_0)  # bool[]
  %tmp_4 = cond(pred=%tmp_2, ins=[%x, %const_1], false_block=2, false_inputs=["x@b2", null], \
false_outputs=["x@b2"], out_dtypes=["float32"], out_shapes=[[-1, 2]], true_block=1, \
true_inputs=["x@b1", "const_1@b1"], true_outputs=["tmp_3"])  # float32[-1, 2]
  %tmp_8, %tmp_9 = while_loop(x=[%tmp_0, %tmp_4], c=[%const_2, %const_3, %const_4], \
body_block=4, body_inputs=["tmp_0@arg@b4", "tmp_4@arg@b4", null, "const_3@b4", "const_4@b4"], \
body_outputs=["tmp_6", "tmp_7"], cond_block=3, cond_inputs=["tmp_0@arg@b3", "tmp_4@arg@b3", \
"const_2@b3", null, null], cond_output="tmp_5", out_dtypes=["int64", "float32"], \
out_shapes=[[], [-1, 2]])  # int64[], float32[-1, 2]
block 1 (parent 0):
  var %x@b1: float32[-1, 2]
  var %const_1@b1: float32[]
  %tmp_3 = multiply(x=%x@b1, y=%const_1@b1)  # float32[-1, 2]
block 2 (parent 0):
  var %x@b2: float32[-1, 2]
block 3 (parent 0):
  var %tmp_0@arg@b3: int64[]
  var %tmp_4@arg@b3: float32[-1, 2]
  var %const_2@b3: int64[]
  %tmp_5 = less_than(x=%tmp_0@arg@b3, y=%const_2@b3)  # bool[]
block 4 (parent 0):
  var %tmp_0@arg@b4: int64[]
  var %tmp_4@arg@b4: float32[-1, 2]
  var %const_3@b4: int64[]
  var %const_4@b4: float32[]
  %tmp_6 = add(x=%tmp_0@arg@b4, y=%const_3@b4)  # int64[]
  %tmp_7 = add(x=%tmp_4@arg@b4, y=%const_4@b4)  # float32[-1, 2]"""


def _golden_program():
    def fn():
        x = static.data("x", [-1, 2], "float32")
        i = paddle.full([], 0, "int64")
        out = static.nn.cond(x.sum() > 0, lambda: x * 2.0, lambda: x)
        return static.nn.while_loop(lambda j, y: j < 3, lambda j, y: [j + 1, y + 1.0],
                                    [i, out])
    return _build(fn)


def test_golden_text_verify_json_round_trip_and_run():
    main, (j, y) = _golden_program()
    assert str(main) == GOLDEN
    assert main.num_blocks == 5
    assert [main.block(i).parent_idx for i in range(5)] == [-1, 0, 0, 0, 0]
    main.verify()
    copy = _round_trip(main)
    exe = static.Executor()
    for prog in (main, copy, main.clone(for_test=True)):
        for xa, want in ((np.ones((3, 2), "float32"), 5.0), (-np.ones((1, 2), "float32"), 2.0)):
            jv, yv = exe.run(prog, feed={"x": xa}, fetch_list=[j.name, y.name])
            assert int(jv) == 3
            np.testing.assert_allclose(yv, np.full(xa.shape, want, "float32"))


def test_verify_catches_a_broken_sub_block():
    main, _ = _golden_program()
    main.block(1).ops[0].inputs["x"] = ["nowhere"]
    with pytest.raises(VerifyError, match="block 1 op #0.*'nowhere'"):
        main.verify()


def test_inference_export_keeps_sub_blocks(tmp_path):
    main, (j, y) = _golden_program()
    exe = static.Executor()
    path = str(tmp_path / "cf")
    static.save_inference_model(path, [main.global_block().var("x")], [y], exe, program=main)
    program, feeds, fetches = static.load_inference_model(path, exe)
    program.verify()
    assert program.num_blocks == 5
    got = exe.run(program, feed={feeds[0]: np.ones((2, 2), "float32")}, fetch_list=fetches)[0]
    np.testing.assert_allclose(got, np.full((2, 2), 5.0, "float32"))


# --- values and gradients vs eager ------------------------------------------------------------------

def _compare(model, arrays, grads_of):
    """Run model(*vars) statically (with static.gradients of sum(out**2)) and eagerly."""
    def fn():
        vs = []
        for k, a in enumerate(arrays):
            v = static.data(f"a{k}", list(a.shape), a.dtype.name)
            v.stop_gradient = k not in grads_of
            vs.append(v)
        out = model(*vs)
        loss = (out * out).sum()
        return out, static.gradients([loss], [vs[k] for k in grads_of])
    main, (out, grads) = _build(fn)
    main.verify()
    main = _round_trip(main)
    feed = {f"a{k}": a for k, a in enumerate(arrays)}
    got = static.Executor().run(main, feed=feed, fetch_list=[out.name] + [g.name for g in grads])
    ts = [paddle.to_tensor(a, stop_gradient=k not in grads_of) for k, a in enumerate(arrays)]
    eo = model(*ts)
    want = paddle.grad([(eo * eo).sum()], [ts[k] for k in grads_of], allow_unused=True)
    np.testing.assert_allclose(got[0], eo.numpy(), rtol=1e-10, atol=1e-12)
    for g, w in zip(got[1:], want):
        np.testing.assert_allclose(g, np.zeros_like(g) if w is None else w.numpy(),
                                   rtol=1e-9, atol=1e-12)
    return main


@pytest.mark.parametrize("n", [0, 1, 5])
def test_nested_cond_in_while_with_tensor_bound(n):
    def model(n, x, w):
        def body(i, h):
            h = static.nn.cond(i % 2 == 0, lambda: paddle.tanh(h * w), lambda: h + w)
            return [i + 1, h]
        i = paddle.zeros([], "int64")
        return static.nn.while_loop(lambda i, h: i < n, body, [i, x])[1]
    rng = np.random.default_rng(0)
    _compare(model, [np.array(n), rng.standard_normal(3), rng.standard_normal(3)], (1, 2))


@pytest.mark.parametrize("flags", [(True, True), (True, False), (False, True), (False, False)])
def test_nested_cond_in_cond_gradients(flags):
    def model(p, q, x, w):
        inner = lambda: static.nn.cond(q, lambda: (x * w).exp(), lambda: x - w * w)  # noqa
        return static.nn.cond(p, inner, lambda: x * 3.0)
    rng = np.random.default_rng(1)
    _compare(model, [np.array(flags[0]), np.array(flags[1]), rng.standard_normal((2, 2)),
                     rng.standard_normal((2, 2))], (2, 3))


def test_while_inside_cond_gradients():
    def model(p, x):
        loop = lambda: static.nn.while_loop(  # noqa
            lambda i, h: i < 3, lambda i, h: [i + 1, h * h * 0.5 + 0.1],
            [paddle.zeros([], "int64"), x])[1]
        return static.nn.cond(p, loop, lambda: x.sin())
    rng = np.random.default_rng(2)
    for p in (True, False):
        _compare(model, [np.array(p), rng.standard_normal(4) * 0.5], (1,))


def test_cond_gradient_for_a_parameter_with_append_backward():
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        x = static.data("x", [2, 3], "float32")
        w = static.create_parameter([3, 1], "float32", name="cf_w")
        y = paddle.matmul(x, w)
        out = static.nn.cond(y.mean() > 0, lambda: y * y, lambda: -y)
        pairs = static.append_backward(out.sum())
    main.verify()
    exe = static.Executor()
    exe.run(startup)
    static.global_scope().set("cf_w", np.full((3, 1), 0.5, "float32"))
    assert [p.name for p, _ in pairs] == ["cf_w"]
    xa = np.arange(6, dtype="float32").reshape(2, 3)
    for sign in (1, -1):
        (g,) = exe.run(main, feed={"x": sign * xa}, fetch_list=[pairs[0][1]])
        ya = (sign * xa) @ np.full((3, 1), 0.5, "float32")
        gy = 2 * ya if ya.mean() > 0 else -np.ones_like(ya)
        np.testing.assert_allclose(g, (sign * xa).T @ gy, rtol=1e-6)


def test_while_loop_shape_changing_variable_forward():
    def fn():
        n = static.data("n", [], "int64")
        acc = paddle.zeros([0], "float32")
        i = paddle.zeros([], "int64")
        return static.nn.while_loop(
            lambda i, a: i < n,
            lambda i, a: [i + 1, paddle.concat([a, i.astype("float32").reshape([1])])],
            [i, acc])
    main, (i, acc) = _build(fn)
    assert acc.shape == [-1]
    main.verify()
    (got,) = static.Executor().run(main, feed={"n": np.array(4)}, fetch_list=[acc])
    np.testing.assert_array_equal(got, [0, 1, 2, 3])


def test_while_loop_is_test_saves_no_states_and_gradient_says_why():
    def fn():
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        h = static.nn.while_loop(lambda i, h: i < 2, lambda i, h: [i + 1, h * h],
                                 [paddle.zeros([], "int64"), x], is_test=True)[1]
        return static.gradients([h.sum()], [x])
    with pytest.raises(RuntimeError, match="saved no iteration states"):
        _build(fn)


def test_case_and_switch_case_static_and_dynamic():
    def model(k, x):
        a = static.nn.case([(k == 0, lambda: x + 1.0), (k == 1, lambda: x * 2.0)],
                           default=lambda: x * 0.0)
        b = static.nn.switch_case(k, {1: lambda: x - 1.0, 3: lambda: x * x},
                                  default=lambda: -x)
        c = static.nn.switch_case(k, [lambda: x, lambda: x * 10.0])  # default: the last
        d = static.nn.case([(k == 2, lambda: x * 7.0), (k == 5, lambda: x * 9.0)])
        return a, b, c, d
    x = np.array([1.5, -2.0])
    main, outs = _build(lambda: model(static.data("k", [], "int64"), static.data(
        "x", [2], "float64")))
    main.verify()
    exe = static.Executor()
    for k in range(5):
        got = exe.run(main, feed={"k": np.array(k), "x": x}, fetch_list=list(outs))
        want = model(paddle.to_tensor(np.array(k)), paddle.to_tensor(x))
        ref = ([x + 1, x * 2][k] if k < 2 else 0 * x, {1: x - 1, 3: x * x}.get(k, -x),
               x if k == 0 else 10 * x, 7 * x if k == 2 else 9 * x)
        for g, w, r in zip(got, want, ref):
            np.testing.assert_allclose(g, r)
            np.testing.assert_allclose(w.numpy(), r)


def test_dynamic_mode_runs_python():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    calls = []

    def t():
        calls.append("t")
        return x * 3.0
    out = static.nn.cond(paddle.to_tensor(True), t, lambda: calls.append("f"))
    assert calls == ["t"]
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    assert static.nn.cond(paddle.to_tensor([False]), t) is None
    i, s = static.nn.while_loop(lambda i, s: i < 4, lambda i, s: [i + 1, s + i],
                                [paddle.to_tensor(0), paddle.to_tensor(0)])
    assert (int(i), int(s)) == (4, 6)


def test_print_forward_and_backward(capsys):
    def fn():
        x = static.data("px", [2], "float64")
        x.stop_gradient = False
        y = static.Print(x * 2.0, message="hello", print_phase="both")
        return y, static.gradients([y.sum()], [x])[0]
    main, (y, g) = _build(fn)
    got = static.Executor().run(main, feed={"px": np.array([1.0, 2.0])}, fetch_list=[y, g])
    np.testing.assert_allclose(got[0], [2.0, 4.0])
    np.testing.assert_allclose(got[1], [2.0, 2.0])
    text = capsys.readouterr().out
    assert text.count("hello") == 2 and "data: [2.0 4.0]" in text and "@GRAD" in text


# --- errors ---------------------------------------------------------------------------------------------

def _static_x():
    return static.data("x", [2], "float32")


@pytest.mark.parametrize("build, exc, match", [
    (lambda x: static.nn.cond(x.sum(), lambda: x, lambda: x), TypeError,
     "cond: pred must be a bool tensor, got float32"),
    (lambda x: static.nn.cond(x > 0, lambda: x, lambda: x), ValueError,
     "exactly one element"),
    (lambda x: static.nn.cond(x.sum() > 0, lambda: x, lambda: [x, x]), ValueError,
     "same structure.*Tensor and \\[Tensor, Tensor\\]"),
    (lambda x: static.nn.cond(x.sum() > 0, lambda: x, lambda: x.astype("float64")), TypeError,
     "output 0 is float32 in true_fn but float64"),
    (lambda x: static.nn.cond(x.sum() > 0, lambda: x, 3), TypeError,
     "false_fn must be callable"),
    (lambda x: static.nn.while_loop(lambda h: h.sum(), lambda h: h, [x]), TypeError,
     "cond must return a bool Tensor with one element, got float32"),
    (lambda x: static.nn.while_loop(lambda h: h.sum() > 0, lambda h: h.astype("float64"),
                                    [x]), TypeError, "loop variable 0 is float32 but body"),
    (lambda x: static.nn.while_loop(lambda h: h.sum() > 0, lambda h: [h, h], [x]), ValueError,
     "same structure as loop_vars"),
    (lambda x: static.nn.while_loop(lambda h: True, lambda h: h, []), ValueError,
     "must not be empty"),
    (lambda x: static.nn.while_loop(lambda h: True, lambda h: h, x), TypeError,
     "loop_vars must be a list or tuple"),
    (lambda x: static.nn.switch_case(x, [lambda: x]), TypeError,
     "branch_index must be an int32, int64 or uint8 Tensor"),
    (lambda x: static.nn.switch_case(paddle.zeros([], "int64"), [(1, lambda: x),
                                                                  (1, lambda: x)]),
     ValueError, "key 1 appears more than once"),
    (lambda x: static.nn.case([(x, lambda: x)]), TypeError, "must be a bool Tensor"),
    (lambda x: static.Print(x, print_phase="never"), ValueError, "print_phase"),
])
def test_errors(build, exc, match):
    with pytest.raises(exc, match=match):
        _build(lambda: build(_static_x()))


def test_cond_op_outside_an_executor_explains():
    from sampan.ops.dispatch import call
    with pytest.raises(RuntimeError, match="only be executed by static.Executor"):
        call("cond", paddle.to_tensor(True), [], true_block=1, false_block=2)
