"""Program IR: building through the intercept, the text form (goldens), clone, verify."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.static.verify import VerifyError
from sampan.utils import unique_name
from tests.static_util import static_guard


def _build(fn):
    main, startup = static.Program(), static.Program()
    with unique_name.guard(), static_guard(main, startup):
        out = fn()
    return main, startup, out


def test_golden_text_elementwise_chain():
    def fn():
        x = static.data("x", [None, 3], "float32")
        return paddle.exp(x) * 2.0 + x
    main, _, _ = _build(fn)
    assert str(main) == (
        "block 0:\n"
        "  data %x: float32[-1, 3]\n"
        "  const %const_0: float32[]\n"
        "  %tmp_0 = exp(x=%x)  # float32[-1, 3]\n"
        "  %tmp_1 = multiply(x=%tmp_0, y=%const_0)  # float32[-1, 3]\n"
        "  %tmp_2 = add(x=%tmp_1, y=%x)  # float32[-1, 3]")
    main.verify()


def test_golden_text_params_attrs_and_startup():
    def fn():
        x = static.data("x", [2, 3], "float32")
        w = static.create_parameter([3, 4], "float32", name="w")
        b = static.create_parameter([4], "float32", name="b", is_bias=True)
        return paddle.sum(paddle.matmul(x, w) + b, axis=1, keepdim=True)
    main, startup, _ = _build(fn)
    assert str(main) == (
        "block 0:\n"
        "  data %x: float32[2, 3]\n"
        "  param %w: float32[3, 4]\n"
        "  param %b: float32[4]\n"
        "  %tmp_0 = matmul(x=%x, y=%w)  # float32[2, 4]\n"
        "  %tmp_1 = add(x=%tmp_0, y=%b)  # float32[2, 4]\n"
        "  %tmp_2 = sum(x=%tmp_1, axis=1, keepdim=true)  # float32[2, 1]")
    text = str(startup)
    assert "%w = uniform(" in text and "%b = full(shape=[4])  # float32[4]" in text


def test_golden_text_variadic_and_multi_output():
    def fn():
        x = static.data("x", [4, 2], "float64")
        a, b = paddle.split(x, 2)
        return paddle.concat([b, a], axis=1)
    main, _, _ = _build(fn)
    assert str(main) == (
        "block 0:\n"
        "  data %x: float64[4, 2]\n"
        "  %tmp_0, %tmp_1 = split(x=%x, num_or_sections=2)  # float64[2, 2], float64[2, 2]\n"
        "  %tmp_2 = concat(x=[%tmp_1, %tmp_0], axis=1)  # float64[2, 4]")
    main.verify()


def test_variable_duck_types_tensor():
    def fn():
        x = static.data("x", [None, 3], "float32")
        return x
    _, _, x = _build(fn)
    assert x.shape == [-1, 3] and x.ndim == 2 and x.dtype == paddle.float32
    assert x.name == "x" and x.stop_gradient and not x.persistable
    with pytest.raises(TypeError, match="symbolic"):
        x.numpy()
    with pytest.raises(TypeError, match="symbolic"):
        bool(x)


def test_methods_operators_and_reflected_ndarray():
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [2, 2], "float64")
        y = (np.eye(2) * x).sum() + x.mean() - 1
        z = x.T @ x
        w = x.reshape([4]).astype("float32")
    exe = static.Executor()
    xv = np.array([[1.0, 2.0], [3.0, 4.0]])
    got = exe.run(main, feed={"x": xv}, fetch_list=[y, z, w])
    np.testing.assert_allclose(got[0], 5.0 + 2.5 - 1)
    np.testing.assert_allclose(got[1], xv.T @ xv)
    assert got[2].dtype == np.float32 and got[2].shape == (4,)


def test_inplace_method_rebinds_handle():
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [3], "float32")
        h = x * 1.0
        old = h.name
        h.exp_()
    assert h.name != old and main.global_block().has_var(old)
    out = static.Executor().run(main, feed={"x": np.zeros(3, "float32")}, fetch_list=[h])
    np.testing.assert_allclose(out[0], np.ones(3))


def test_infer_errors_at_build_time():
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [2, 3], "float32")
        y = static.data("y", [4, 5], "float32")
        with pytest.raises(ValueError, match="matmul"):
            paddle.matmul(x, y)


def test_data_outside_static_mode_errors():
    with pytest.raises(RuntimeError, match="static graph mode"):
        static.data("x", [1])


def test_enable_disable_static():
    try:
        paddle.static.enable_static()
        assert not paddle.in_dynamic_mode()
        x = static.data("x_es", [2], "float32")
        y = paddle.ones([2]) + x
        assert getattr(y, "_is_variable", False)
        assert static.default_main_program().global_block().has_var(y.name)
    finally:
        paddle.static.disable_static()
        static.program._Current.main = static.Program()
    assert paddle.in_dynamic_mode()
    assert isinstance(paddle.ones([2]) + 1, paddle.Tensor)


def test_eager_parameter_becomes_bound_variable():
    p = paddle.create_parameter([2], "float32")
    p.set_value(np.array([1.0, 2.0], "float32"))
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [2], "float32")
        y = x * p
    var = main.global_block().var(p.name)
    assert var.persistable and var.is_parameter and not var.stop_gradient
    assert main.all_parameters() == [var]
    out = static.Executor().run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])
    np.testing.assert_allclose(out[0], [1.0, 2.0])


def test_program_api_clone_blocks_vars():
    main, _, _ = _build(lambda: paddle.nn.functional.relu(static.data("x", [2], "float32"))
                        if hasattr(paddle, "nn") else None)
    assert main.num_blocks == 1 and main.block(0) is main.global_block()
    names = [v.name for v in main.list_vars()]
    assert names[0] == "x"
    test_prog = main.clone(for_test=True)
    assert str(test_prog) == str(main)
    assert test_prog.global_block().ops[0] is not main.global_block().ops[0]
    test_prog.global_block().ops[0].attrs["extra"] = 1
    assert "extra" not in main.global_block().ops[0].attrs


def test_verify_catches_bad_programs():
    main, _, out = _build(lambda: paddle.exp(static.data("x", [2], "float32")))
    main.verify()
    op = main.global_block().ops[0]
    op.inputs["x"] = ["nowhere"]
    main.global_block().create_var("nowhere", [2], "float32")
    with pytest.raises(VerifyError, match="used before it is defined"):
        main.verify()
    op.inputs["x"] = ["x"]
    out._shape = [3]
    with pytest.raises(VerifyError, match="infer gives"):
        main.verify()


def test_name_scope_and_program_guard_type_errors():
    with static.name_scope("block1"):
        pass
    with pytest.raises(TypeError, match="main_program must be a Program"):
        with static.program_guard("nope"):
            pass


def test_each_operator_records_the_user_line_that_built_it():
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        y = paddle.exp(x)  # the line recorded for exp
    line = sys._getframe().f_lineno - 1
    (exp_op,) = [op for op in main.global_block().ops if op.type == "exp"]
    assert exp_op.loc == (__file__, line)
    again = static.Program.parse_from_string(static.serialize_program([x], [y], program=main))
    assert [op.loc for op in again.global_block().ops if op.type == "exp"] == [(__file__, line)]
    assert main.clone().global_block().ops[-1].loc == exp_op.loc


def test_a_kernel_error_at_run_time_names_the_user_line_that_built_the_op():
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [-1, 3], "float32")
        y = paddle.reshape(x, [4, -1])  # fails at run time for 3 rows
    line = sys._getframe().f_lineno - 1
    with pytest.raises(ValueError) as info:
        static.Executor().run(main, feed={"x": np.ones((3, 3), "float32")}, fetch_list=[y])
    text = str(info.value)
    assert "reshape" in text and f"{__file__}, line {line}" in text
    assert "paddle.reshape(x, [4, -1])" in text
