"""paddle.callbacks: the hooks `paddle.Model` calls during fit/evaluate/predict.

Callback (all hooks), ProgBarLogger, ModelCheckpoint, LRScheduler, EarlyStopping,
ReduceLROnPlateau, VisualDL, WandbCallback; `config_callbacks` builds the list Model uses.
The callbacks live in callback_base.py, callbacks_monitor.py and callbacks_log.py.
"""
from __future__ import annotations

from .callback_base import (Callback, CallbackList, LRScheduler, ModelCheckpoint,  # noqa: F401
                            ProgBarLogger)
from .callbacks_log import VisualDL, WandbCallback  # noqa: F401
from .callbacks_monitor import EarlyStopping, ReduceLROnPlateau  # noqa: F401

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler",
           "EarlyStopping", "ReduceLROnPlateau", "WandbCallback"]

def config_callbacks(callbacks=None, model=None, batch_size: int | None = None,
                     epochs: int | None = None, steps: int | None = None, log_freq: int = 2,
                     verbose: int = 2, save_freq: int = 1, save_dir: str | None = None,
                     metrics: list | None = None, mode: str = "train") -> "CallbackList":
    """The CallbackList of a Model run: [ProgBarLogger, *callbacks, ModelCheckpoint,
    LRScheduler], each default added only when the user gave none of that kind."""
    cbks = callbacks or []
    cbks = list(cbks) if isinstance(cbks, (list, tuple)) else [cbks]
    for c in cbks:
        if not isinstance(c, Callback):
            raise TypeError(f"paddle.Model: callbacks must be paddle.callbacks.Callback "
                            f"instances, got {type(c).__name__}")
    if verbose and not any(isinstance(c, ProgBarLogger) for c in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(c, ModelCheckpoint) for c in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    for c in cbks:
        if isinstance(c, EarlyStopping):
            c.save_dir = save_dir
    if not any(isinstance(c, LRScheduler) for c in cbks):
        cbks = cbks + [LRScheduler()]
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    cbk_list.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps,
                         "verbose": verbose,
                         "metrics": (metrics or []) if mode != "test" else []})
    return cbk_list
