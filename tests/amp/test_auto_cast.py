"""auto_cast: per-op cast lists, custom lists, levels, Paddle 3.3.1's CPU float16 behaviour,
composition with static Program building and to_static, operator stats, check_numerics."""
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan.amp import debugging
from tests.static_util import static_guard

# Paddle 3.3.1 on CPU (recorded from /work/pdenv): auto_cast(dtype='float16') keeps float32 with
# this warning; is_float16_supported() is False, is_bfloat16_supported() True.
PADDLE_CPU_WARNING = ("amp_guard can only be enabled on CUDAPlace, XPUPlace, and CustomPlace, "
                      "current place is Place(cpu), so it makes no effect.")


def _xw(seed=0):
    rng = np.random.default_rng(seed)
    x = paddle.to_tensor(rng.standard_normal((2, 3)).astype("float32"))
    w = paddle.to_tensor(rng.standard_normal((3, 4)).astype("float32"), stop_gradient=False)
    return x, w


def test_support_flags_match_paddle_cpu():
    assert paddle.amp.is_float16_supported() is False
    assert paddle.amp.is_bfloat16_supported() is True


def test_float16_on_cpu_keeps_float32_with_paddle_warning():
    x, w = _xw()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with paddle.amp.auto_cast(dtype="float16"):
            y = paddle.matmul(x, w)
    assert y.dtype == paddle.float32
    assert [str(r.message) for r in rec] == [PADDLE_CPU_WARNING]


def test_bfloat16_o1_white_black_grey():
    x, w = _xw()
    with paddle.amp.auto_cast(dtype="bfloat16"):
        y = paddle.matmul(x, w)           # white: low
        e = paddle.exp(y)                 # black: float32
        r = paddle.nn.functional.relu(y)  # grey, all inputs low: stays low
        s = y + paddle.ones([4])          # grey with a float32 input: promotes
    assert (y.dtype, e.dtype, r.dtype, s.dtype) == (
        paddle.bfloat16, paddle.float32, paddle.bfloat16, paddle.float32)
    # really computed in bfloat16: the product of the bfloat16-rounded inputs, rounded
    xb = x.numpy().astype(paddle.bfloat16.np).astype(np.float32)
    wb = w.numpy().astype(paddle.bfloat16.np).astype(np.float32)
    ref = (xb @ wb).astype(paddle.bfloat16.np).astype(np.float32)
    np.testing.assert_array_equal(y.numpy().astype(np.float32), ref)
    assert not np.array_equal(ref, x.numpy() @ w.numpy())


def test_gradients_flow_back_in_float32():
    x, w = _xw()
    with paddle.amp.auto_cast(dtype="bfloat16"):
        loss = paddle.matmul(x, w).mean()
    loss.backward()
    assert w.grad.dtype == paddle.float32
    np.testing.assert_allclose(w.grad.numpy(), np.tile(x.numpy().sum(0)[:, None] / 8, (1, 4)),
                               rtol=1e-2)


def test_custom_lists_move_ops():
    x, w = _xw()
    with paddle.amp.auto_cast(dtype="bfloat16", custom_black_list={"matmul"},
                              custom_white_list={"exp"}):
        y = paddle.matmul(x, w)
        e = paddle.exp(y)
    assert y.dtype == paddle.float32 and e.dtype == paddle.bfloat16
    with pytest.raises(ValueError, match="both contain"):
        with paddle.amp.auto_cast(custom_white_list=["exp"], custom_black_list=["exp"]):
            pass


def test_bad_arguments_name_the_api():
    with pytest.raises(ValueError, match="auto_cast: level"):
        with paddle.amp.auto_cast(level="O3"):
            pass
    with pytest.raises(ValueError, match="auto_cast: dtype"):
        with paddle.amp.auto_cast(dtype="int8"):
            pass


def test_disabled_and_o0_do_nothing():
    x, w = _xw()
    for kwargs in ({"enable": False}, {"level": "O0"}):
        with paddle.amp.auto_cast(dtype="bfloat16", **kwargs):
            assert paddle.matmul(x, w).dtype == paddle.float32


def test_o2_grey_ops_run_low_without_promote():
    x, _ = _xw()
    with paddle.amp.auto_cast(level="O2", dtype="bfloat16", use_promote=False):
        r = paddle.nn.functional.relu(x)
        e = paddle.exp(x)  # Paddle's O2 black list holds only the extra ops
    assert r.dtype == paddle.bfloat16 and e.dtype == paddle.bfloat16
    with paddle.amp.auto_cast(level="O2", dtype="bfloat16"):
        emb = paddle.nn.functional.embedding(paddle.to_tensor([0, 1]),
                                             paddle.ones([3, 2]).astype("bfloat16"))
    assert emb.dtype == paddle.float32


