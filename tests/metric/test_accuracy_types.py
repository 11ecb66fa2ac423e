"""Accuracy's values are numpy float64 as in Paddle 3.3.1 (`Model.evaluate` prints
{'acc': np.float64(0.4)} in docs/guides/beginner/quick_start_cn.ipynb)."""
import numpy as np

import sampan as paddle


def test_update_and_accumulate_are_numpy_float64():
    m = paddle.metric.Accuracy()
    step = m.update(np.array([[1.0], [0.0]]))
    assert type(step) is np.float64 and step == 0.5
    m.update(np.array([[1.0], [1.0]]))
    acc = m.accumulate()
    assert type(acc) is np.float64 and acc == 0.75
    assert repr(acc) == "np.float64(0.75)"


def test_topk_list_and_empty_state():
    m = paddle.metric.Accuracy(topk=(1, 2))
    assert m.accumulate() == [0.0, 0.0]
    m.update(np.array([[0.0, 1.0], [1.0, 1.0]]))
    assert [type(v) for v in m.accumulate()] == [np.float64, np.float64]
    assert m.accumulate() == [0.5, 1.5]  # Paddle sums the first k columns of the mask


def test_evaluate_returns_numpy_acc():
    paddle.seed(0)
    net = paddle.nn.Linear(4, 3)
    model = paddle.Model(net)
    model.prepare(metrics=paddle.metric.Accuracy(), loss=paddle.nn.CrossEntropyLoss())
    x = np.random.RandomState(0).rand(8, 4).astype("float32")
    y = np.arange(8).reshape(8, 1).astype("int64") % 3
    data = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
    res = model.evaluate(data, batch_size=4, verbose=0)
    assert type(res["acc"]) is np.float64
