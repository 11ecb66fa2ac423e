"""paddle.base / paddle.framework / paddle.pir_utils: aliases of what sampan has (the same
objects), the dygraph guard's mode round trip, and the legacy dtype enums."""
import importlib

import numpy as np
import pytest

import sampan as paddle
from sampan import base


def test_base_names_are_the_existing_objects():
    static = paddle.static
    assert base.Program is static.Program and base.Executor is static.Executor
    assert base.program_guard is static.program_guard
    assert base.default_main_program is static.default_main_program
    assert base.default_startup_program is static.default_startup_program
    assert base.data is static.data and base.ParamAttr is paddle.ParamAttr
    assert base.backward.append_backward is static.append_backward
    # Paddle's base.framework.Variable is a mode-dependent isinstance target
    assert isinstance(paddle.ones([1]), base.framework.Variable)
    paddle.enable_static()
    try:
        with static.program_guard(static.Program()):
            v = static.data("v", [1], "float32")
        assert isinstance(v, base.framework.Variable)
        assert not isinstance(paddle.Tensor(np.ones(1, "float32")), base.framework.Variable)
    finally:
        paddle.disable_static()
    assert base.executor.Executor is static.Executor
    assert base.io.DataLoader is paddle.io.DataLoader
    assert base.unique_name is paddle.utils.unique_name
    assert base.CPUPlace is paddle.CPUPlace and base.CUDAPinnedPlace is paddle.CUDAPinnedPlace
    assert base.dygraph.no_grad is paddle.no_grad and base.dygraph.grad is paddle.grad


@pytest.mark.parametrize("path, target", [
    ("sampan.base.unique_name", "sampan.utils.unique_name"),
    ("sampan.base.param_attr", "sampan.framework.param_attr"),
    ("sampan.framework.core", "sampan.framework.core"),
])
def test_module_paths_are_the_same_modules(path, target):
    assert importlib.import_module(path) is importlib.import_module(target)


def test_base_core_extends_framework_core():
    fw_core = paddle.framework.core
    assert base.core.Scope is paddle.static.Scope
    assert base.core.VarDesc is fw_core.VarDesc and base.core.globals is fw_core.globals
    assert importlib.import_module("sampan.base.core") is base.core


def test_framework_constants_and_decorators():
    fw = base.framework
    assert (fw.GRAD_VAR_SUFFIX, fw.ZERO_VAR_SUFFIX, fw.TEMP_VAR_NAME) == \
        ("@GRAD", "@ZERO", "@TEMP@")
    assert base.backward._append_grad_suffix_("fc_0.w_0") == "fc_0.w_0@GRAD"
    static_only = fw.dygraph_not_support(lambda: "built")
    dynamic_only = fw.dygraph_only(lambda: "ran")
    assert dynamic_only() == "ran"
    with pytest.raises(AssertionError, match="don't support <lambda> in dynamic graph mode"):
        static_only()
    paddle.enable_static()
    try:
        assert static_only() == "built"
        with pytest.raises(AssertionError, match=r"only support '<lambda>\(\)' in dynamic"):
            dynamic_only()
    finally:
        paddle.disable_static()


def test_core_dtype_enums_are_paddle_dtypes():
    core = base.core
    assert core.VarDesc.VarType.FP32 is paddle.float32
    assert core.VarDesc.VarType.INT64 is paddle.int64
    assert core.DataType.FLOAT16 is paddle.float16
    assert paddle.to_tensor([1.0]).dtype == core.VarDesc.VarType.FP32
    assert core.is_compiled_with_cuda() is False and core.is_compiled_with_rocm() is False
    assert core.grad_var_suffix() == "@GRAD"
    assert isinstance(core.globals()["FLAGS_check_nan_inf"], bool)


def test_framework_exports():
    fw = paddle.framework
    assert fw.ParamAttr is paddle.ParamAttr and fw.core.VarDesc is base.core.VarDesc
    assert fw.get_default_dtype() == "float32"
    assert fw.in_pir_mode() is False and fw.in_dynamic_mode() is True
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        fw.nonexistent


def test_dygraph_guard_restores_static_mode():
    paddle.enable_static()
    try:
        assert not base.in_dygraph_mode()
        with base.dygraph.guard(base.CPUPlace()):
            assert base.in_dygraph_mode()
            x = base.dygraph.to_variable(np.array([1.0, 2.0], "float32"))
            np.testing.assert_array_equal((x * 2).numpy(), [2.0, 4.0])
        assert not paddle.in_dynamic_mode()
    finally:
        paddle.disable_static()
    assert paddle.in_dynamic_mode()


def test_switch_to_static_graph_and_ir_guard():
    seen = []
    base.dygraph.base.switch_to_static_graph(lambda: seen.append(paddle.in_dynamic_mode()))()
    with paddle.pir_utils.IrGuard():
        seen.append(paddle.in_dynamic_mode())
    with paddle.pir_utils.DygraphPirGuard():
        seen.append(paddle.in_dynamic_mode())
    assert seen == [False, False, True] and paddle.in_dynamic_mode()


def test_enable_disable_dygraph():
    base.disable_dygraph()
    try:
        assert not paddle.in_dynamic_mode()
    finally:
        base.enable_dygraph()
    assert paddle.in_dynamic_mode()


def test_to_variable_errors_and_dtype():
    x = base.dygraph.to_variable([1, 2], dtype="float64")
    assert x.dtype == paddle.float64 and x.stop_gradient
    t = paddle.to_tensor([1.0])
    assert base.dygraph.to_variable(t) is t
    with pytest.raises(TypeError, match=r"to_variable: value must be .* got dict"):
        base.dygraph.to_variable({"a": 1})


def test_static_program_through_base():
    paddle.enable_static()
    try:
        main, startup = base.Program(), base.Program()
        with base.program_guard(main, startup):
            x = base.data("x", [2, 3], "float32")
            y = paddle.sum(x * 3.0)
        out, = base.Executor(base.CPUPlace()).run(
            main, feed={"x": np.ones([2, 3], "float32")}, fetch_list=[y])
    finally:
        paddle.disable_static()
    assert float(out) == 18.0


def test_wrapped_decorator_keeps_signature():
    import inspect

    @base.wrapped_decorator.signature_safe_contextmanager
    def ctx(a, b=2):
        yield a + b
    assert list(inspect.signature(ctx).parameters) == ["a", "b"]
    with ctx(1) as v:
        assert v == 3


def test_nn_module_attributes_paddle_code_uses():
    assert paddle.nn.loss is paddle.nn.layer.loss
    assert paddle.nn.loss.CrossEntropyLoss is paddle.nn.CrossEntropyLoss
    for name in ("Linear", "AdaptiveAvgPool1D", "MaxPool3D", "LSTM", "LayerList", "Layer",
                 "TransformerEncoderLayer", "BatchNorm2D", "PixelShuffle"):
        assert getattr(paddle.nn.layer, name) is getattr(paddle.nn, name)
    clip_module = importlib.import_module("sampan.nn.utils.clip_grad_norm_")
    assert clip_module.clip_grad_norm_ is paddle.nn.utils.clip_grad_norm_
    assert callable(paddle.nn.utils.clip_grad_norm_)