def test_static_program_building_records_casts():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        w = paddle.static.data("w", [3, 4], "float32")
        with paddle.amp.auto_cast(dtype="bfloat16"):
            y = paddle.matmul(x, w)
            z = paddle.exp(y)
    types = [op.type for op in main.global_block().ops]
    assert types == ["cast", "cast", "matmul", "cast", "exp"]
    assert y.dtype == paddle.bfloat16 and z.dtype == paddle.float32
    xv = np.ones((2, 3), "float32")
    wv = np.full((3, 4), 0.5, "float32")
    exe = paddle.static.Executor()
    out, = exe.run(main, feed={"x": xv, "w": wv}, fetch_list=[z])
    np.testing.assert_allclose(out, np.exp(np.full((2, 4), 1.5)), rtol=1e-6)


def test_to_static_records_casts():
    @paddle.jit.to_static
    def f(x, w):
        with paddle.amp.auto_cast(dtype="bfloat16"):
            return paddle.exp(paddle.matmul(x, w))

    x, w = _xw()
    out = f(x, w)
    program = f.concrete_program.main_program
    types = [op.type for op in program.global_block().ops]
    assert types.count("cast") == 3 and "matmul" in types
    with paddle.amp.auto_cast(dtype="bfloat16"):
        ref = paddle.exp(paddle.matmul(x, w))
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6)


def test_operator_stats_count_by_dtype(capsys):
    x, w = _xw()
    debugging.enable_operator_stats_collection()
    with paddle.amp.auto_cast(dtype="bfloat16"):
        paddle.exp(paddle.matmul(x, w))
    stats = debugging.operator_stats()
    debugging.disable_operator_stats_collection()
    assert stats["matmul"] == [0, 1, 0, 0]
    assert stats["exp"] == [0, 0, 1, 0]
    assert stats["cast"] == [0, 2, 1, 0]
    printed = capsys.readouterr().out
    assert "BF16 Calls" in printed and "op count: 3" in printed
    paddle.matmul(x, w)
    assert debugging.operator_stats()["matmul"] == [0, 1, 0, 0]  # no longer counting


def test_check_numerics_values_as_paddle():
    # Paddle 3.3.1: stats [0 0 1], values [3, -2, 0.5]; with nan/inf: [1 1 1], [inf, 0, nan]
    mode = debugging.DebugMode.CHECK_NAN_INF
    stats, values = debugging.check_numerics(paddle.to_tensor([1.0, 0.0, 3.0, -2.0]),
                                             "op", "x", mode)
    assert stats.dtype == paddle.int64 and values.dtype == paddle.float32
    assert stats.numpy().tolist() == [0, 0, 1]
    assert values.numpy().tolist() == [3.0, -2.0, 0.5]
    bad = paddle.to_tensor([1.0, float("nan"), float("inf"), 0.0])
    stats, values = debugging.check_numerics(bad, "op", "y", mode)
    assert stats.numpy().tolist() == [1, 1, 1]
    assert values.numpy()[0] == np.inf and values.numpy()[1] == 0 and np.isnan(values.numpy()[2])
    with pytest.raises(RuntimeError, match="num_nan=1, num_inf=1"):
        debugging.check_numerics(bad, "op", "y")


def test_lists_follow_opdef_amp_and_paddle_shape():
    white, black = paddle.amp.white_list(), paddle.amp.black_list()
    assert set(white) == {"float16", "bfloat16"} and set(white["bfloat16"]) == {"OD", "O1", "O2"}
    assert {"matmul", "conv2d", "linear", "einsum"} <= white["bfloat16"]["O1"]
    assert {"exp", "log", "softmax", "mean", "sum", "layer_norm",
            "softmax_with_cross_entropy", "embedding"} <= black["bfloat16"]["O1"]
    assert black["bfloat16"]["O2"] == {"embedding", "scatter"}
    assert black["float16"]["OD"] == set()
    x, w = _xw()
    with paddle.amp.auto_cast(level="OD", dtype="bfloat16"):
        y = paddle.matmul(x, w)
        r = paddle.nn.functional.relu(y)  # OD: everything but the white list in float32
    assert y.dtype == paddle.bfloat16 and r.dtype == paddle.float32
