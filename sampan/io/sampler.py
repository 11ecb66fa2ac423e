"""Index samplers (`paddle.io.Sampler` and subclasses): which sample indices, in what order.

Randomness comes from NumPy generators seeded by `framework.random.next_seed()` at each
`__iter__`, so `paddle.seed(n)` makes every epoch's order reproducible. Imports framework only.
"""
from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from ..framework import random as _random
from ..framework.tensor import Tensor
from .dataset import _expect


def _numpy_rng(generator: Any = None) -> np.random.Generator:
    """A NumPy generator for one epoch: the given one, or one seeded from the global stream."""
    if isinstance(generator, np.random.Generator):
        return generator
    if generator is not None and hasattr(generator, "next_seed"):
        return _random.rng(generator.next_seed())
    return _random.rng(_random.next_seed())


class Sampler:
    """Base class of samplers: `__iter__` yields dataset indices; `__len__` is optional.

    Args:
        data_source (Dataset, optional): the dataset to sample from. Default None.

    Examples:
        >>> from sampan.io import Sampler
        >>> class Evens(Sampler):
        ...     def __iter__(self):
        ...         return iter(range(0, len(self.data_source), 2))
        >>> list(Evens(range(5)))
        [0, 2, 4]
    """

    def __init__(self, data_source: Any = None) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError(f"'{type(self).__name__}' does not implement __iter__")


class SequenceSampler(Sampler):
    """Yield `0, 1, ..., len(data_source) - 1` in order.

    Examples:
        >>> from sampan.io import SequenceSampler
        >>> list(SequenceSampler(range(3)))
        [0, 1, 2]
    """

    def __init__(self, data_source: Any) -> None:
        super().__init__(data_source)

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """Yield dataset indices in random order (a permutation, or draws with replacement).

    Args:
        data_source (Dataset): the dataset to sample from.
        replacement (bool, optional): draw with replacement. Default False.
        num_samples (int, optional): how many indices to draw (without replacement, at most
            len(data_source): the first num_samples of a permutation).
            Default None (the dataset length).
        generator (optional): an iterator of indices to yield instead of random ones (as in
            Paddle), or a `numpy.random.Generator` / sampan `Generator` to draw from.
            Default None: the global generator (reproducible after `paddle.seed`).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.io import RandomSampler
        >>> _ = paddle.seed(1)
        >>> sorted(RandomSampler(range(5)))
        [0, 1, 2, 3, 4]
    """

    def __init__(self, data_source: Any, replacement: bool = False,
                 num_samples: int | None = None, generator: Any = None) -> None:
        super().__init__(data_source)
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: expect boolean value for replacement, but got "
                            f"replacement={replacement}")
        if num_samples is not None and not replacement and \
                isinstance(num_samples, int) and num_samples > len(data_source):
            raise ValueError(f"RandomSampler: num_samples should be smaller than or equal to "
                             f"length of data_source when replacement is False, but got "
                             f"num_samples: {num_samples} > data_source: {len(data_source)}")
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        n = self.num_samples
        if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
            raise ValueError(f"RandomSampler: num_samples should be a positive integer, but "
                             f"got num_samples={n}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        gen = self.generator
        if gen is not None and not isinstance(gen, np.random.Generator) and \
                not hasattr(gen, "next_seed"):
            for _ in range(self.num_samples):
                try:
                    yield next(gen)
                except StopIteration:
                    return
            return
        rng = _numpy_rng(gen)
        n = len(self.data_source)
        if self.replacement:
            yield from rng.integers(0, n, size=self.num_samples).tolist()
        else:  # without replacement: the first num_samples of a permutation (Paddle 3)
            yield from rng.permutation(n)[:self.num_samples].tolist()

    def __len__(self) -> int:
        return self.num_samples


def _as_numpy(values) -> np.ndarray:
    if isinstance(values, Tensor):
        return np.asarray(values._data)
    return np.asarray(values)


class WeightedRandomSampler(Sampler):
    """Draw `num_samples` indices with probability proportional to `weights`.

    Args:
        weights (sequence|ndarray|Tensor): 1-D non-negative weights, one per sample.
        num_samples (int): number of indices to draw.
        replacement (bool, optional): draw with replacement. Default True.

    Examples:
        >>> from sampan.io import WeightedRandomSampler
        >>> list(WeightedRandomSampler([0.0, 1.0, 0.0], 3))
        [1, 1, 1]
    """

    def __init__(self, weights: Sequence[float], num_samples: int,
                 replacement: bool = True) -> None:
        super().__init__(None)
        w = _as_numpy(weights).astype(np.float64)
        if w.ndim != 1:
            raise ValueError(f"WeightedRandomSampler: weights should be a 1-D array, got "
                             f"shape {list(w.shape)}")
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or \
                num_samples <= 0:
            raise ValueError(f"WeightedRandomSampler: num_samples should be a positive "
                             f"integer, but got {num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"WeightedRandomSampler: replacement should be a boolean value, "
                             f"but got {replacement}")
        if not replacement and num_samples > len(w):
            raise ValueError(f"WeightedRandomSampler: num_samples ({num_samples}) should be "
                             f"no more than the number of weights ({len(w)}) when "
                             f"replacement is False")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement

    def __iter__(self) -> Iterator[int]:
        # the weights' values are checked when sampling starts, as in Paddle (it asserts)
        w = self.weights
        if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise _WeightsError("WeightedRandomSampler: weights should be finite, "
                                "non-negative and not all zero")
        if not self.replacement and np.count_nonzero(w) < self.num_samples:
            raise _WeightsError("WeightedRandomSampler: fewer non-zero weights than "
                                "num_samples with replacement=False")
        p = self.weights / self.weights.sum()
        rng = _numpy_rng()
        idx = rng.choice(len(p), self.num_samples, replace=self.replacement, p=p)
        return iter(idx.tolist())

    def __len__(self) -> int:
        return self.num_samples


class _WeightsError(AssertionError, ValueError):
    """Bad sampling weights: Paddle asserts when iteration starts."""


class SubsetRandomSampler(Sampler):
    """Yield the given indices in a random order (a fresh permutation every epoch).

    Args:
        indices (sequence): the indices to sample from.

    Examples:
        >>> from sampan.io import SubsetRandomSampler
        >>> sorted(SubsetRandomSampler([7, 3, 5]))
        [3, 5, 7]
    """

    def __init__(self, indices: Sequence[int]) -> None:
        super().__init__(None)
        if len(indices) == 0:
            raise ValueError("SubsetRandomSampler: the length of `indices` should be "
                             "greater than 0")
        self.indices = indices

    def __iter__(self) -> Iterator[int]:
        perm = _numpy_rng().permutation(len(self.indices))
        for i in perm.tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)
