"""paddle.Model errors that name the problem (Paddle 3.3.1 raises "'NoneType' object is not
callable" and "ReduceOnPlateau.step() missing 1 required positional argument: 'metrics'"
for these, and Adam(parameters=model) fails with "'Linear' object is not iterable")."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle

RNG = np.random.default_rng(0)


def _data():
    x = RNG.random((8, 4)).astype("float32")
    y = RNG.integers(0, 2, (8, 1))
    return paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])


def test_fit_without_prepare_or_without_loss_says_which():
    net = paddle.nn.Linear(4, 2)
    model = paddle.Model(net)
    with pytest.raises(RuntimeError, match=r"Model.fit: model not ready, call model\.prepare"):
        model.fit(_data(), batch_size=4, verbose=0)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()))
    with pytest.raises(RuntimeError, match="Model.fit: prepare\\(\\) got no loss"):
        model.fit(_data(), batch_size=4, verbose=0)
    model.prepare(loss=paddle.nn.CrossEntropyLoss())
    with pytest.raises(RuntimeError, match="Model.train_batch: prepare\\(\\) got no optimizer"):
        model.train_batch([np.ones((2, 4), "float32")], [np.zeros((2, 1), "int64")])


def test_fit_with_reduce_on_plateau_points_at_the_callback():
    net = paddle.nn.Linear(4, 2)
    model = paddle.Model(net)
    sched = paddle.optimizer.lr.ReduceOnPlateau(0.1)
    model.prepare(paddle.optimizer.SGD(sched, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss())
    with pytest.raises(ValueError, match="ReduceOnPlateau.*callbacks.ReduceLROnPlateau"):
        model.fit(_data(), batch_size=4, epochs=2, verbose=0)
    # stepping it by hand with a metric stays possible
    model.train_batch([np.ones((2, 4), "float32")], [np.zeros((2, 1), "int64")])
    sched.step(1.0)


def test_fit_with_the_reduce_lr_on_plateau_callback_and_a_float_lr_runs():
    net = paddle.nn.Linear(4, 2)
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss())
    cb = paddle.callbacks.ReduceLROnPlateau(monitor="loss", patience=0, verbose=0)
    model.fit(_data(), _data(), batch_size=4, epochs=2, verbose=0, callbacks=[cb])


def test_optimizer_given_the_model_says_pass_parameters():
    with pytest.raises(TypeError, match=r"pass model\.parameters\(\)"):
        paddle.optimizer.Adam(parameters=paddle.nn.Sequential(paddle.nn.Linear(4, 2)))


def test_load_of_a_missing_checkpoint_is_an_assertion_error(tmp_path):
    # Paddle 3.3.1 asserts the .pdparams file exists (AssertionError, "Failed to load
    # parameters, please check path."); sampan adds the path it looked for
    model = paddle.Model(paddle.nn.Linear(4, 2))
    with pytest.raises(AssertionError, match=r"Failed to load parameters.*final\.pdparams"):
        model.load(str(tmp_path / "final"))
