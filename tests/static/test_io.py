"""Serialization, inference models, the DCE pass (golden before/after text), static.nn.fc."""
from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.static.io import program_from_dict, program_to_dict
from sampan.static.passes import PASSES, apply_pass
from sampan.utils import unique_name
from tests.static_util import static_guard


def _train_program():
    main, startup = static.Program(), static.Program()
    with unique_name.guard(), static_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        y = static.data("y", [None, 1], "float32")
        h = static.nn.fc(x, 8, activation="tanh")
        pred = static.nn.fc(h, 1)
        # NOTE: sum / n, not mean: mean's vjp miscounts with a -1 batch dim (lead request 3)
        loss = paddle.sum((pred - y) ** 2) / 32.0
        for p, g in static.append_backward(loss):
            p.subtract_(g * 0.05)
    return main, startup, x, y, pred, loss


def test_fc_shapes_and_parameters():
    main, startup, x, y, pred, loss = _train_program()
    assert pred.shape == [-1, 1]
    names = sorted(p.name for p in main.all_parameters())
    assert names == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
    assert len(startup.global_block().ops) == 4
    with pytest.raises(ValueError, match="size must be a positive int"):
        with static_guard(static.Program()):
            static.nn.fc(static.data("z", [2, 3], "float32"), 0)


def test_train_save_load_inference_model(tmp_path):
    main, startup, x, y, pred, loss = _train_program()
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((32, 4)).astype("float32")
    yv = (xv.sum(1, keepdims=True) * 0.5).astype("float32")
    exe = static.Executor()
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        first = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])[0]
        for _ in range(200):
            last = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])[0]
        infer = static.normalize_program(main, [x], [pred])
        want = exe.run(infer, feed={"x": xv}, fetch_list=[pred])[0]
        prefix = str(tmp_path / "model" / "mlp")
        static.save_inference_model(prefix, [x], [pred], exe, program=main)
    assert last < first / 4
    with zipfile.ZipFile(prefix + ".pdiparams") as z:  # npz: plain arrays, no pickle
        assert all(n.endswith(".npy") for n in z.namelist())
    text = open(prefix + ".pdmodel").read()
    assert json.loads(text)["version"] == 1
    with static.scope_guard(static.Scope()):
        program, feeds, fetches = static.load_inference_model(prefix, exe)
        assert feeds == ["x"] and [f.name for f in fetches] == [pred.name]
        types = [op.type for op in program.global_block().ops]
        assert "full_like" not in types and "assign" not in types  # no backward, no update
        (got,) = exe.run(program, feed={"x": xv}, fetch_list=fetches)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_json_round_trip_is_exact():
    main, startup, x, y, pred, loss = _train_program()
    d = program_to_dict(main)
    copy = program_from_dict(json.loads(json.dumps(d)))
    assert str(copy) == str(main)
    assert program_to_dict(copy) == d
    copy.verify()
    with pytest.raises(ValueError, match="not a sampan program"):
        program_from_dict({"format": "other"})


def test_serialize_deserialize_program_and_persistables():
    main, startup, x, y, pred, loss = _train_program()
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        data = static.serialize_program([x], [pred], program=main)
        params = static.serialize_persistables([x], [pred], exe, program=main)
        xv = np.ones((2, 4), "float32")
        want = exe.run(main, feed={"x": xv, "y": np.zeros((2, 1), "float32")},
                       fetch_list=[pred])[0]
    program = static.deserialize_program(data)
    with static.scope_guard(static.Scope()):
        static.deserialize_persistables(program, params, exe)
        (got,) = exe.run(program, feed={"x": xv}, fetch_list=[pred.name])
    np.testing.assert_allclose(got, want)


def test_normalize_program_needs_the_feeds():
    main, startup, x, y, pred, loss = _train_program()
    with pytest.raises(ValueError, match="data variable 'x'"):
        static.normalize_program(main, [], [pred])


