"""paddle.Model: one eager training loop (fit / evaluate / predict) around a Layer.

The loop, callback order, logs and checkpoint files follow Paddle's hapi Model in dynamic
mode. Static-graph Models are not supported. Imports `framework`, `autograd`, `tensor`,
`static.input_spec`, `nn`, `optimizer`, `io`, `metric` and `hapi`.
"""
from __future__ import annotations

import inspect
import os
import warnings
from typing import Any

import numpy as np

from ..autograd import no_grad
from ..framework.flags import in_dynamic_mode
from ..framework.io import load as _load, save as _save
from ..framework.tensor import Tensor
from ..metric import Metric
from ..optimizer.lr import ReduceOnPlateau
from ..static.input_spec import InputSpec
from ..tensor.creation import to_tensor
from .callbacks import EarlyStopping, LRScheduler, config_callbacks

__all__ = ["Model"]

_AMP_LEVELS = ("O0", "O1", "O2")


def _to_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def to_list(value):
    """paddle.hapi.model.to_list: a list or tuple as a list, None as None, else [value]."""
    return None if value is None else _to_list(value)


def _to_numpy(value) -> np.ndarray:
    return value.numpy() if isinstance(value, Tensor) else np.asarray(value)


def _as_tensor(value) -> Tensor:
    return value if isinstance(value, Tensor) else to_tensor(value)


def _flatten(data) -> list:
    """A batch (nested lists/tuples of fields) as a flat list of fields."""
    if isinstance(data, (list, tuple)):
        return [leaf for item in data for leaf in _flatten(item)]
    if isinstance(data, dict):
        return [leaf for key in data for leaf in _flatten(data[key])]
    return [data]


def _len_or_none(loader):
    try:
        return len(loader)
    except Exception:  # iterable datasets and generators have no length
        return None


def _check_scheduler(optimizer, cbks) -> None:
    """fit's LRScheduler callback calls `scheduler.step()` without a metric, which a
    ReduceOnPlateau scheduler needs: say what to use instead."""
    if not isinstance(getattr(optimizer, "_learning_rate", None), ReduceOnPlateau):
        return
    if any(isinstance(c, LRScheduler) and (c.by_step or c.by_epoch) for c in cbks):
        raise ValueError(
            "paddle.Model.fit: the optimizer's learning rate is a ReduceOnPlateau scheduler, "
            "which steps on a metric value, not per batch or epoch; give the optimizer a float "
            "learning rate and pass callbacks=[paddle.callbacks.ReduceLROnPlateau("
            "monitor='loss', ...)] instead")


def _forward_arg_names(network) -> list:
    """The named positional parameters of network.forward (the model's inputs)."""
    params = inspect.signature(network.forward).parameters.values()
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in params if p.kind in kinds]


