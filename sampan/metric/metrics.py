"""paddle.metric: the Metric base class, Accuracy, Precision, Recall, Auc and accuracy().

Metrics keep running statistics in NumPy (as Paddle does) and read Tensors through
`.numpy()`. `accuracy()` computes in ops (static.metrics.top_k_accuracy), so it also
works on static Variables inside a Program. Imports `framework`, `tensor` and `static`.
"""
from __future__ import annotations

import abc
from typing import Any, Sequence

import numpy as np

from .. import tensor as T
from ..framework.tensor import Tensor, is_variable
from ..static.metrics import top_k_accuracy

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]


def _as_numpy(api: str, arg: str, value) -> np.ndarray:
    """A Tensor or NumPy value as an ndarray; anything else is refused like Paddle does."""
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value)
    raise ValueError(f"The '{arg}' must be a numpy ndarray or Tensor. "
                     f"({api} got {type(value).__name__})")


class Metric(metaclass=abc.ABCMeta):
    """Base class of the metrics used by `paddle.Model`.

    A metric defines `reset()`, `update(*args)`, `accumulate()` and `name()`; it may also
    define `compute(*args)`, which turns the network outputs and labels into what `update`
    takes (run on Tensors, per batch; by default it returns its arguments unchanged).
    `paddle.Model` calls `update(*[np.ndarray of compute's outputs])` once per batch.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> class Mean(paddle.metric.Metric):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.reset()
        ...     def reset(self):
        ...         self.total, self.count = 0.0, 0
        ...     def update(self, values):
        ...         self.total += float(np.sum(values))
        ...         self.count += np.size(values)
        ...     def accumulate(self):
        ...         return self.total / max(self.count, 1)
        ...     def name(self):
        ...         return "mean"
        >>> m = Mean()
        >>> m.update(np.array([1.0, 2.0, 6.0]))
        >>> m.accumulate()
        3.0
    """

    def __init__(self) -> None:
        pass

    @abc.abstractmethod
    def reset(self) -> None:
        """Clear the running statistics."""
        raise NotImplementedError(f"function 'reset' not implemented in "
                                  f"{type(self).__name__}.")

    @abc.abstractmethod
    def update(self, *args: Any) -> Any:
        """Add one batch (NumPy arrays) to the running statistics."""
        raise NotImplementedError(f"function 'update' not implemented in "
                                  f"{type(self).__name__}.")

    @abc.abstractmethod
    def accumulate(self) -> Any:
        """The metric over everything seen since the last reset."""
        raise NotImplementedError(f"function 'accumulate' not implemented in "
                                  f"{type(self).__name__}.")

    @abc.abstractmethod
    def name(self) -> Any:
        """The metric's name (a str, or a list of str for several values)."""
        raise NotImplementedError(f"function 'name' not implemented in "
                                  f"{type(self).__name__}.")

    def compute(self, *args: Any) -> Any:
        """Preprocess a batch (Tensors) before `update`; the default returns `args`."""
        return args


