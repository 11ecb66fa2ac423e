"""Callbacks that write training logs: VisualDL (scalars for TensorBoard/VisualDL) and
WandbCallback (Weights & Biases, imported only when used)."""
from __future__ import annotations

import json
import os
import warnings
from typing import Any

from .callback_base import Callback, _is_rank0, _scalar


class _JsonlWriter:
    """A scalar log: one JSON object {"tag", "step", "value"} per line in scalars.jsonl."""

    def __init__(self, log_dir: str) -> None:
        os.makedirs(log_dir, exist_ok=True)
        self._file = open(os.path.join(log_dir, "scalars.jsonl"), "a", encoding="utf-8")

    def add_scalar(self, tag: str, step: int, value) -> None:
        self._file.write(json.dumps({"tag": tag, "step": int(step), "value": float(value)})
                         + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class _MetricLogger(Callback):
    """The bookkeeping VisualDL and WandbCallback share: the global train step, the epoch,
    and the "train/<metric>" / "eval/<metric>" scalars of a batch's or an evaluation's logs
    (subclasses write them in `_updates`)."""

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.epochs = self.params.get("epochs")
        self.train_metrics = self.params.get("metrics", [])
        self._is_fit = True
        self.train_step = 0

    def on_epoch_begin(self, epoch: int | None = None, logs: dict | None = None) -> None:
        self.steps = self.params.get("steps")
        self.epoch = epoch

    def _scalars(self, logs: dict, mode: str):
        """(tag, value) of each metric of `mode` present in `logs`."""
        for k in getattr(self, f"{mode}_metrics"):
            value = _scalar(logs.get(k))
            if value is not None:
                yield f"{mode}/{k}", value

    def on_train_batch_end(self, step: int, logs: dict | None = None) -> None:
        self.train_step += 1
        self._updates(logs or {}, "train")

    def on_eval_begin(self, logs: dict | None = None) -> None:
        self.eval_steps = (logs or {}).get("steps")
        self.eval_metrics = (logs or {}).get("metrics", [])


class VisualDL(_MetricLogger):
    """Logs the training and evaluation scalars ("train/loss", "eval/acc", ...): train
    scalars at the global step, eval scalars at the epoch.

    Writes through `visualdl.LogWriter` when the `visualdl` package is installed (as Paddle
    does), else through `sampan.utils.LogWriter`, TensorBoard event files that
    `tensorboard --logdir log_dir` shows (needs `pip install tensorboardX`). With neither
    installed the scalars go to a plain JSON-lines file `log_dir/scalars.jsonl`, one
    {"tag": ..., "step": ..., "value": ...} object per line, and a warning says so.

    Args:
        log_dir (str): the output directory.

    Examples:
        >>> import sampan as paddle
        >>> callback = paddle.callbacks.VisualDL(log_dir='visualdl_log_dir')
        >>> # model.fit(train_dataset, eval_dataset, batch_size=64, callbacks=callback)
    """

    def __init__(self, log_dir: str) -> None:
        super().__init__()
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0

    def _writer(self):
        if not hasattr(self, "writer"):
            try:
                import visualdl
                self.writer = visualdl.LogWriter(self.log_dir)
            except ImportError:
                self.writer = self._own_writer()
        return self.writer

    def _own_writer(self):
        from ..utils.log_writer import LogWriter
        try:
            return LogWriter(self.log_dir)
        except ImportError:
            warnings.warn(f"paddle.callbacks.VisualDL: neither visualdl nor tensorboardX is "
                          f"installed, so the scalars go to "
                          f"{os.path.join(self.log_dir, 'scalars.jsonl')} (JSON lines); "
                          f"`pip install tensorboardX` writes TensorBoard event files")
            return _JsonlWriter(self.log_dir)

    def _updates(self, logs: dict, mode: str) -> None:
        if not _is_rank0():
            return
        step = self.train_step if mode == "train" else self.epoch
        for tag, value in self._scalars(logs, mode):
            self._writer().add_scalar(tag=tag, step=step, value=value)

    def _close(self) -> None:
        if hasattr(self, "writer"):
            self.writer.close()
            del self.writer

    def on_train_end(self, logs: dict | None = None) -> None:
        self._close()

    def on_eval_end(self, logs: dict | None = None) -> None:
        self._updates(logs or {}, "eval")
        if not hasattr(self, "_is_fit"):
            self._close()


class WandbCallback(_MetricLogger):
    """Logs training and evaluation scalars to Weights & Biases (needs `wandb`).

    Args:
        project, entity, name, dir, mode, job_type: passed to wandb.init, with **kwargs.

    Raises:
        ImportError: when the wandb package is not installed.
    """

    def __init__(self, project: str | None = None, entity: str | None = None,
                 name: str | None = None, dir: str | None = None, mode: str | None = None,
                 job_type: str | None = None, **kwargs: Any) -> None:
        super().__init__()
        try:
            import wandb
        except ImportError:
            raise ImportError("WandbCallback needs the `wandb` package, which is not "
                              "installed; install it with `pip install wandb`") from None
        self.wandb = wandb
        self.wandb_args = {"project": project, "name": name, "entity": entity, "dir": dir,
                           "mode": mode, "job_type": job_type, **kwargs}
        self._run = None
        _ = self.run

    @property
    def run(self):
        if _is_rank0() and self._run is None:
            if self.wandb.run is not None:
                warnings.warn("There is a wandb run already in progress and newly created "
                              "instances of `WandbCallback` will reuse this run.")
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def on_train_begin(self, logs: dict | None = None) -> None:
        super().on_train_begin(logs)
        if _is_rank0():
            self.run.define_metric("train/step")
            self.run.define_metric("train/*", step_metric="train/step")
            self.run.define_metric("epoch")
            self.run.define_metric("eval/*", step_metric="epoch")

    def _updates(self, logs: dict, mode: str) -> None:
        if not _is_rank0():
            return
        values = ({"train/step": self.train_step} if mode == "train"
                  else {"epoch": getattr(self, "epoch", 0)})
        values.update(self._scalars(logs, mode))
        self.run.log(values)

    def on_train_end(self, logs: dict | None = None) -> None:
        if _is_rank0():
            self.run.finish()

    def on_eval_end(self, logs: dict | None = None) -> None:
        self._updates(logs or {}, "eval")
        if not hasattr(self, "_is_fit") and _is_rank0():
            self.run.finish()