class Model:
    """A network plus its optimizer, loss and metrics, with a Keras-like training loop.

    Args:
        network (Layer): the network.
        inputs (InputSpec|list|dict, optional): the network's input specs; by default one
            spec per named argument of network.forward. The number of inputs decides how a
            batch splits into inputs (first fields) and labels (the rest).
        labels (InputSpec|list, optional): the label specs.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> from sampan.hapi.model import Model  # paddle.Model
        >>> x = np.random.rand(8, 4).astype("float32")
        >>> y = np.random.randint(0, 2, (8, 1))
        >>> data = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
        >>> model = Model(paddle.nn.Linear(4, 2))
        >>> model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()),
        ...               paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
        >>> model.fit(data, batch_size=4, epochs=1, verbose=0)
        >>> sorted(model.evaluate(data, batch_size=4, verbose=0))
        ['acc', 'loss']
    """

    def __init__(self, network, inputs=None, labels=None) -> None:
        from ..nn import Layer
        if not in_dynamic_mode():
            raise NotImplementedError(
                "paddle.Model: static graph mode (paddle.enable_static()) is not supported; "
                "call paddle.disable_static() and use the Model in dynamic mode")
        if not isinstance(network, Layer):
            raise TypeError(f"paddle.Model: network must be a paddle.nn.Layer, got "
                            f"{type(network).__name__}")
        self.mode = "train"
        self.network = network
        self._prepared = False
        self._loss = None
        self._optimizer = None
        self._metrics: list = []
        self._amp_level = "O0"
        self._amp = _amp_settings(None, "O0")
        self._scaler = None
        self._input_info = None
        self._test_dataloader = None
        self.stop_training = False
        self._inputs_given = inputs is not None
        self._inputs = self._verify_spec(inputs, is_input=True)
        self._labels = self._verify_spec(labels)

    # --- specs ----------------------------------------------------------------------------
    def _verify_spec(self, specs, is_input: bool = False) -> list | None:
        if specs is None:
            if not is_input:
                return None
            names = _forward_arg_names(self.network) or ["input"]
            return [InputSpec([None], name=n) for n in names]
        if isinstance(specs, dict):
            if is_input:
                raise TypeError("paddle.Model: inputs given as a dict are not supported; "
                                "pass a list of InputSpec in forward's argument order")
            specs = [specs[n] for n in _forward_arg_names(self.network) if n in specs]
        out = _to_list(specs)
        for i, spec in enumerate(out):
            if not isinstance(spec, InputSpec):
                raise TypeError(f"paddle.Model: {'inputs' if is_input else 'labels'}[{i}] "
                                f"must be a paddle.static.InputSpec, got {type(spec).__name__}")
            if spec.name is None:
                raise ValueError(f"Requires Input[{i}].name != None, but receive `None` "
                                 f"with {spec}.")
        return out

    # --- preparation ----------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None) -> None:
        """Set the optimizer, the loss and the metrics used by fit/evaluate.

        Args:
            optimizer (Optimizer, optional): needed for training.
            loss (Layer|callable, optional): called as loss(*outputs, *labels).
            metrics (Metric|list of Metric, optional): evaluated on every batch.
            amp_configs (str|dict, optional): 'O1'/'O2' or a dict with 'level', the
                GradScaler settings ('init_loss_scaling', 'incr_ratio', ...),
                'custom_white_list', 'custom_black_list' and (sampan extra) 'dtype'
                ('float16', Paddle's only choice, or 'bfloat16'). float16 on CPU behaves
                as in Paddle 3.3.1 (auto_cast warns and keeps float32, the scaler is off);
                bfloat16 trains in mixed precision (O2 decorates the network).
        """
        from ..nn import Layer
        if loss is not None and not isinstance(loss, Layer) and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable "
                            "function.")
        metrics = _to_list(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError(f"paddle.Model.prepare: {type(m).__name__} is not sub class "
                                f"of paddle.metric.Metric")
        self._optimizer = optimizer
        self._loss = loss
        self._metrics = metrics
        self._prepared = True
        self._amp_level = _amp_level(amp_configs)
        self._amp = _amp_settings(amp_configs, self._amp_level)
        self._scaler = None
        if self._amp_level == "O2" and optimizer is not None:
            from .. import amp
            self.network, self._optimizer = amp.decorate(
                self.network, optimizer, level="O2", dtype=self._amp["dtype"])

    def parameters(self, *args: Any, **kwargs: Any) -> list:
        """The network's parameters."""
        return self.network.parameters(*args, **kwargs)

    # --- one batch --------------------------------------------------------------------------
    def _outputs_and_labels(self, inputs, labels) -> tuple:
        inputs = [_as_tensor(x) for x in _to_list(inputs)]
        labels = [_as_tensor(x) for x in _to_list(labels)]
        if self._input_info is None:
            self._input_info = ([x.shape for x in inputs], [x.dtype for x in inputs])
        return _to_list(self.network(*inputs)), labels

    def _loss_values(self, outputs: list, labels: list) -> list:
        return _to_list(self._loss(*(outputs + labels)))

    def _update_metrics(self, outputs: list, labels: list) -> list:
        results = []
        for metric in self._metrics:
            outs = metric.compute(*(outputs + labels))
            results.append(metric.update(*[_to_numpy(o) for o in _to_list(outs)]))
        return results

    def train_batch(self, inputs, labels=None, update: bool = True):
        """Run one training step: forward, loss, backward, and (if update) the optimizer.

        Args:
            inputs (Tensor|ndarray|list): the network inputs of the batch.
            labels (Tensor|ndarray|list, optional): the labels.
            update (bool): apply the optimizer and clear the gradients (False accumulates
                gradients over batches). Default True.

        Returns:
            list: the loss values (ndarrays), or (losses, metric results) with metrics.
        """
        self._check_trainable("train_batch")
        self.network.train()
        self.mode = "train"
        from .. import amp
        with amp.auto_cast(enable=self._amp_level != "O0", level=self._amp_level,
                           dtype=self._amp["dtype"], **self._amp["lists"]):
            outputs, labels = self._outputs_and_labels(inputs, labels)
        losses = self._loss_values(outputs, labels)
        final = losses[0]
        for extra in losses[1:]:
            final = final + extra
        if self._amp_level != "O0" and self._amp["dtype"] == "float16":
            if self._scaler is None:
                self._scaler = amp.GradScaler(**self._amp["scaler"])
            final = self._scaler.scale(final)
        final.backward()
        if update:
            if self._scaler is not None:
                self._scaler.minimize(self._optimizer, final)
            else:
                self._optimizer.step()
            self.network.clear_gradients()
        with no_grad():
            metrics = self._update_metrics(outputs, labels)
        losses = [_to_numpy(loss) for loss in losses]
        return (losses, metrics) if metrics else losses

    def _check_trainable(self, api: str) -> None:
        """Training needs prepare() with an optimizer and a loss; say which is missing."""
        where = f"paddle.Model.{api}"
        if not self._prepared:
            raise RuntimeError(f"{where}: model not ready, call model.prepare(optimizer, "
                               f"loss) first")
        for what, value in (("loss", self._loss), ("optimizer", self._optimizer)):
            if value is None:
                raise RuntimeError(f"{where}: prepare() got no {what}; training needs one, "
                                   f"e.g. model.prepare(optimizer, paddle.nn.CrossEntropyLoss())")

    @no_grad()
    def eval_batch(self, inputs, labels=None):
        """Run one evaluation step (no gradients).

        Returns:
            list: losses, (losses, metric results), or metric results without a loss.
        """
        self.network.eval()
        self.mode = "eval"
        outputs, labels = self._outputs_and_labels(inputs, labels)
        losses = self._loss_values(outputs, labels) if self._loss else []
        metrics = self._update_metrics(outputs, labels)
        losses = [_to_numpy(loss) for loss in losses]
        if self._loss and metrics:
            return losses, metrics
        return losses if self._loss else metrics

    @no_grad()
    def predict_batch(self, inputs) -> list:
        """The network outputs for one batch of inputs, as a list of ndarrays."""
        self.network.eval()
        self.mode = "test"
        outputs, _ = self._outputs_and_labels(inputs, None)
        return [_to_numpy(o) for o in outputs]

    # --- loops --------------------------------------------------------------------------------
    def _loader(self, data, batch_size: int, shuffle: bool = False, drop_last: bool = False,
                num_workers: int = 0):
        from ..io import DataLoader, Dataset, DistributedBatchSampler, IterableDataset
        if isinstance(data, IterableDataset):
            return DataLoader(data, batch_size=batch_size, drop_last=drop_last,
                              num_workers=num_workers, return_list=True)
        if isinstance(data, Dataset):
            sampler = DistributedBatchSampler(data, batch_size=batch_size, shuffle=shuffle,
                                              drop_last=drop_last)
            return DataLoader(data, batch_sampler=sampler, num_workers=num_workers,
                              return_list=True)
        return data

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs: int = 1,
            eval_freq: int = 1, log_freq: int = 10, save_dir: str | None = None,
            save_freq: int = 1, verbose: int = 2, drop_last: bool = False,
            shuffle: bool = True, num_workers: int = 0, callbacks=None,
            accumulate_grad_batches: int = 1, num_iters: int | None = None) -> None:
        """Train for `epochs` epochs, evaluating on eval_data every `eval_freq` epochs.

        Args:
            train_data (Dataset|DataLoader): the training data.
            eval_data (Dataset|DataLoader, optional): the evaluation data.
            batch_size (int|list): batch size, or [train, eval] sizes, used for Datasets.
            epochs (int): the number of epochs. Default 1.
            eval_freq (int): evaluate every eval_freq epochs. Default 1.
            log_freq (int): log every log_freq steps. Default 10.
            save_dir (str, optional): checkpoint directory (save_dir/<epoch>, final).
            save_freq (int): checkpoint every save_freq epochs. Default 1.
            verbose (int): 0 silent, 1 progress bar, 2 one line per log. Default 2.
            drop_last (bool): drop the last incomplete training batch. Default False.
            shuffle (bool): shuffle the training Dataset. Default True.
            num_workers (int): DataLoader worker processes. Default 0.
            callbacks (Callback|list, optional): extra callbacks.
            accumulate_grad_batches (int): batches whose gradients are summed before one
                optimizer step. Default 1.
            num_iters (int, optional): stop after this many training steps.
        """
        if train_data is None:
            raise ValueError("paddle.Model.fit: train_data must be given!")
        self._check_trainable("fit")
        train_bs, eval_bs = _batch_sizes(batch_size)
        if isinstance(accumulate_grad_batches, bool) or not isinstance(
                accumulate_grad_batches, int) or accumulate_grad_batches < 1:
            raise ValueError(f"paddle.Model.fit: accumulate_grad_batches must be a positive "
                             f"int, got {accumulate_grad_batches!r}")
        train_loader = self._loader(train_data, train_bs, shuffle, drop_last, num_workers)
        eval_loader = (None if eval_data is None
                       else self._loader(eval_data, eval_bs, num_workers=num_workers))
        self._test_dataloader = eval_loader
        self._accumulate = accumulate_grad_batches
        steps = _len_or_none(train_loader)
        self.num_iters = num_iters
        if num_iters is not None:
            if isinstance(num_iters, bool) or not isinstance(num_iters, int) or num_iters < 1:
                raise ValueError(f"paddle.Model.fit: num_iters must be greater than 0, got "
                                 f"{num_iters!r}")
            if steps is not None:
                epochs = num_iters // steps + 1
                steps = min(num_iters, steps)
        self.stop_training = False
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps,
                                log_freq=log_freq, save_freq=save_freq, save_dir=save_dir,
                                verbose=verbose, metrics=self._metrics_name())
        _check_scheduler(self._optimizer, cbks)
        if any(isinstance(c, EarlyStopping) for c in cbks) and eval_loader is None:
            warnings.warn("EarlyStopping needs validation data.")
        logs: dict = {}
        cbks.on_begin("train")
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train", logs)
            cbks.on_epoch_end(epoch, logs)
            if eval_loader is not None and epoch % eval_freq == 0:
                cbks.on_begin("eval", {"steps": _len_or_none(eval_loader),
                                       "metrics": self._metrics_name()})
                logs = self._run_one_epoch(eval_loader, cbks, "eval", logs)
                cbks.on_end("eval", logs)
            if self.stop_training:
                break
        cbks.on_end("train", logs)
        self._test_dataloader = None

    def evaluate(self, eval_data, batch_size: int = 1, log_freq: int = 10, verbose: int = 2,
                 num_workers: int = 0, callbacks=None, num_iters: int | None = None) -> dict:
        """Evaluate the loss and metrics over eval_data.

        Returns:
            dict: {"loss": [last batch loss], metric name: accumulated value, ...}
        """
        loader = self._loader(eval_data, batch_size, num_workers=num_workers)
        self._test_dataloader = loader
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        steps = _len_or_none(loader)
        self.num_iters = num_iters
        if num_iters is not None and steps is not None:
            if num_iters < 1:
                raise ValueError(f"paddle.Model.evaluate: num_iters must be greater than 0, "
                                 f"got {num_iters!r}")
            steps = self.num_iters = min(num_iters, steps)
        cbks.on_begin("eval", {"steps": steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, "eval", {})
        cbks.on_end("eval", logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name() if k in logs}

    def predict(self, test_data, batch_size: int = 1, num_workers: int = 0,
                stack_outputs: bool = False, verbose: int = 1, callbacks=None) -> list:
        """Run the network over test_data.

        Returns:
            list: one entry per network output: a tuple of per-batch ndarrays, or (with
            stack_outputs) one ndarray of all batches stacked along axis 0.
        """
        loader = self._loader(test_data, batch_size, num_workers=num_workers)
        self._test_dataloader = loader
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        cbks.on_begin("predict", {"steps": _len_or_none(loader)})
        logs, outputs = self._run_one_epoch(loader, cbks, "predict", {})
        outputs = list(zip(*outputs))
        if stack_outputs:
            outputs = [np.vstack(outs) for outs in outputs]
        self._test_dataloader = None
        cbks.on_end("predict", logs)
        return outputs

    def _run_one_epoch(self, loader, cbks, mode: str, logs: dict):
        outputs = []
        n_inputs = len(self._inputs)
        length = _len_or_none(loader)
        for step, data in enumerate(loader):
            data = _flatten(data)
            cbks.on_batch_begin(mode, step, logs)
            if mode == "predict":
                outputs.append(self.predict_batch(data[:n_inputs]))
            else:
                args = [data[:n_inputs], data[n_inputs:]]
                if mode == "train":
                    args.append((step + 1) % self._accumulate == 0 or step + 1 == length)
                outs = getattr(self, f"{mode}_batch")(*args)
                self._log_values(logs, outs)
            logs["step"] = step
            logs["batch_size"] = int(data[0].shape[0])
            cbks.on_batch_end(mode, step, logs)
            if getattr(self, "num_iters", None) is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    del self.num_iters
                    break
        for metric in self._metrics:
            metric.reset()
        return (logs, outputs) if mode == "predict" else logs

    def _log_values(self, logs: dict, outs) -> None:
        values = []
        if self._loss:
            losses = outs[0] if self._metrics else outs
            values.append([float(loss) for loss in losses])
        for metric in self._metrics:
            values.extend(_to_list(metric.accumulate()))
        for name, value in zip(self._metrics_name(), values):
            logs[name] = value

    def _metrics_name(self) -> list:
        names = ["loss"] if self._loss else []
        for m in self._metrics:
            names.extend(_to_list(m.name()))
        return names

    # --- persistence ---------------------------------------------------------------------------
    def save(self, path: str, training: bool = True) -> None:
        """Save parameters to path.pdparams and optimizer state to path.pdopt.

        With training=False the network is saved for inference through paddle.jit.save.
        """
        if int(os.environ.get("PADDLE_TRAINER_ID", "0")) != 0:
            return
        if not training:
            self._save_inference_model(path)
            return
        _save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None:
            state = self._optimizer.state_dict()
            if state:
                _save(state, path + ".pdopt")

    def _save_inference_model(self, path: str) -> None:
        """paddle.jit.save of the network with the Model's input specs: those given to
        paddle.Model, else the shapes of the inputs seen by fit/evaluate/predict (batch dim
        unknown), as in Paddle."""
        from ..jit import save as jit_save
        specs = self._inputs if self._inputs_given else None
        if specs is None and self._input_info is not None:
            names = [s.name for s in self._inputs]
            specs = [InputSpec([None] + list(shape[1:]), dtype, name)
                     for shape, dtype, name in zip(*self._input_info, names)]
        if specs is None:
            raise RuntimeError("paddle.Model.save(path, training=False): the input shapes are "
                             "unknown; pass inputs=[paddle.static.InputSpec(...)] to "
                             "paddle.Model, or run fit/evaluate/predict once before saving")
        jit_save(self.network, path, input_spec=specs)

    def load(self, path: str, skip_mismatch: bool = False,
             reset_optimizer: bool = False) -> None:
        """Load parameters (and optimizer state) saved by `save`.

        Args:
            path (str): the path given to save (a .pdparams/.pdopt suffix is stripped).
            skip_mismatch (bool): skip (with a warning) parameters missing from the file or
                of another shape, instead of raising ValueError. Default False.
            reset_optimizer (bool): do not load the optimizer state. Default False.
        """
        base, ext = os.path.splitext(path)
        if ext in (".pdparams", ".pdopt", ".pdmodel"):
            path = base
        if not os.path.exists(path + ".pdparams"):
            raise AssertionError(f"paddle.Model.load: Failed to load parameters, please "
                                 f"check path ({path}.pdparams does not exist)")  # as Paddle
        state = _load(path + ".pdparams")
        matched = []
        for key, param in self.network.state_dict().items():
            try:
                matched.append((param, _match(state, key, param)))
            except ValueError as err:
                if not skip_mismatch:
                    raise
                warnings.warn(f"Skip loading for {key}. {err}")
                reset_optimizer = True
        for param, value in matched:
            param.set_value(value)
        if self._optimizer is not None and not reset_optimizer \
                and os.path.exists(path + ".pdopt"):
            self._optimizer.set_state_dict(_load(path + ".pdopt"))

    def summary(self, input_size=None, dtype=None) -> dict:
        """paddle.summary of the network for input_size (default: the Model's inputs)."""
        if input_size is None and not self._inputs:
            raise ValueError("paddle.Model.summary: 'input_size' or 'self._input' must be set")
        from .model_summary import summary
        return summary(self.network, input_size if input_size is not None else self._inputs,
                       dtypes=dtype)


def _match(state: dict, key: str, param):
    value = state.get(key)
    if value is None:
        raise ValueError(f"{key} is not found in the providing file.")
    if list(np.shape(value)) != list(param.shape):
        raise ValueError(f"{key} receives a shape {list(np.shape(value))}, but the expected "
                         f"shape is {list(param.shape)}.")
    return value


def _batch_sizes(batch_size) -> tuple:
    if isinstance(batch_size, (list, tuple)):
        if len(batch_size) != 2 or not all(isinstance(b, int) for b in batch_size):
            raise ValueError("paddle.Model.fit: batch_size length error, expected "
                             "train_batch_size and eval_batch_size.")
        return tuple(batch_size)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"paddle.Model.fit: batch_size must be a positive int or a pair, "
                         f"got {batch_size!r}")
    return batch_size, batch_size