class Accuracy(Metric):
    """Top-k classification accuracy, one value per k in `topk`.

    Args:
        topk (list|tuple of int): the k's to report. Default (1,).
        name (str, optional): base name; "acc" by default. With a largest k above 1 the
            names are "<name>_top<k>".

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> x = paddle.to_tensor(np.array([[0.1, 0.2, 0.3, 0.4], [0.1, 0.4, 0.3, 0.2],
        ...                                [0.1, 0.2, 0.4, 0.3], [0.1, 0.2, 0.3, 0.4]]))
        >>> y = paddle.to_tensor(np.array([[0], [1], [2], [3]]))
        >>> m = paddle.metric.Accuracy()
        >>> m.update(m.compute(x, y))
        np.float64(0.75)
        >>> m.accumulate()
        np.float64(0.75)
    """

    def __init__(self, topk: Sequence[int] = (1,), name: str | None = None, *args: Any,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        topk = tuple(topk) if isinstance(topk, (list, tuple)) else (topk,)
        if not topk or any(isinstance(k, bool) or not isinstance(k, int) or k < 1
                           for k in topk):
            raise ValueError(f"Accuracy: topk must be positive ints, got {topk!r}")
        self.topk = topk
        self.maxk = max(topk)
        self._init_name(name)
        self.reset()

    def compute(self, pred: Tensor, label: Tensor, *args: Any) -> Tensor:
        """[..., maxk] float32: 1 where the i-th best prediction equals the label.

        `label` holds class indices ([N] or [N, 1]) or one-hot / soft rows ([N, C]).
        """
        idx = T.argsort(pred, axis=-1, descending=True)[..., :self.maxk]
        shape = list(label.shape)
        if len(shape) == 1 or (len(shape) == 2 and shape[-1] == 1):
            label = T.reshape(label, [-1, 1])
        elif shape[-1] != 1:
            label = T.argmax(label, axis=-1, keepdim=True)
        return T.cast(idx == T.cast(label, idx.dtype), "float32")

    def update(self, correct, *args: Any):
        """Add a batch of `compute` results; returns this batch's accuracy (list per k)."""
        correct = _as_numpy("Accuracy.update", "correct", correct)
        # numpy counts, as Paddle's: the accuracies come back as np.float64
        num_samples = np.prod(np.array(correct.shape[:-1], dtype=np.int64))
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = float(correct[..., :k].sum())
            accs.append(num_corrects / num_samples if num_samples else np.float64(0.0))
            self.total[i] += num_corrects
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self) -> None:
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        """Accuracy over all updates since reset: a float, or a list for several k."""
        res = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def _init_name(self, name: str | None) -> None:
        name = name or "acc"
        self._name = [f"{name}_top{k}" for k in self.topk] if self.maxk != 1 else [name]

    def name(self) -> list:
        return self._name


