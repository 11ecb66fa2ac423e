"""paddle.callbacks: hook order, EarlyStopping, ModelCheckpoint, LR callbacks, VisualDL."""
import json
import os
import sys

import numpy as np
import pytest

import sampan as paddle
from sampan.hapi.model import Model


class Blobs(paddle.io.Dataset):
    def __init__(self, n=8, seed=0):
        rng = np.random.RandomState(seed)
        self.x = rng.randn(n, 4).astype("float32")
        self.y = (self.x.sum(1, keepdims=True) > 0).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def _model(lr=0.05):
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 2))
    model = Model(net)
    model.prepare(paddle.optimizer.SGD(lr, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    return model


class Recorder(paddle.callbacks.Callback):
    """Records every hook call as (hook name, step/epoch or None)."""

    def __init__(self):
        super().__init__()
        self.events = []

    def __getattribute__(self, name):
        if name.startswith("on_"):
            events = object.__getattribute__(self, "events")
            return lambda *args: events.append((name,) + tuple(
                a for a in args if not isinstance(a, dict) and a is not None))
        return object.__getattribute__(self, name)


def test_callbacks_fire_in_order():
    rec = Recorder()
    model = _model()
    model.fit(Blobs(8), Blobs(4), batch_size=4, epochs=2, verbose=0, callbacks=rec)
    epoch = [("on_train_batch_begin", 0), ("on_train_batch_end", 0),
             ("on_train_batch_begin", 1), ("on_train_batch_end", 1)]
    evaluation = [("on_eval_begin",), ("on_eval_batch_begin", 0), ("on_eval_batch_end", 0),
                  ("on_eval_end",)]
    assert rec.events == ([("on_train_begin",), ("on_epoch_begin", 0)] + epoch
                          + [("on_epoch_end", 0)] + evaluation + [("on_epoch_begin", 1)]
                          + epoch + [("on_epoch_end", 1)] + evaluation + [("on_train_end",)])
    assert rec.params == {"batch_size": None, "epochs": 2, "steps": 2, "verbose": 0,
                          "metrics": ["loss", "acc"]}
    assert rec.model is model
    rec.events.clear()
    model.predict(Blobs(4), batch_size=2, verbose=0, callbacks=[rec])
    assert rec.events == [("on_predict_begin",), ("on_predict_batch_begin", 0),
                          ("on_predict_batch_end", 0), ("on_predict_batch_begin", 1),
                          ("on_predict_batch_end", 1), ("on_predict_end",)]


def test_logs_passed_to_hooks():
    seen = {}

    class Grab(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            seen["train"] = dict(logs)

        def on_eval_end(self, logs=None):
            seen["eval"] = dict(logs)

    _model().fit(Blobs(6), Blobs(3), batch_size=4, verbose=0, callbacks=[Grab()])
    assert set(seen["train"]) == {"loss", "acc", "step", "batch_size"}
    assert seen["train"]["step"] == 1 and seen["train"]["batch_size"] == 2
    assert isinstance(seen["train"]["loss"], list)
    assert seen["eval"]["batch_size"] == 3


def test_early_stopping_stops_and_saves_best(tmp_path, capsys):
    rec = Recorder()
    stop = paddle.callbacks.EarlyStopping(monitor="loss", patience=2, baseline=-1.0)
    model = _model()
    model.fit(Blobs(8), Blobs(4), batch_size=4, epochs=10, verbose=0,
              callbacks=[stop, rec], save_dir=str(tmp_path))
    epochs = [e[1] for e in rec.events if e[0] == "on_epoch_begin"]
    assert epochs == [0, 1]  # no improvement over the baseline: stop after 2 evaluations
    assert model.stop_training and "Early stopping" in capsys.readouterr().out
    assert not os.path.exists(tmp_path / "best_model.pdparams")
    best = paddle.callbacks.EarlyStopping(monitor="acc", mode="auto", patience=0,
                                          verbose=0)
    assert best.monitor_op is np.greater
    _model().fit(Blobs(8), Blobs(4), batch_size=4, epochs=3, verbose=0, callbacks=[best],
                 save_dir=str(tmp_path))
    assert os.path.exists(tmp_path / "best_model.pdparams")  # the first eval always improves
    with pytest.warns(UserWarning, match="fallback to auto"):
        paddle.callbacks.EarlyStopping(mode="bad")


def test_early_stopping_min_delta_patience():
    stop = paddle.callbacks.EarlyStopping(monitor="loss", patience=2, min_delta=0.5,
                                          verbose=0)
    stop.set_model(_model())
    stop.on_train_begin()
    for value, stopped in ((1.0, False), (0.8, False), (0.7, True)):
        stop.on_eval_end({"loss": [value]})
        assert stop.model.stop_training is stopped
    assert stop.best_value == 1.0 and stop.wait_epoch == 2


def test_model_checkpoint_writes_files(tmp_path):
    model = _model()
    ckpt = paddle.callbacks.ModelCheckpoint(save_freq=2, save_dir=str(tmp_path / "c"))
    model.fit(Blobs(8), batch_size=4, epochs=3, verbose=0, callbacks=[ckpt])
    names = sorted(os.listdir(tmp_path / "c"))
    assert names == ["0.pdparams", "2.pdparams", "final.pdparams"]  # SGD: no state
    state = paddle.load(str(tmp_path / "c" / "final.pdparams"))
    np.testing.assert_array_equal(state["0.weight"].numpy(), model.network[0].weight.numpy())
    model.fit(Blobs(8), batch_size=4, epochs=1, verbose=0, save_dir=str(tmp_path / "d"))
    assert sorted(os.listdir(tmp_path / "d")) == ["0.pdparams", "final.pdparams"]
    adam = Model(model.network)
    adam.prepare(paddle.optimizer.Adam(0.01, parameters=adam.parameters()),
                 paddle.nn.CrossEntropyLoss())
    adam.fit(Blobs(4), batch_size=4, verbose=0, save_dir=str(tmp_path / "e"))
    assert sorted(os.listdir(tmp_path / "e")) == ["0.pdopt", "0.pdparams", "final.pdopt",
                                                  "final.pdparams"]


def test_lr_scheduler_callback_by_step_and_by_epoch():
    with pytest.raises(ValueError, match="mutually exclusive"):
        paddle.callbacks.LRScheduler(by_step=True, by_epoch=True)
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
    model = _model(lr=sched)
    model.fit(Blobs(8), batch_size=4, epochs=2, verbose=0)  # default: by step, 4 steps
    assert sched.last_epoch == 4
    assert model._optimizer.get_lr() == pytest.approx(0.1 * 0.5 ** 4)
    sched2 = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
    model = _model(lr=sched2)
    model.fit(Blobs(8), batch_size=4, epochs=3, verbose=0,
              callbacks=[paddle.callbacks.LRScheduler(by_step=False, by_epoch=True)])
    assert sched2.last_epoch == 3


def test_reduce_lr_on_plateau():
    with pytest.raises(ValueError, match="factor"):
        paddle.callbacks.ReduceLROnPlateau(factor=1.0)
    cb = paddle.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=2,
                                            verbose=0, min_lr=0.02)
    model = _model(lr=0.1)
    cb.set_model(model)
    cb.on_train_begin()
    for value, lr in ((1.0, 0.1), (1.0, 0.1), (1.0, 0.05), (0.5, 0.05), (0.6, 0.05),
                      (0.6, 0.025), (0.6, 0.025), (0.6, 0.02)):
        cb.on_eval_end({"loss": [value]})
        assert model._optimizer.get_lr() == pytest.approx(lr)


def test_visualdl_writes_scalar_log(tmp_path, monkeypatch):
    # the JSON-lines fallback, as without visualdl and tensorboardX (TensorBoard event files
    # through tensorboardX: tests/utils/test_log_writer.py)
    monkeypatch.setitem(sys.modules, "visualdl", None)
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    log_dir = tmp_path / "vdl"
    model = _model()
    with pytest.warns(UserWarning, match="scalars.jsonl"):
        model.fit(Blobs(8), Blobs(4), batch_size=4, epochs=2, verbose=0,
                  callbacks=[paddle.callbacks.VisualDL(str(log_dir))])
    rows = [json.loads(line) for line in open(log_dir / "scalars.jsonl")]
    train = [r for r in rows if r["tag"] == "train/loss"]
    assert [r["step"] for r in train] == [1, 2, 3, 4]
    evals = [(r["tag"], r["step"]) for r in rows if r["tag"].startswith("eval/")]
    assert evals == [("eval/loss", 0), ("eval/acc", 0), ("eval/loss", 1), ("eval/acc", 1)]
    assert all(isinstance(r["value"], float) for r in rows)


def test_wandb_needs_wandb():
    try:
        import wandb  # noqa: F401
        pytest.skip("wandb is installed")
    except ImportError:
        pass
    with pytest.raises(ImportError, match="wandb"):
        paddle.callbacks.WandbCallback(project="x")


def test_progbar_logger_verbosity(capsys):
    model = _model()
    model.fit(Blobs(8), batch_size=4, epochs=1, verbose=0)
    assert capsys.readouterr().out == ""
    logger = paddle.callbacks.ProgBarLogger(log_freq=1, verbose=2)
    model.fit(Blobs(8), batch_size=4, epochs=1, verbose=0, callbacks=[logger])
    out = capsys.readouterr().out
    assert "step 1/2 - loss:" in out and "step 2/2 - loss:" in out
    model.evaluate(Blobs(4), batch_size=2, verbose=2)
    out = capsys.readouterr().out
    assert "Eval begin..." in out and "step 2/2 - loss:" in out and "Eval samples: 4" in out
    model.predict(Blobs(4), batch_size=2, verbose=1)
    assert "Predict samples: 4" in capsys.readouterr().out


def test_callback_type_checked():
    with pytest.raises(TypeError, match="Callback"):
        _model().fit(Blobs(4), verbose=0, callbacks=[object()])
