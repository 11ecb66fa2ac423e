"""Executor.split_program_by_device against Paddle 3.3.1 (legacy static IR,
FLAGS_enable_pir_api=0) on the same programs. Variable names differ between the two (Paddle:
`square_0.tmp_0`, sampan: `tmp_0`), so Paddle's answers are recorded with each name replaced
by the position of the op that made it; indices, devices and printed warnings are Paddle's."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static
from tests.static_util import static_guard

_CHAIN = [paddle.square, paddle.nn.functional.relu, lambda t: t * 2.0, lambda t: t + 1.0,
          paddle.square, paddle.nn.functional.relu]

# devices of the chained ops -> Paddle's (start, end, send, recv as op positions, pruned op
# count, op_device of every op afterwards, printed line or None)
PADDLE_CHAINS = [
    (["cpu", "gpu", "gpu", "cpu"],
     (1, 2, [2], [0], 2, ["cpu", "gpu", "gpu", "cpu"], None)),
    ([None, "gpu", "cpu", "gpu", "cpu"],
     (1, 3, [3], [0], 3, ["", "gpu", "gpu", "gpu", "cpu"], None)),
    (["cpu", "gpu", "cpu", "xpu", "cpu"],
     (3, 3, [3], [2], 1, ["cpu", "gpu", "cpu", "xpu", "cpu"],
      "only one region of program can be heter")),
    (["gpu", "cpu", "gpu"], (0, 2, [], [], 0, ["gpu", "gpu", "gpu"], None)),
    (["cpu", "gpu:0", "cpu", "gpu:0", "cpu", "gpu:0"],
     (1, 5, [], [0], 0, ["cpu"] + ["gpu:0"] * 5, None)),
]


def _chain(devices):
    main = static.Program()
    names = []
    with static_guard(main, static.Program()):
        h = static.data("x", [2, 3], "float32")
        for device, fn in zip(devices, _CHAIN):
            with static.device_guard(device):
                h = fn(h)
            names.append(h.name)
    return main, names


@pytest.mark.parametrize("devices,expected", PADDLE_CHAINS)
def test_split_matches_paddle_on_op_chains(devices, expected, capsys):
    main, names = _chain(devices)
    start, end, send, recv, n_pruned, after, printed = expected
    got = static.Executor().split_program_by_device(main)
    assert got[:4] == [start, end, [names[i] for i in send], [names[i] for i in recv]]
    assert len(got[4].global_block().ops) == n_pruned
    assert [op.attr("op_device") for op in main.global_block().ops] == after
    out = capsys.readouterr().out
    assert (printed in out) if printed else out == ""


def test_no_heter_section_warns_and_returns_none(capsys):
    main, _ = _chain(["cpu", None])
    assert static.Executor().split_program_by_device(main) is None
    assert capsys.readouterr().out == "warning: non heter program\n"
    assert static.Executor().split_program_by_device(static.Program()) is None
    with pytest.raises(TypeError, match="split_program_by_device: program must be a Program"):
        static.Executor().split_program_by_device("main")


def build_wide_deep(make_opt=None, seed: int = 3):
    """Paddle's heter-PS shape: embedding + pooling on cpu, the dense tower on gpu, the loss
    on cpu; trained with make_opt() (default SGD(0.1)). Returns (main, startup, vars)."""
    main, startup = static.Program(), static.Program()
    main.random_seed = startup.random_seed = seed
    with static_guard(main, startup):
        ids = static.data("ids", [-1, 3], "int64")
        dense = static.data("dense", [-1, 4], "float32")
        label = static.data("label", [-1, 1], "float32")
        with static.device_guard("cpu"):
            emb = static.nn.embedding(ids, size=[10, 4],
                                      param_attr=paddle.ParamAttr(name="emb"))
            pooled = paddle.mean(emb, axis=1)
        with static.device_guard("gpu"):
            h = paddle.concat([pooled, dense], axis=1)
            h = static.nn.fc(h, 8, activation="relu", weight_attr=paddle.ParamAttr(
                name="fc0.w"), bias_attr=paddle.ParamAttr(name="fc0.b"))
            out = static.nn.fc(h, 1, weight_attr=paddle.ParamAttr(name="fc1.w"),
                               bias_attr=paddle.ParamAttr(name="fc1.b"))
        with static.device_guard("cpu"):
            loss = paddle.mean(paddle.square(out - label))
        (make_opt or (lambda: paddle.optimizer.SGD(0.1)))().minimize(loss)
    return main, startup, {"pooled": pooled, "loss": loss, "out": out}


def wide_deep_feeds(n: int, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    return [{"ids": rng.integers(0, 10, (5, 3)).astype("int64"),
             "dense": rng.random((5, 4)).astype("float32"),
             "label": rng.random((5, 1)).astype("float32")} for _ in range(n)]


# Paddle 3.3.1 on the same program: [2, 20, ['mean_0.tmp_0@GRAD'],
# ['dense', 'label', 'mean_0.tmp_0'], <program>] with mean_0.tmp_0 the pooled embedding; the
# cpu loss ops and their gradient ops (between the gpu forward and gpu backward) became
# 'gpu'; ops 0-1 and the last backward ops stay 'cpu'; the optimizer ops are not looked at.
PADDLE_WIDE_DEEP = {"start": 2, "send": ["{pooled}@GRAD"], "recv": ["dense", "label",
                                                                     "{pooled}"]}


def test_split_wide_and_deep_like_paddle():
    main, startup, v = build_wide_deep()
    ops = main.global_block().ops
    first_opt = next(i for i, op in enumerate(ops) if op.type == "sgd")
    start, end, send, recv, pruned = static.Executor().split_program_by_device(main)
    pooled = v["pooled"].name
    assert start == PADDLE_WIDE_DEEP["start"]
    assert send == [s.format(pooled=pooled) for s in PADDLE_WIDE_DEEP["send"]]
    assert recv == [s.format(pooled=pooled) for s in PADDLE_WIDE_DEEP["recv"]]
    # end: the last op of the gpu backward (Paddle's concat_grad; here the split of concat)
    assert ops[end].type == "split" and f"{pooled}@GRAD" in ops[end].output_arg_names
    devices = [op.attr("op_device") for op in ops[:first_opt]]
    assert devices == ["cpu"] * start + ["gpu"] * (end - start + 1) + \
        ["cpu"] * (first_opt - end - 1)
    # the pruned program computes send_list from recv_list alone, as the full program does
    assert pruned.global_block().ops[0].type == "concat"
    assert not any(op.type in ("embedding", "sgd") for op in pruned.global_block().ops)
    feed = wide_deep_feeds(1)[0]
    exe, scope_a, scope_b = static.Executor(), static.Scope(), static.Scope()
    for scope in (scope_a, scope_b):   # one initialisation (a fixed seed) in each
        exe.run(startup, scope=scope)
    full = exe.run(main, feed=feed, fetch_list=[pooled, send[0]], scope=scope_a)
    part = exe.run(pruned, feed={"dense": feed["dense"], "label": feed["label"],
                                 pooled: full[0]}, fetch_list=[send[0]], scope=scope_b)
    np.testing.assert_array_equal(part[0], full[1])