class Precision(Metric):
    """Binary precision tp / (tp + fp); predictions are rounded at 0.5 (floor(p + 0.5)).

    Args:
        name (str): the metric name. Default "precision".

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> m = paddle.metric.Precision()
        >>> m.update(np.array([0.1, 0.5, 0.6, 0.7]), np.array([0, 1, 1, 0]))
        >>> m.accumulate()
        0.6666666666666666
    """

    def __init__(self, name: str = "precision", *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fp = 0
        self._name = name

    def update(self, preds, labels) -> None:
        """preds: [N] or [N, 1] probabilities; labels: [N] or [N, 1] in {0, 1}."""
        preds = _as_numpy("Precision.update", "preds", preds)
        labels = _as_numpy("Precision.update", "labels", labels)
        n = labels.shape[0]
        pred = np.floor(preds + 0.5).astype("int32").reshape(n, -1)[:, 0]
        label = labels.reshape(n, -1)[:, 0]
        positive = pred == 1
        self.tp += int(np.sum(positive & (label == 1)))
        self.fp += int(np.sum(positive & (label != 1)))

    def reset(self) -> None:
        self.tp = 0
        self.fp = 0

    def accumulate(self) -> float:
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0

    def name(self) -> str:
        return self._name


class Recall(Metric):
    """Binary recall tp / (tp + fn); predictions are rounded half-to-even (np.rint).

    Args:
        name (str): the metric name. Default "recall".

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> m = paddle.metric.Recall()
        >>> m.update(np.array([0.1, 0.5, 0.6, 0.7]), np.array([1, 0, 1, 1]))
        >>> m.accumulate()
        0.6666666666666666
    """

    def __init__(self, name: str = "recall", *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fn = 0
        self._name = name

    def update(self, preds, labels) -> None:
        """preds: [N] or [N, 1] probabilities; labels: [N] or [N, 1] in {0, 1}."""
        preds = _as_numpy("Recall.update", "preds", preds)
        labels = _as_numpy("Recall.update", "labels", labels)
        n = labels.shape[0]
        pred = np.rint(preds).astype("int32").reshape(n, -1)[:, 0]
        label = labels.reshape(n, -1)[:, 0]
        actual = label == 1
        self.tp += int(np.sum(actual & (pred == 1)))
        self.fn += int(np.sum(actual & (pred != 1)))

    def accumulate(self) -> float:
        total = self.tp + self.fn
        return float(self.tp) / total if total != 0 else 0.0

    def reset(self) -> None:
        self.tp = 0
        self.fn = 0

    def name(self) -> str:
        return self._name


class Auc(Metric):
    """Area under the ROC curve from bucketed scores (Paddle's algorithm).

    The positive-class score preds[:, 1] goes to bucket int(score * num_thresholds); the
    area is the trapezoid sum over buckets from the highest down. `curve` is stored but,
    as in Paddle, only the ROC area is computed.

    Args:
        curve (str): "ROC" or "PR". Default "ROC".
        num_thresholds (int): the number of buckets minus one. Default 4095.
        name (str): the metric name. Default "auc".

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> m = paddle.metric.Auc()
        >>> preds = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
        >>> m.update(preds, np.array([[0], [1], [1], [0]]))
        >>> m.accumulate()
        0.75
    """

    def __init__(self, curve: str = "ROC", num_thresholds: int = 4095, name: str = "auc",
                 *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int) \
                or num_thresholds < 1:
            raise ValueError(f"Auc: num_thresholds must be a positive int, got "
                             f"{num_thresholds!r}")
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._name = name
        self.reset()

    def update(self, preds, labels) -> None:
        """preds: [N, 2] class probabilities; labels: [N] or [N, 1] in {0, 1}."""
        labels = _as_numpy("Auc.update", "labels", labels)
        preds = _as_numpy("Auc.update", "preds", preds)
        if preds.ndim != 2 or preds.shape[1] < 2:
            raise ValueError(f"Auc.update: preds must be [N, 2] probabilities, got shape "
                             f"{list(preds.shape)}")
        n = labels.shape[0]
        bins = (preds[:n, 1] * self._num_thresholds).astype(np.int64)
        if bins.size and (bins.max() > self._num_thresholds or bins.min() < 0):
            raise ValueError("Auc.update: preds must lie in [0, 1]")
        positive = labels.reshape(n, -1)[:, 0].astype(bool)
        size = self._num_thresholds + 1
        self._stat_pos += np.bincount(bins[positive], minlength=size)
        self._stat_neg += np.bincount(bins[~positive], minlength=size)

    @staticmethod
    def trapezoid_area(x1: float, x2: float, y1: float, y2: float) -> float:
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self) -> float:
        """The area, from the highest score bucket down; 0.0 without both classes."""
        pos = np.cumsum(self._stat_pos[::-1])
        neg = np.cumsum(self._stat_neg[::-1])
        pos_prev = np.concatenate([[0.0], pos[:-1]])
        neg_prev = np.concatenate([[0.0], neg[:-1]])
        auc = float(np.sum(np.abs(neg - neg_prev) * (pos + pos_prev) / 2.0))
        tot_pos, tot_neg = pos[-1], neg[-1]
        return float(auc / tot_pos / tot_neg) if tot_pos > 0.0 and tot_neg > 0.0 else 0.0

    def reset(self) -> None:
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self) -> str:
        return self._name


def accuracy(input: Tensor, label: Tensor, k: int = 1, correct: Tensor | None = None,
             total: Tensor | None = None, name: str | None = None) -> Tensor:
    """Top-k accuracy of a batch: the fraction of rows whose label is among the k best.

    Args:
        input (Tensor): [N, C] float scores.
        label (Tensor): [N, 1] integer class indices.
        k (int): how many of the top scores count. Default 1.
        correct (Tensor, optional): int32 tensor written with the number of correct rows.
        total (Tensor, optional): int32 tensor written with N.
        name (str, optional): unused, for Paddle compatibility.

    Returns:
        Tensor: 0-D float32 accuracy.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
        >>> y = paddle.to_tensor([[1], [1], [0]])
        >>> float(paddle.metric.accuracy(x, y))
        0.3333333432674408
    """
    api = "paddle.metric.accuracy"
    for arg, value in (("input", input), ("label", label)):
        if not isinstance(value, Tensor) and not is_variable(value):
            raise TypeError(f"{api}: {arg} must be a Tensor, got {type(value).__name__}")
    if len(label.shape) != 2 or label.shape[1] != 1:
        raise ValueError(f"{api}: label must be 2-D [N, 1], got shape {list(label.shape)}")
    return top_k_accuracy(api, input, label, k, correct, total)
