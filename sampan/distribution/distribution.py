"""The Distribution base class and the parameter helpers every distribution shares.

Everything is written in sampan tensor ops, so log_prob/rsample carry gradients and also build
static Programs. Imports `framework`, `tensor` (and `nn.functional` elsewhere in the package).
"""
from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence

import numpy as np

from .. import tensor as T
from ..autograd import no_grad
from ..framework.dtype import get_default_dtype
from ..framework.tensor import Tensor, is_tensor_or_variable

_FLOATS = ("float32", "float64")


def dtype_name(x: Tensor) -> str:
    return str(x.dtype).replace("paddle.", "")


def is_tensor(x) -> bool:
    """An eager Tensor or a static Variable."""
    return is_tensor_or_variable(x)


def to_params(api: str, names: Sequence[str], values: Sequence, dtype: str | None = None,
              broadcast: bool = True) -> list:
    """Turns numbers/lists/arrays/Tensors into float Tensors of one dtype, broadcast together.

    The dtype is that of the first Tensor argument, else float64 if a float64 ndarray is
    given, else `dtype` (the default float when None).
    """
    out_dtype = dtype
    for name, value in zip(names, values):
        if is_tensor(value):
            if dtype_name(value) not in _FLOATS:
                raise TypeError(f"{api}: {name} must be a float32 or float64 Tensor, got "
                                f"{dtype_name(value)}")
            out_dtype = out_dtype if dtype is not None else dtype_name(value)
            break
    else:
        if any(isinstance(v, np.ndarray) and v.dtype == np.float64 for v in values):
            out_dtype = "float64"
    out_dtype = out_dtype or get_default_dtype()
    tensors = [_as_tensor(api, n, v, out_dtype) for n, v in zip(names, values)]
    if broadcast and len(tensors) > 1:
        tensors = T.broadcast_tensors(tensors)
    return tensors


def _as_tensor(api: str, name: str, value, dtype: str) -> Tensor:
    if is_tensor(value):
        return value if dtype_name(value) == dtype else value.astype(dtype)
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, list, tuple, np.ndarray)):
        raise TypeError(f"{api}: {name} must be a float, list, tuple, numpy.ndarray or Tensor, "
                        f"got {type(value).__name__}")
    arr = np.asarray(value)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{api}: {name} must hold real numbers, got dtype {arr.dtype}")
    return T.to_tensor(arr.astype(dtype))


def sum_rightmost(value: Tensor, n: int) -> Tensor:
    """Sums the last n axes of value (n <= 0: value unchanged)."""
    return value.sum(list(range(-n, 0))) if n > 0 else value


def check_shape(api: str, shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if not isinstance(shape, Sequence) or isinstance(shape, str):
        raise TypeError(f"{api}: sample shape must be a list or tuple of ints, got "
                        f"{type(shape).__name__}")
    if not all(isinstance(s, numbers.Integral) and s >= 0 for s in shape):
        raise ValueError(f"{api}: sample shape must hold non-negative ints, got {list(shape)}")
    return tuple(int(s) for s in shape)


class Distribution:
    """The abstract base class for probability distributions.

    Args:
        batch_shape (Sequence[int], optional): shape of the batch of independent,
            not identically distributed distributions. Default: ().
        event_shape (Sequence[int], optional): shape of a single draw; [] for scalar
            distributions, [n] for an n-dimensional multivariate one. Default: ().

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Normal
        >>> d = Normal(paddle.zeros([2]), paddle.ones([2]))
        >>> d.batch_shape, d.event_shape
        ((2,), ())
    """

    def __init__(self, batch_shape: Sequence[int] = (), event_shape: Sequence[int] = ()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)

    @property
    def batch_shape(self) -> tuple:
        """The batch shape (a tuple)."""
        return self._batch_shape

    @property
    def event_shape(self) -> tuple:
        """The event shape (a tuple)."""
        return self._event_shape

    @property
    def mean(self) -> Tensor:
        """Mean of the distribution."""
        raise NotImplementedError(f"{type(self).__name__} has no mean")

    @property
    def variance(self) -> Tensor:
        """Variance of the distribution."""
        raise NotImplementedError(f"{type(self).__name__} has no variance")

    @property
    def stddev(self) -> Tensor:
        """Standard deviation (square root of the variance)."""
        return self.variance.sqrt()

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        """Draws samples of shape `shape + batch_shape + event_shape` (no gradient)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        """Reparameterized samples: gradients flow to the parameters."""
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized rsample")

    def entropy(self) -> Tensor:
        """Entropy of the distribution."""
        raise NotImplementedError(f"{type(self).__name__} has no entropy")

    def kl_divergence(self, other: Distribution) -> Tensor:
        """KL(self || other), through the `register_kl` table."""
        from .kl import kl_divergence
        return kl_divergence(self, other)

    def prob(self, value: Tensor) -> Tensor:
        """Probability density/mass at value: exp(log_prob(value))."""
        return self.log_prob(value).exp()

    def probs(self, value: Tensor) -> Tensor:
        """Same as prob (kept for Paddle compatibility)."""
        return self.prob(value)

    def log_prob(self, value: Tensor) -> Tensor:
        """Log probability density/mass at value."""
        raise NotImplementedError(f"{type(self).__name__} has no log_prob")

    def _extend_shape(self, sample_shape: Sequence[int]) -> tuple:
        shape = check_shape(f"{type(self).__name__}.sample", sample_shape)
        return shape + self._batch_shape + self._event_shape

    def _value(self, value, param: Tensor) -> Tensor:
        """value as a Tensor of param's dtype (Paddle warns and casts a float mismatch)."""
        api = f"{type(self).__name__}.log_prob"
        if not is_tensor(value):
            return _as_tensor(api, "value", value, dtype_name(param))
        if dtype_name(value) != dtype_name(param):
            if dtype_name(value) in _FLOATS:
                warnings.warn(f"{api}: value dtype {dtype_name(value)} differs from the "
                              f"parameters' {dtype_name(param)}; value is cast", stacklevel=3)
            value = value.astype(dtype_name(param))
        return value

    def _probs_to_logits(self, probs: Tensor, is_binary: bool = False) -> Tensor:
        return (probs.log() - (-probs).log1p()) if is_binary else probs.log()

    def _logits_to_probs(self, logits: Tensor, is_binary: bool = False) -> Tensor:
        from ..nn import functional as F
        return F.sigmoid(logits) if is_binary else F.softmax(logits, axis=-1)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(batch_shape={list(self._batch_shape)}, "
                f"event_shape={list(self._event_shape)})")