def _amp_level(amp_configs) -> str:
    if not amp_configs:
        return "O0"
    if isinstance(amp_configs, str):
        level = amp_configs
    elif isinstance(amp_configs, dict):
        level = amp_configs.get("level", "O1")
    else:
        raise TypeError(f"paddle.Model.prepare: amp_configs must be a str or dict, got "
                        f"{type(amp_configs).__name__}")
    if level not in _AMP_LEVELS:
        raise ValueError("The level of amp_configs should be 'O0', 'O1' or 'O2'.")
    return level


_AMP_SCALER_KEYS = {"init_loss_scaling", "incr_ratio", "decr_ratio", "incr_every_n_steps",
                    "decr_every_n_nan_or_inf", "use_dynamic_loss_scaling"}


def _amp_settings(amp_configs, level: str) -> dict:
    """{'dtype', 'lists' (auto_cast custom lists), 'scaler' (GradScaler kwargs)}."""
    conf = dict(amp_configs) if isinstance(amp_configs, dict) else {}
    conf.pop("level", None)
    lists = {k: conf.pop(k) for k in ("custom_white_list", "custom_black_list") if k in conf}
    dtype = conf.pop("dtype", "float16")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"paddle.Model.prepare: amp_configs['dtype'] must be 'float16' or "
                         f"'bfloat16', got {dtype!r}")
    if "use_fp16_guard" in conf:
        raise ValueError("'use_fp16_guard' is supported in static graph mode only.")
    unknown = set(conf) - _AMP_SCALER_KEYS
    if unknown and level != "O0":
        raise ValueError(f"Except for 'level', the keys of 'amp_configs' must be accepted by "
                         f"mixed precision APIs, but {tuple(sorted(unknown))} could not be "
                         f"recognized.")
    return {"dtype": dtype, "lists": lists, "scaler": conf}
