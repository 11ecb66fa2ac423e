"""paddle.metric: Accuracy/Precision/Recall/Auc/accuracy vs hand-computed and Paddle numbers."""
import numpy as np
import pytest

import sampan as paddle

SCORES = np.array([[0.1, 0.7, 0.2, 0.0],
                   [0.5, 0.1, 0.3, 0.1],
                   [0.2, 0.2, 0.5, 0.1],
                   [0.6, 0.1, 0.1, 0.2],
                   [0.1, 0.2, 0.3, 0.4]], dtype="float32")
LABELS = np.array([[1], [2], [0], [3], [1]])  # top-1 hits: rows 0; top-2 hits: 0, 1, 2, 3


def test_accuracy_topk_compute_update_accumulate():
    m = paddle.metric.Accuracy(topk=(1, 2))
    assert m.name() == ["acc_top1", "acc_top2"]
    correct = m.compute(paddle.to_tensor(SCORES), paddle.to_tensor(LABELS))
    assert correct.shape == [5, 2] and correct.dtype == paddle.float32
    np.testing.assert_array_equal(correct.numpy(), [[1, 0], [0, 1], [0, 1], [0, 1], [0, 0]])
    assert m.update(correct) == [0.2, 0.8]
    assert m.update(correct.numpy()[:2]) == [0.5, 1.0]
    assert m.accumulate() == pytest.approx([2 / 7, 6 / 7])
    m.reset()
    assert m.accumulate() == [0.0, 0.0]


def test_accuracy_label_forms_and_name():
    m = paddle.metric.Accuracy(name="hit")
    assert m.name() == ["hit"]
    x = paddle.to_tensor(SCORES)
    flat = m.compute(x, paddle.to_tensor(LABELS[:, 0]))
    onehot = m.compute(x, paddle.to_tensor(np.eye(4, dtype="float32")[LABELS[:, 0]]))
    np.testing.assert_array_equal(flat.numpy(), onehot.numpy())
    assert flat.shape == [5, 1]
    assert m.update(flat) == pytest.approx(0.2)
    with pytest.raises(ValueError, match="topk"):
        paddle.metric.Accuracy(topk=(0,))


def test_precision_recall():
    preds = np.array([0.1, 0.6, 0.5, 0.49, 0.9])
    labels = np.array([0, 1, 1, 1, 0])
    p, r = paddle.metric.Precision(), paddle.metric.Recall()
    p.update(preds, labels)  # floor(p + .5): 0 1 1 0 1 -> tp 2, fp 1
    r.update(preds, labels)  # rint: 0 1 0 0 1 -> tp 1, fn 2
    assert p.accumulate() == pytest.approx(2 / 3) and p.name() == "precision"
    assert r.accumulate() == pytest.approx(1 / 3) and r.name() == "recall"
    p.update(paddle.to_tensor(preds[:, None]), paddle.to_tensor(labels[:, None]))
    assert (p.tp, p.fp) == (4, 2)
    p.reset()
    r.reset()
    assert p.accumulate() == 0.0 and r.accumulate() == 0.0
    with pytest.raises(ValueError, match="preds"):
        p.update([1], np.array([1]))
    with pytest.raises(ValueError, match="labels"):
        r.update(preds, [1])


def _roc_auc(score, label):
    """Probability that a positive outranks a negative (ties count 1/2)."""
    pos, neg = score[label == 1], score[label == 0]
    diff = pos[:, None] - neg[None, :]
    return ((diff > 0).sum() + 0.5 * (diff == 0).sum()) / (len(pos) * len(neg))


def test_auc_vs_rank_statistic_and_paddle():
    rng = np.random.RandomState(1)
    rng.rand(6, 4)  # same stream position as the Paddle 3.3.1 check
    score = rng.rand(20)
    label = rng.randint(0, 2, (20, 1))
    preds = np.stack([1 - score, score], axis=1)
    m = paddle.metric.Auc()
    m.update(preds, label)
    # with 4096 buckets and distinct scores, the bucketed area equals the rank statistic
    assert m.accumulate() == pytest.approx(_roc_auc(score, label[:, 0]))
    m10 = paddle.metric.Auc(curve="PR", num_thresholds=10)
    m10.update(paddle.to_tensor(preds), paddle.to_tensor(label))
    bucket = np.floor(score * 10)
    assert m10.accumulate() == pytest.approx(_roc_auc(bucket, label[:, 0]))
    m10.reset()
    assert m10.accumulate() == 0.0 and m10.name() == "auc"


def test_auc_paddle_numbers():
    rng = np.random.RandomState(1)
    rng.rand(6, 4)
    preds = rng.rand(20, 2)
    preds[:, 0] = 1 - preds[:, 1]
    label = rng.randint(0, 2, (20, 1))
    m = paddle.metric.Auc()
    m.update(preds, label)
    assert m.accumulate() == pytest.approx(0.38)  # Paddle 3.3.1
    m10 = paddle.metric.Auc(num_thresholds=10)
    m10.update(preds, label)
    assert m10.accumulate() == pytest.approx(0.355)


def test_metric_base_is_abstract():
    with pytest.raises(TypeError, match="abstract"):
        paddle.metric.Metric()

    class Half(paddle.metric.Metric):
        def reset(self):
            pass

        def update(self, *args):
            pass

        def accumulate(self):
            return 0.5

        def name(self):
            return "half"

    m = Half()
    assert m.compute(1, 2) == (1, 2)


def test_functional_accuracy():
    x = paddle.to_tensor(SCORES)
    y = paddle.to_tensor(LABELS)
    acc = paddle.metric.accuracy(x, y)
    assert acc.shape == [] and acc.dtype == paddle.float32
    assert float(acc) == pytest.approx(0.2)
    correct = paddle.zeros([1], "int32")
    total = paddle.zeros([1], "int32")
    acc2 = paddle.metric.accuracy(x, y, k=2, correct=correct, total=total)
    assert float(acc2) == pytest.approx(0.8)
    assert int(correct) == 4 and int(total) == 5
    with pytest.raises(ValueError, match=r"label must be 2-D \[N, 1\]"):
        paddle.metric.accuracy(x, paddle.to_tensor(LABELS[:, 0]))
    with pytest.raises(ValueError, match="k must be a positive int"):
        paddle.metric.accuracy(x, y, k=0)
