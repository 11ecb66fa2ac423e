"""static.device_guard records `op_device` on each Operator (Paddle's attr): nesting, None,
gradient ops, printing, clone, JSON, pruning; the Executor runs such programs unchanged."""
import threading

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.static.io import program_from_dict, program_to_dict
from sampan.static.passes.dce import dead_code_elimination
from tests.static_util import static_guard


def _build(guarded: bool):
    """y = relu(x @ w + 1) on 'gpu:0', loss = mean(y * 2) on 'cpu'; SGD-trained."""
    main, startup = static.Program(), static.Program()
    main.random_seed = startup.random_seed = 7
    dev = static.device_guard if guarded else (lambda d: static.device_guard(None))
    with static_guard(main, startup):
        x = static.data("x", [-1, 3], "float32")
        with dev("gpu:0"):
            w = static.create_parameter([3, 2], "float32", name="w")
            y = paddle.nn.functional.relu(paddle.matmul(x, w) + 1.0)
        with dev("cpu"):
            loss = paddle.mean(y * 2.0)
        paddle.optimizer.SGD(0.1).minimize(loss)
    return main, startup, y, loss


def test_ops_record_the_innermost_device_and_none_resets():
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        a = x + 1.0
        with static.device_guard("gpu"):
            b = a * 2.0
            with static.device_guard("cpu"):
                c = b - 1.0
            with static.device_guard(None):
                d = c * 3.0
            with static.device_guard("gpu:1"):
                e = paddle.exp(d)
            f = paddle.tanh(e)
        g = f + 1.0
    devices = {op.output_arg_names[0]: op.attr("op_device") for op in main.global_block().ops}
    assert [devices[v.name] for v in (a, b, c, d, e, f, g)] == \
        ["", "gpu", "cpu", "", "gpu:1", "gpu", ""]
    op = main.global_block().ops[1]
    assert op.has_attr("op_device") and "op_device" not in op.attrs
    op._set_attr("op_device", "xpu")
    assert op.attr("op_device") == "xpu"
    with pytest.raises(TypeError, match="op_device must be a str"):
        op._set_attr("op_device", 0)


def test_gradient_ops_take_their_forward_ops_device():
    main, _, y, loss = _build(True)
    ops = main.global_block().ops
    by_out = {n: op for op in ops for n in op.output_arg_names}
    assert by_out["w@GRAD"].attr("op_device") == "gpu:0"   # grad of the matmul
    assert by_out[loss.name + "@GRAD"].attr("op_device") == "cpu"   # the seed: loss's device
    assert by_out[y.name + "@GRAD"].attr("op_device") == "cpu"      # grad of y * 2


def test_printed_cloned_serialized_and_pruned():
    main, _, y, loss = _build(True)
    text = str(main)
    assert 'op_device="gpu:0"' in text and 'op_device="cpu"' in text
    unguarded = str(_build(False)[0])
    assert "op_device" not in unguarded

    def devices(program):
        return [op.attr("op_device") for op in program.global_block().ops]

    assert devices(main.clone()) == devices(main)
    assert devices(main.clone(for_test=True)) == devices(main)
    assert devices(program_from_dict(program_to_dict(main))) == devices(main)
    pruned = dead_code_elimination(main, keep=[y.name], side_effects=False)
    assert devices(pruned) == ["gpu:0"] * 3


def test_executor_runs_device_programs_unchanged():
    xv = np.random.default_rng(0).random((4, 3)).astype("float32")
    results = []
    for guarded in (True, False):
        main, startup, _, loss = _build(guarded)
        exe = static.Executor(paddle.CPUPlace())
        scope = static.Scope()
        with static.scope_guard(scope):
            exe.run(startup)
            losses = [exe.run(main, feed={"x": xv}, fetch_list=[loss])[0] for _ in range(3)]
        results.append(np.array(losses))
    np.testing.assert_array_equal(results[0], results[1])
    assert results[0][2] < results[0][0]


def test_device_stack_is_per_thread():
    seen = []
    main = static.Program()

    def other():
        seen.append(paddle.static.program.current_device())

    with static_guard(main, static.Program()):
        with static.device_guard("gpu"):
            t = threading.Thread(target=other)
            t.start()
            t.join()
            seen.append(paddle.static.program.current_device())
    assert seen == ["", "gpu"]