def test_dce_golden_before_after():
    main = static.Program()
    with unique_name.guard(), static_guard(main):
        x = static.data("x", [2], "float32")
        a = paddle.exp(x)
        paddle.sin(a)            # dead
        b = paddle.tanh(x)
        paddle.cos(b)            # dead
        out = a + b
    assert "dead_code_elimination" in PASSES
    before = str(main)
    after = apply_pass(main, "dead_code_elimination", keep=[out])
    assert before == (
        "block 0:\n"
        "  data %x: float32[2]\n"
        "  %tmp_0 = exp(x=%x)  # float32[2]\n"
        "  %tmp_1 = sin(x=%tmp_0)  # float32[2]\n"
        "  %tmp_2 = tanh(x=%x)  # float32[2]\n"
        "  %tmp_3 = cos(x=%tmp_2)  # float32[2]\n"
        "  %tmp_4 = add(x=%tmp_0, y=%tmp_2)  # float32[2]")
    assert str(after) == (
        "block 0:\n"
        "  data %x: float32[2]\n"
        "  %tmp_0 = exp(x=%x)  # float32[2]\n"
        "  %tmp_2 = tanh(x=%x)  # float32[2]\n"
        "  %tmp_4 = add(x=%tmp_0, y=%tmp_2)  # float32[2]")
    assert str(main) == before  # the pass leaves its input alone
    after.verify()
    xv = np.array([0.5, -1.0], "float32")
    exe = static.Executor()
    np.testing.assert_array_equal(exe.run(main, feed={"x": xv}, fetch_list=[out])[0],
                                  exe.run(after, feed={"x": xv}, fetch_list=[out.name])[0])


def test_dce_keeps_side_effects():
    main, startup, x, y, pred, loss = _train_program()
    kept = apply_pass(main, "dead_code_elimination", keep=[])
    types = [op.type for op in kept.global_block().ops]
    assert types.count("assign") == 4  # the four parameter updates survive
    # only the unused gradient of y (neg) was dead
    assert len(types) == len(main.global_block().ops) - 1 and "neg" not in types
    with pytest.raises(KeyError, match="no pass named"):
        apply_pass(main, "nope")


def test_multi_output_op_keeps_its_output_order_through_the_file(tmp_path):
    # batch_norm's outputs are positional (out, mean, variance, ...); sorting the slot
    # names in the JSON would scramble them
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        x = static.data("x", [4, 3, 2, 2], "float32")
        bn = paddle.nn.BatchNorm2D(3)
        bn.eval()
        y = bn(x) * 2.0
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": np.random.default_rng(0).standard_normal((4, 3, 2, 2)).astype("float32")}
    want = exe.run(main, feed=feed, fetch_list=[y])[0]
    paddle.enable_static()
    try:
        static.save_inference_model(str(tmp_path / "bn"), [x], [y], exe, program=main)
        prog, feeds, fetches = static.load_inference_model(str(tmp_path / "bn"), exe)
        got = exe.run(prog, feed={feeds[0]: feed["x"]}, fetch_list=fetches)[0]
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_load_inference_model_reads_paddles_own_files():
    import pathlib
    fixtures = pathlib.Path(__file__).parents[1] / "inference" / "fixtures"
    x = np.load(fixtures / "mlp.input.npy")
    want = np.load(fixtures / "legacy" / "mlp.output0.npy")
    paddle.enable_static()
    try:
        exe = static.Executor()
        params = str(fixtures / "legacy" / "mlp.pdiparams")  # the PIR copy shares it
        for prefix in (fixtures / "legacy" / "mlp", fixtures / "pir" / "mlp"):
            prog, feeds, fetches = static.load_inference_model(str(prefix), exe,
                                                               params_filename=params)
            got = exe.run(prog, feed={feeds[0]: x}, fetch_list=fetches)[0]
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    finally:
        paddle.disable_static()
