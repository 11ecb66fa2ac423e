"""paddle.metric.accuracy, paddle.static.accuracy and paddle.static.auc on static Variables
inside a Program, against values recorded from PaddlePaddle 3.3.1 (legacy IR,
FLAGS_enable_pir_api=0: its PIR static.auc returns the stat buffers instead of the batch
AUC and does not accumulate, so the 2.x behaviour is the reference)."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from tests.static_util import static_guard

PRED = np.array([[0.2, 0.1, 0.4, 0.1, 0.1], [0.2, 0.3, 0.1, 0.15, 0.25],
                 [0.5, 0.1, 0.1, 0.1, 0.2]], "float32")
LABEL = np.array([[2], [0], [4]], "int64")
# per run i (inputs PRED * (i + 1) % 1): accuracy k=1, k=2 (metric), k=2 (static), auc,
# batch auc
RECORDED = [[1 / 3, 2 / 3, 2 / 3, 0.0, 0.0], [2 / 3, 2 / 3, 2 / 3, 0.1875, 0.25]]


def _program():
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        x = static.data("x", [None, 5], "float32")
        y = static.data("y", [None, 1], "int64")
        a1 = paddle.metric.accuracy(x, y, k=1)
        a2 = paddle.metric.accuracy(input=x, label=y, k=2)
        a3 = static.accuracy(x, y, k=2)
        p = paddle.nn.functional.softmax(x[:, :2])
        auc, batch_auc, stats = static.auc(p, (y > 1).astype("int64"), num_thresholds=127,
                                           slide_steps=1)
    return main, startup, [a1, a2, a3, auc, batch_auc], stats


def test_accuracy_and_auc_in_a_program_match_paddle():
    main, startup, fetch, stats = _program()
    assert fetch[0].shape == [] and fetch[0].dtype == paddle.float32
    assert len(stats) == 4 and all(s.persistable for s in stats)
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        for i, expected in enumerate(RECORDED):
            got = exe.run(main, feed={"x": PRED * (i + 1) % 1, "y": LABEL}, fetch_list=fetch)
            np.testing.assert_allclose([float(v) for v in got], expected, rtol=1e-6)
            assert [v.dtype for v in got] == ["float32"] * 3 + ["float64"] * 2


def test_accuracy_writes_correct_and_total_variables():
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [None, 5], "float32")
        y = static.data("y", [None, 1], "int64")
        correct = static.create_global_var([1], 0, "int32", persistable=True, name="acc_c")
        total = static.create_global_var([1], 0, "int32", persistable=True, name="acc_t")
        acc = paddle.metric.accuracy(x, y, k=1, correct=correct, total=total)
    exe = static.Executor()
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(static.default_startup_program())
        scope.set("acc_c", np.zeros(1, "int32"))
        scope.set("acc_t", np.zeros(1, "int32"))
        (a,) = exe.run(main, feed={"x": PRED, "y": LABEL}, fetch_list=[acc])
    assert float(a) == pytest.approx(1 / 3)
    assert scope.get("acc_c").tolist() == [1] and scope.get("acc_t").tolist() == [3]


def test_metric_accuracy_eager_and_errors():
    # Paddle 3.3.1 docstring example: 0.5
    pred = paddle.to_tensor([[0.2, 0.1, 0.4, 0.1, 0.1], [0.2, 0.3, 0.1, 0.15, 0.25]])
    label = paddle.to_tensor([[2], [0]], dtype="int64")
    assert float(paddle.metric.accuracy(input=pred, label=label, k=1)) == 0.5
    with pytest.raises(TypeError, match="paddle.metric.accuracy: input must be a Tensor"):
        paddle.metric.accuracy(PRED, label)
    with pytest.raises(ValueError, match=r"label must be 2-D \[N, 1\], got shape \[2\]"):
        paddle.metric.accuracy(pred, paddle.to_tensor([2, 0]))
    with pytest.raises(ValueError, match="paddle.metric.accuracy: k must be a positive int"):
        paddle.metric.accuracy(pred, label, k=0)
