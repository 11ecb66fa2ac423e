"""Static minimize lives with the optimizer: the Program keeps only the graph, the learning
rate is a persistable variable the Executor sets from the optimizer before each run (values
recorded from PaddlePaddle 3.3.1, legacy IR), and `static` never imports `optimizer`."""
from __future__ import annotations

import ast
import json
import pathlib

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.static.io import program_from_dict, program_to_dict
from tests.static_util import static_guard


X = np.ones((2, 4), "float32")


def _build(lr):
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        loss = paddle.mean(static.nn.fc(x, 2))
        opt = paddle.optimizer.Adam(lr)
        opt.minimize(loss)
    return main, startup, loss, opt


def _lr_name(main) -> str:
    (name,) = [n for n in main.global_block().vars if n.startswith("learning_rate")]
    return name


def test_program_holds_no_training_state():
    fresh = set(vars(static.Program()))
    main, startup, loss, opt = _build(0.1)
    assert set(vars(main)) == fresh  # no _lr_vars, lr_scheduler, _opt_entries
    assert not any(callable(v) for v in main._bound.values())
    var = main.global_block().var(_lr_name(main))
    assert var.persistable and var.shape == [] and var.dtype == paddle.float32
    text = json.dumps(program_to_dict(main))  # the whole training program round-trips
    again = program_from_dict(json.loads(text))
    assert [op.type for op in again.global_block().ops] == \
        [op.type for op in main.global_block().ops]
    assert again.global_block().var(_lr_name(main)).persistable


def test_lr_scheduler_drives_static_training():
    # Paddle 3.3.1 (FLAGS_enable_pir_api=0), StepDecay(0.5, 1, 0.1) stepped after each run:
    # the scope's learning_rate_0 during the runs is 0.5, 0.05, 0.005
    sched = paddle.optimizer.lr.StepDecay(0.5, 1, 0.1)
    main, startup, loss, opt = _build(sched)
    scope, exe = static.Scope(), static.Executor()
    seen = []
    with static.scope_guard(scope):
        exe.run(startup)
        assert float(scope.get(_lr_name(main))) == 0.5  # initialised by the startup program
        for _ in range(3):
            exe.run(main, feed={"x": X}, fetch_list=[loss])
            seen.append(float(scope.get(_lr_name(main))))
            sched.step()
    np.testing.assert_allclose(seen, [0.5, 0.05, 0.005], rtol=1e-6)


def test_lr_reaches_a_compiled_program_and_a_float_lr_can_change():
    main, startup, loss, opt = _build(0.25)
    strategy = static.BuildStrategy()
    strategy.fuse_elewise_add_act_ops = True
    compiled = static.CompiledProgram(main, build_strategy=strategy)
    scope, exe = static.Scope(), static.Executor()
    with static.scope_guard(scope):
        exe.run(startup)
        exe.run(compiled, feed={"x": X}, fetch_list=[loss])
        assert float(scope.get(_lr_name(main))) == 0.25
        opt.set_lr(0.125)
        exe.run(compiled, feed={"x": X}, fetch_list=[loss])
        assert float(scope.get(_lr_name(main))) == 0.125


def test_second_minimize_reuses_the_lr_variable_and_state():
    main, startup, loss, opt = _build(0.1)
    with static_guard(main, startup):
        opt.minimize(loss)
    names = [n for n in main.global_block().vars if n.startswith("learning_rate")]
    assert len(names) == 1
    assert sum(n.endswith("moment1_0") for n in main.global_block().vars) == 2


def test_optimizer_given_a_layer_says_pass_parameters():
    model = paddle.nn.Linear(4, 2)
    with pytest.raises(TypeError, match=r"Adam: .*Linear.*pass model\.parameters\(\)"):
        paddle.optimizer.Adam(parameters=model)
    with pytest.raises(TypeError, match="SGD: parameters must be an iterable of Tensors"):
        paddle.optimizer.SGD(parameters=3)


def _imports(path: pathlib.Path) -> list:
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out.append(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
    return out


def test_static_never_imports_optimizer():
    root = pathlib.Path(paddle.__file__).parent / "static"
    bad = [(p.name, m) for p in root.rglob("*.py") for m in _imports(p)
           if "optimizer" in m.split(".")]
    assert bad == []
