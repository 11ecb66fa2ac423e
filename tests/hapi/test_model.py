"""paddle.Model: fit to a set accuracy, evaluate/predict values, batches, save/load, errors."""
import os
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan.hapi.model import Model
from sampan.utils import unique_name


class Blobs(paddle.io.Dataset):
    """Two Gaussian blobs in 4-D: label 1 when the coordinates sum above 0."""

    def __init__(self, n=64, seed=0):
        rng = np.random.RandomState(seed)
        self.x = rng.randn(n, 4).astype("float32")
        self.y = (self.x.sum(1, keepdims=True) > 0).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def _net():
    return paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(),
                                paddle.nn.Linear(8, 2))


def _model(lr=0.05, metrics=True, opt="adam"):
    net = _net()
    model = Model(net)
    cls = paddle.optimizer.Adam if opt == "adam" else paddle.optimizer.SGD
    model.prepare(cls(lr, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy() if metrics else None)
    return model


def test_paddle_model_is_exported():
    if not hasattr(paddle, "Model"):
        pytest.skip("paddle.Model not wired into sampan/__init__.py yet")
    assert paddle.Model is Model


def test_fit_reaches_accuracy():
    paddle.seed(0)
    model = _model()
    model.fit(Blobs(128), epochs=6, batch_size=16, verbose=0)
    result = model.evaluate(Blobs(64, seed=1), batch_size=64, verbose=0)
    assert set(result) == {"loss", "acc"}
    assert result["acc"] >= 0.9
    assert isinstance(result["loss"], list) and result["loss"][0] < 0.4


def test_evaluate_and_predict_values():
    paddle.seed(1)
    model = _model()
    data = Blobs(10, seed=2)
    logits = model.network(paddle.to_tensor(data.x)).numpy()
    out = model.predict(data, batch_size=4, verbose=0)
    assert len(out) == 1 and len(out[0]) == 3  # one output, three batches (4, 4, 2)
    assert [o.shape for o in out[0]] == [(4, 2), (4, 2), (2, 2)]
    np.testing.assert_allclose(np.concatenate(out[0]), logits, rtol=1e-6)
    stacked = model.predict(data, batch_size=4, stack_outputs=True, verbose=0)
    assert len(stacked) == 1 and stacked[0].shape == (10, 2)
    res = model.evaluate(data, batch_size=4, verbose=0)
    acc = np.mean(logits.argmax(1) == data.y[:, 0])
    assert res["acc"] == pytest.approx(acc)
    last = logits[8:] - logits[8:].max(1, keepdims=True)
    logp = last - np.log(np.exp(last).sum(1, keepdims=True))
    loss = -logp[np.arange(2), data.y[8:, 0]].mean()  # evaluate logs the last batch's loss
    assert res["loss"][0] == pytest.approx(loss, rel=1e-5)


def test_batch_methods():
    paddle.seed(2)
    model = _model()
    x = np.random.RandomState(0).randn(3, 4).astype("float32")
    y = np.array([[0], [1], [1]])
    losses, metrics = model.train_batch([x], [y])
    assert isinstance(losses, list) and losses[0].shape == () and len(metrics) == 1
    losses, metrics = model.eval_batch([paddle.to_tensor(x)], [paddle.to_tensor(y)])
    assert losses[0].dtype == np.float32
    out = model.predict_batch([x])
    assert isinstance(out, list) and out[0].shape == (3, 2)
    np.testing.assert_allclose(out[0], model.network(paddle.to_tensor(x)).numpy())
    plain = Model(_net())
    plain.prepare(loss=paddle.nn.CrossEntropyLoss())
    assert isinstance(plain.eval_batch([x], [y]), list)
    with pytest.raises(RuntimeError, match="prepare"):
        plain.train_batch([x], [y])


def test_train_batch_update_false_accumulates_like_one_big_step():
    x = np.random.RandomState(3).randn(4, 4).astype("float32")
    y = np.array([[0], [1], [1], [0]])
    with unique_name.guard():
        paddle.seed(3)
        acc = _model(lr=0.1, metrics=False, opt="sgd")
    with unique_name.guard():
        paddle.seed(3)
        ref = _model(lr=0.1, metrics=False, opt="sgd")
    acc.train_batch([x[:2]], [y[:2]], update=False)
    acc.train_batch([x[2:]], [y[2:]], update=True)
    # the summed gradient of two half-batch means is twice the full-batch mean gradient
    net = ref.network
    loss = paddle.nn.CrossEntropyLoss()(net(paddle.to_tensor(x)), paddle.to_tensor(y)) * 2
    loss.backward()
    ref._optimizer.step()
    for a, b in zip(acc.parameters(), ref.parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_fit_accumulate_and_num_iters_and_dataloader():
    paddle.seed(4)
    model = _model(metrics=False)
    seen = []

    class Count(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            seen.append(step)

    loader = paddle.io.DataLoader(Blobs(20), batch_size=4)
    model.fit(loader, epochs=3, verbose=0, num_iters=7, callbacks=[Count()],
              accumulate_grad_batches=2)
    assert seen == [0, 1, 2, 3, 4, 0, 1]
    with pytest.raises(ValueError, match="accumulate_grad_batches"):
        model.fit(loader, accumulate_grad_batches=0, verbose=0)
    with pytest.raises(ValueError, match="train_data"):
        model.fit(None)


def test_save_load_round_trip_resumes(tmp_path):
    data = Blobs(32)
    with unique_name.guard():
        paddle.seed(5)
        first = _model()
    first.fit(data, batch_size=8, epochs=1, verbose=0, shuffle=False)
    path = str(tmp_path / "ckpt" / "m")
    first.save(path)
    assert os.path.exists(path + ".pdparams") and os.path.exists(path + ".pdopt")
    with unique_name.guard():
        paddle.seed(99)
        second = _model()
    second.load(path + ".pdparams")
    for a, b in zip(first.parameters(), second.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # one more epoch from the checkpoint gives the same weights (Adam moments restored)
    first.fit(data, batch_size=8, epochs=1, verbose=0, shuffle=False)
    second.fit(data, batch_size=8, epochs=1, verbose=0, shuffle=False)
    for a, b in zip(first.parameters(), second.parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_load_mismatch(tmp_path):
    model = _model()
    path = str(tmp_path / "m")
    model.save(path)
    assert not os.path.exists(path + ".pdopt")  # no optimizer state before any step
    other = Model(paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU(),
                                       paddle.nn.Linear(3, 2)))
    with pytest.raises(ValueError, match=r"0.weight receives a shape \[4, 8\]"):
        other.load(path)
    before = other.network[2].bias.numpy().copy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        other.load(path, skip_mismatch=True)
    assert [str(w.message).split(".")[0] for w in caught] == [
        "Skip loading for 0", "Skip loading for 0", "Skip loading for 2"]
    np.testing.assert_array_equal(other.network[2].bias.numpy(),
                                  model.network[2].bias.numpy())
    assert before.shape == (2,)
    with pytest.raises(AssertionError, match="does not exist"):  # Paddle asserts it
        other.load(str(tmp_path / "missing"))


def test_prepare_errors_and_amp_configs():
    model = Model(_net())
    with pytest.raises(TypeError, match="Metric"):
        model.prepare(metrics=[object()])
    with pytest.raises(TypeError, match="loss"):
        model.prepare(loss=3)
    model.prepare(amp_configs="O1")  # AMP training itself: tests/amp/test_hapi_amp.py
    with pytest.raises(ValueError, match="could not be recognized"):
        model.prepare(amp_configs={"level": "O1", "bogus": 1})
    with pytest.raises(ValueError, match="'O0', 'O1' or 'O2'"):
        model.prepare(amp_configs="O3")
    with pytest.raises(TypeError, match="InputSpec"):
        Model(_net(), inputs=[3])
    with pytest.raises(ValueError, match="name"):
        Model(_net(), inputs=[paddle.static.InputSpec([None, 4])])


def test_static_mode_refused():
    paddle.enable_static()
    try:
        with pytest.raises(NotImplementedError, match="static graph mode"):
            Model(_net())
    finally:
        paddle.disable_static()


def test_logs_and_summary(capsys):
    paddle.seed(6)
    model = _model()
    model.fit(Blobs(8), Blobs(4), batch_size=4, epochs=2, verbose=2, log_freq=1)
    text = capsys.readouterr().out
    assert "Epoch 1/2" in text and "Epoch 2/2" in text and "Eval begin..." in text
    assert "step 1/2 - loss:" in text and " - acc: " in text and "Eval samples: 4" in text
    model.fit(Blobs(8), batch_size=4, epochs=1, verbose=1)
    assert "step 2/2 [==============================]" in capsys.readouterr().out
    model.predict(Blobs(4), batch_size=4, verbose=0)
    assert capsys.readouterr().out == ""
    info = model.summary((1, 4))
    assert info == {"total_params": 58, "trainable_params": 58}
    spec_model = Model(_net(), inputs=[paddle.static.InputSpec([None, 4], name="x")])
    assert spec_model.summary()["total_params"] == 58
