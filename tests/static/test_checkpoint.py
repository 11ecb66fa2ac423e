"""static.save / static.load / load_program_state / set_program_state: training resumes
exactly from a checkpoint (parameters and optimizer state), Paddle's file names, errors."""
from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.utils import unique_name
from tests.static_util import static_guard

RNG = np.random.default_rng(0)
X = RNG.standard_normal((8, 4)).astype("float32")
Y = RNG.standard_normal((8, 2)).astype("float32")


def _programs():
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup), unique_name.guard():
        x = static.data("x", [None, 4], "float32")
        y = static.data("y", [None, 2], "float32")
        h = static.nn.fc(x, 6, activation="tanh")
        h = static.nn.batch_norm(h)
        out = static.nn.fc(h, 2)
        loss = paddle.mean((out - y) ** 2)
        paddle.optimizer.Adam(0.05, parameters=main.all_parameters()).minimize(loss)
    return main, startup, loss


def _train(exe, main, loss, steps):
    return [float(exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])[0])
            for _ in range(steps)]


def test_save_load_resumes_training_exactly(tmp_path):
    main, startup, loss = _programs()
    exe = static.Executor()
    path = str(tmp_path / "ckpt" / "model")
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        _train(exe, main, loss, 3)
        static.save(main, path)
        expected = _train(exe, main, loss, 3)
    for suffix in (".pdparams", ".pdopt", ".pdmodel"):
        assert os.path.exists(path + suffix)
    main2, startup2, loss2 = _programs()
    with static.scope_guard(static.Scope()):
        exe.run(startup2)
        static.load(main2, path, exe)
        got = _train(exe, main2, loss2, 3)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_files_hold_parameters_and_optimizer_state(tmp_path):
    main, startup, loss = _programs()
    exe = static.Executor()
    path = str(tmp_path / "m")
    with static.scope_guard(static.Scope()) :
        exe.run(startup)
        _train(exe, main, loss, 1)
        static.save(main, path)
    with open(path + ".pdparams", "rb") as f:
        params = pickle.load(f)  # what PaddlePaddle's static.load reads
    assert set(params) == {p.name for p in main.all_parameters()}
    assert "batch_norm_0.w_1" in params and isinstance(params["fc_0.w_0"], np.ndarray)
    state = static.load_program_state(path)
    assert any(k.startswith("fc_0.w_0_moment1") for k in state)
    assert "learning_rate_0" in state  # the optimizer's lr variable, saved as Paddle does
    only = static.load_program_state(path + ".pdparams", var_list=["fc_0.b_0"])
    assert list(only) == ["fc_0.b_0"]


def test_set_program_state_and_var_list(tmp_path):
    main, startup, loss = _programs()
    exe = static.Executor()
    path = str(tmp_path / "m")
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        _train(exe, main, loss, 2)
        static.save(main, path)
        saved_w = scope.get("fc_0.w_0").copy()
        saved_b = scope.get("fc_1.b_0").copy()
        exe.run(startup)  # re-initialise
        state = static.load_program_state(path)
        with pytest.warns(UserWarning, match="not_a_var"):
            static.set_program_state(main, dict(state, not_a_var=np.zeros(1)))
        np.testing.assert_array_equal(scope.get("fc_0.w_0"), saved_w)
        exe.run(startup)
        static.load(main, path, var_list=[main.global_block().var("fc_1.b_0")])
        np.testing.assert_array_equal(scope.get("fc_1.b_0"), saved_b)
        assert not np.array_equal(scope.get("fc_0.w_0"), saved_w)


def test_layer_parameters_are_saved_and_restored(tmp_path):
    model = paddle.nn.Linear(3, 2)
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [None, 3], "float32")
        model(x)
    path = str(tmp_path / "layer")
    static.save(main, path)
    saved = model.weight.numpy().copy()
    model.weight.set_value(np.zeros((3, 2), "float32"))
    static.load(main, path)
    np.testing.assert_array_equal(model.weight.numpy(), saved)


def test_errors(tmp_path):
    main, startup, loss = _programs()
    exe = static.Executor()
    with pytest.raises(ValueError, match="dirname/filename"):
        static.save(main, str(tmp_path) + "/")
    with pytest.raises(ValueError, match="protocol"):
        static.save(main, str(tmp_path / "m"), protocol=5)
    with pytest.raises(TypeError, match="program must be a Program"):
        static.save("main", str(tmp_path / "m"))
    with static.scope_guard(static.Scope()):
        with pytest.raises(RuntimeError, match="run the startup program"):
            static.save(main, str(tmp_path / "m"))
        exe.run(startup)
        static.save(main, str(tmp_path / "m"))
    with pytest.raises(ValueError, match="no parameter file"):
        static.load(main, str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="not in the checkpoint"):
        static.load_program_state(str(tmp_path / "m"), var_list=["nope"])
    other = static.Program()
    with static_guard(other, static.Program()), unique_name.guard():
        static.nn.fc(static.data("x", [None, 5], "float32"), 2)
    with static.scope_guard(static.Scope()):
        with pytest.raises(ValueError, match="needs shape \\[5, 2\\]"):
            static.load(other, str(tmp_path / "m"))


def test_compiled_program_runs_the_strategy_passes():
    main, startup, loss = _programs()
    exe = static.Executor()
    results = []
    for flag in (None, "fuse_elewise_add_act_ops", "fuse_gemm_epilogue"):
        strategy = static.BuildStrategy()
        if flag:
            setattr(strategy, flag, True)
        compiled = static.CompiledProgram(main, build_strategy=strategy)
        with static.scope_guard(static.Scope()):
            paddle.seed(7)  # startup.random_seed set after building has no effect
            exe.run(startup)
            results.append(_train(exe, compiled, loss, 3))
        ops = [op.type for op in compiled._compiled_for([loss]).global_block().ops]
        if flag == "fuse_gemm_epilogue" and "fused_linear" in paddle.ops.opdef.REGISTRY:
            assert "fused_linear" in ops
        if flag is None:
            assert compiled._compiled_for([loss]) is main
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5)
    np.testing.assert_allclose(results[2], results[0], rtol=1e-5)
    with pytest.raises(TypeError, match="build_strategy must be a BuildStrategy"):
        static.CompiledProgram(main, build_strategy={"fuse": True})
    with pytest.raises(TypeError, match="must be a Program"):
        static.CompiledProgram(None)
