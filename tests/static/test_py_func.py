"""static.py_func: a Python function as an op (forward, backward_func, skip vars, errors,
serialization refusal). Numbers checked against Paddle 3.3.1 (legacy static)."""
import json

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.static.io import program_from_dict, program_to_dict
from tests.static_util import static_guard


@pytest.fixture
def progs():
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        yield main


def _tanh(x):
    return np.tanh(np.array(x))


def _tanh_grad(y, dy):
    y = np.array(y)
    return np.array(dy) * (1 - y * y)


def test_forward_and_backward_func_like_paddle(progs):
    x = static.data("x", [2, 3], "float32")
    x.stop_gradient = False
    out = progs.current_block().create_var(name="o", dtype="float32", shape=[2, 3])
    assert static.py_func(_tanh, x, out, backward_func=_tanh_grad,
                          skip_vars_in_backward_input=x) is out
    assert not out.stop_gradient
    loss = paddle.mean(out)
    (gx,) = static.gradients([loss], [x])
    op = [o for o in progs.global_block().ops if o.type == "py_func"][-1]
    assert op.input("x") == ["o", "o@GRAD"]   # x skipped, as in Paddle's grad op
    o, g = static.Executor().run(progs, feed={"x": np.ones((2, 3), "float32")},
                                 fetch_list=[out, gx])
    np.testing.assert_allclose(o, np.full((2, 3), 0.7615942, "float32"), rtol=1e-6)
    np.testing.assert_allclose(g, np.full((2, 3), 0.06999572, "float32"), rtol=1e-5)


def test_multiple_inputs_outputs_and_tensor_arguments(progs):
    seen = []

    def f(a, b):
        seen.append(type(a).__name__)
        return [np.array(a) + np.array(b), np.array(a) * 2]

    a = static.data("a", [3], "float64")
    b = static.data("b", [3], "float64")
    blk = progs.current_block()
    o1 = blk.create_var(name="o1", dtype="float64", shape=[3])
    o2 = blk.create_var(name="o2", dtype="float64", shape=[3])
    static.nn.py_func(f, [a, b], [o1, o2])
    r1, r2 = static.Executor().run(progs, feed={"a": np.arange(3.0), "b": np.ones(3)},
                                   fetch_list=[o1, o2])
    np.testing.assert_array_equal(r1, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(r2, [0.0, 2.0, 4.0])
    assert seen == ["Tensor"]


def test_out_none_runs_for_its_effect_and_survives_passes(progs):
    calls = []
    x = static.data("x", [2, 3], "float32")
    assert static.py_func(lambda a: calls.append(float(np.array(a).sum())), x, None) is None
    y = x * 2
    static.Executor().run(progs, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[y])
    assert calls == [6.0]
    pruned = static.passes.apply(progs, ["dead_code_elimination",
                                         "common_subexpression_elimination"], keep=[y])
    assert [op.type for op in pruned.global_block().ops].count("py_func") == 1


def test_wrong_return_shape_and_count(progs):
    x = static.data("x", [2], "float32")
    blk = progs.current_block()
    out = blk.create_var(name="o", dtype="float32", shape=[2])
    static.py_func(lambda a: np.ones((3,), "float32"), x, out)
    with pytest.raises(ValueError, match=r"py_func: output 0 .*shape \[3\].*\[2\]"):
        static.Executor().run(progs, feed={"x": np.ones(2, "float32")}, fetch_list=[out])


def test_wrong_count(progs):
    x = static.data("x", [2], "float32")
    blk = progs.current_block()
    o1 = blk.create_var(name="o1", dtype="float32", shape=[2])
    o2 = blk.create_var(name="o2", dtype="float32", shape=[2])
    static.py_func(lambda a: np.array(a), x, [o1, o2])
    with pytest.raises(ValueError, match="must return 2 values"):
        static.Executor().run(progs, feed={"x": np.ones(2, "float32")}, fetch_list=[o1])


def test_argument_errors(progs):
    x = static.data("x", [2], "float32")
    out = progs.current_block().create_var(name="o", dtype="float32", shape=[2])
    with pytest.raises(TypeError, match="func must be callable"):
        static.py_func(3, x, out)
    with pytest.raises(TypeError, match="x must be a Variable"):
        static.py_func(_tanh, np.ones(2), out)
    with pytest.raises(ValueError, match="backward_func is None"):
        static.py_func(_tanh, x, out, skip_vars_in_backward_input=x)


def test_refused_in_dynamic_mode():
    with pytest.raises(AssertionError,
                       match=r"py_func: only supported in static graph mode.*'py_func\(\)'"):
        static.py_func(_tanh, paddle.ones([2]), paddle.ones([2]))


def test_program_with_py_func_refuses_to_serialize(progs, tmp_path):
    x = static.data("x", [2], "float32")
    out = progs.current_block().create_var(name="o", dtype="float32", shape=[2])
    static.py_func(_tanh, x, out)
    y = out + 1.0
    with pytest.raises(ValueError, match=r"serialize_program: .*py_func.*_tanh.*cannot"):
        static.serialize_program([x], [y], program=progs)
    with pytest.raises(ValueError, match="py_func"):
        static.save_inference_model(str(tmp_path / "m"), [x], [y], static.Executor(),
                                    program=progs)
    # in-process dict round trip keeps the ids; a dict from another process is refused
    d = json.loads(json.dumps(program_to_dict(progs)))
    copy = program_from_dict(d)
    r = static.Executor().run(copy, feed={"x": np.zeros(2, "float32")}, fetch_list=["o"])
    np.testing.assert_array_equal(r[0], [0.0, 0.0])
    d["py_func_token"] = "another-process"
    with pytest.raises(ValueError, match="another process"):
        program_from_dict(d)
