"""LoD tensors in static Programs: LoDTensor, create_lod_tensor and the companion variables.

A Variable `x` with lod_level k has k int64 offsets companions in its block: `x@LOD` is the
finest level (offsets into the rows of x) and `x@LOD0` ... `x@LOD{k-2}` the outer levels
(level 0 first). The Executor feeds a LoDTensor as the data plus one array per level and,
with return_numpy=False, fetches a LoD variable back as a LoDTensor. Imports `framework`,
`ops` and `static.program`.
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..ops.sequence import check_lod

LOD_SUFFIX = "@LOD"


def lod_names(name: str, levels: int) -> list:
    """The companion names of the `levels` LoD levels of `name`, outermost first."""
    if levels <= 0:
        return []
    return [f"{name}{LOD_SUFFIX}{i}" for i in range(levels - 1)] + [name + LOD_SUFFIX]


def lod_level_of(block, name: str) -> int:
    """How many LoD levels the variable `name` carries in `block` (0: none)."""
    if not block.has_var(name + LOD_SUFFIX):
        return 0
    level = 1
    while block.has_var(f"{name}{LOD_SUFFIX}{level - 1}"):
        level += 1
    return level


def with_lods(block, names: list) -> list:
    """`names` followed by the LoD companions of those that have them (what a pruning pass
    must keep so that a fetched LoD variable keeps its LoD)."""
    return list(names) + [n for name in names for n in lod_names(name, lod_level_of(block, name))
                          if n not in names]


def _lengths_to_offsets(lengths) -> list:
    return [np.concatenate([[0], np.cumsum(np.asarray(lv, np.int64))]).astype(np.int64)
            .tolist() for lv in lengths]


class LoDTensor:
    """A dense array plus its LoD (`paddle.base.LoDTensor`, `paddle.base.core.LoDTensor`).

    The LoD is a list of offset levels, e.g. [[0, 2, 5]] for two sequences of lengths 2 and
    3; `set_recursive_sequence_lengths([[2, 3]])` sets the same LoD by lengths.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> t = paddle.base.LoDTensor()
        >>> t.set(np.arange(10, dtype="float32").reshape(5, 2), paddle.CPUPlace())
        >>> t.set_recursive_sequence_lengths([[2, 3]])
        >>> t.lod(), t.shape(), t.has_valid_recursive_sequence_lengths()
        ([[0, 2, 5]], [5, 2], True)
    """

    def __init__(self, array=None, lod=None) -> None:
        self._array = np.zeros((0,), np.float32) if array is None else np.asarray(array)
        self._lod = [list(level) for level in lod] if lod else []

    def set(self, array, place=None) -> None:
        """Copy `array` (ndarray, Tensor or LoDTensor) in as the data; the LoD stays."""
        if isinstance(array, LoDTensor):
            array = array._array
        self._array = np.array(array._data if isinstance(array, Tensor) else array)

    def set_lod(self, lod) -> None:
        """Set the LoD as offset levels ([[0, 2, 5]]); each must start at 0 and not
        decrease, as Paddle checks."""
        levels = [[int(v) for v in level] for level in lod]
        for level in levels:
            if not level or level[0] != 0 or any(b < a for a, b in zip(level, level[1:])):
                raise ValueError(f"LoDTensor.set_lod: each level must be offsets starting at "
                                 f"0 that never decrease, got {levels}")
        self._lod = levels

    def lod(self) -> list:
        return [list(level) for level in self._lod]

    def set_recursive_sequence_lengths(self, recursive_sequence_lengths) -> None:
        """Set the LoD by sequence lengths per level ([[2, 3]] is the LoD [[0, 2, 5]])."""
        for level in recursive_sequence_lengths:
            if any(int(n) < 0 for n in level):
                raise ValueError(f"LoDTensor.set_recursive_sequence_lengths: lengths must be "
                                 f">= 0, got {recursive_sequence_lengths}")
        self._lod = _lengths_to_offsets(recursive_sequence_lengths)

    def recursive_sequence_lengths(self) -> list:
        return [np.diff(level).tolist() for level in self._lod]

    def has_valid_recursive_sequence_lengths(self) -> bool:
        """Each level ends at the size of the next (the last at the row count)."""
        sizes = [len(level) - 1 for level in self._lod[1:]] + [
            self._array.shape[0] if self._array.ndim else 0]
        return all(level and level[0] == 0 and level[-1] == n and
                   all(b >= a for a, b in zip(level, level[1:]))
                   for level, n in zip(self._lod, sizes))

    def shape(self) -> list:
        return list(self._array.shape)

    def _dtype(self):
        return self._array.dtype

    def numpy(self) -> np.ndarray:
        return self._array

    def __array__(self, dtype=None, copy=None):
        return self._array if dtype is None else self._array.astype(dtype)

    def __len__(self) -> int:
        return len(self._array)

    def __repr__(self) -> str:
        return f"LoDTensor(shape={self.shape()}, lod={self._lod})\n{self._array}"


def create_lod_tensor(data, recursive_seq_lens, place=None) -> LoDTensor:
    """A LoDTensor from an ndarray, a LoDTensor or a list of sequences, with the LoD given as
    sequence lengths (`paddle.base.create_lod_tensor`). A list of int lists becomes an
    int64 [rows, 1] tensor with one sequence per list (its lengths must match).

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> t = paddle.base.create_lod_tensor(np.ones([5, 2], "float32"), [[2, 3]],
        ...                                   paddle.CPUPlace())
        >>> t.lod()
        [[0, 2, 5]]
        >>> paddle.base.create_lod_tensor([[1, 2], [3]], [[2, 1]], None).shape()
        [3, 1]
    """
    api = "create_lod_tensor"
    if isinstance(data, LoDTensor):
        data = data._array
    elif isinstance(data, list):
        lens = [len(seq) for seq in data]
        if [lens] != [list(level) for level in recursive_seq_lens][-1:]:
            raise ValueError(f"{api}: the lengths of the sequences in data {lens} must equal "
                             f"recursive_seq_lens {recursive_seq_lens}")
        data = np.concatenate([np.asarray(s, np.int64) for s in data] +
                              [np.zeros(0, np.int64)]).reshape(-1, 1)
    t = LoDTensor(np.array(data._data if isinstance(data, Tensor) else data))
    t.set_recursive_sequence_lengths(recursive_seq_lens)
    if not t.has_valid_recursive_sequence_lengths():
        raise ValueError(f"{api}: recursive_seq_lens {recursive_seq_lens} do not match data "
                         f"of shape {t.shape()}: each level must sum to the number of "
                         f"sequences of the next level (the last to the row count)")
    return t


def create_random_int_lodtensor(recursive_seq_lens, base_shape, place, low, high):
    """A LoDTensor of random ints in [low, high] with shape [rows] + base_shape
    (`paddle.base.create_random_int_lodtensor`; draws from NumPy's global generator)."""
    rows = int(sum(recursive_seq_lens[-1])) if recursive_seq_lens else 0
    data = np.random.randint(low, high + 1, [rows] + list(base_shape)).astype(np.int64)
    return create_lod_tensor(data, recursive_seq_lens, place)


# --- Executor feed and fetch -------------------------------------------------------------------

def split_feed(program, feed: dict) -> dict:
    """feed with every LoDTensor value replaced by its array plus one offsets array per LoD
    level the program's variable declares (`x@LOD`, ...)."""
    if not any(isinstance(v, LoDTensor) for v in feed.values()):
        return feed
    block = program.global_block()
    out = {}
    for name, value in feed.items():
        if not isinstance(value, LoDTensor):
            out[name] = value
            continue
        out[name] = value._array
        levels = lod_level_of(block, name)
        if not levels:
            continue
        lod = value._lod
        if len(lod) < levels:
            raise ValueError(f"Executor.run: feed {name!r} is declared with lod_level="
                             f"{levels} but the fed LoDTensor has {len(lod)} LoD level(s) "
                             f"{lod}")
        sizes = [len(level) - 1 for level in lod[1:]] + [value._array.shape[0]]
        for lname, level, n in zip(lod_names(name, levels), lod[-levels:], sizes[-levels:]):
            out[lname] = check_lod(f"Executor.run: feed {name!r}",
                                   np.asarray(level, np.int64), n)
    return out


def fetch_lods(program, fetch: list, return_numpy: bool) -> list:
    """For each fetched name, the names of its LoD companions ([] for none). With
    return_numpy=True a LoD variable cannot be fetched (as Paddle)."""
    block = program.global_block()
    out = []
    for name in fetch:
        levels = lod_level_of(block, name) if isinstance(name, str) else 0
        if levels and return_numpy:
            raise RuntimeError(f"Executor.run: the fetched variable {name!r} holds LoD "
                               f"information and cannot be returned as a numpy array; "
                               f"pass return_numpy=False to get a LoDTensor")
        out.append(lod_names(name, levels) if levels else [])
    return out


def attach_lods(outs: list, lods: list) -> list:
    """outs (fetched names + their companions appended at the end) as values, LoD ones as
    LoDTensors."""
    n = len(lods)
    extra = iter(outs[n:])
    result = []
    for value, names in zip(outs[:n], lods):
        if names:
            levels = [np.asarray(next(extra)).tolist() for _ in names]
            value = LoDTensor(np.asarray(value), levels)
        result.append(value)
    return result
