"""Tensor methods for the other tensor kinds Paddle folds into one Tensor class: sparse
accessors (indices, values, nnz, coalesce, crows, cols), SelectedRows (rows,
get_selected_rows), vocabulary and string holders (set_vocab, get_map_tensor,
set_string_list), distributed views (process_mesh, placements, dist_attr, num_shard,
is_dist), grad_ and reconstruct_from_. Bound onto Tensor by tensor/__init__.py from METHODS
and PROPERTIES. Imports `framework` only.

A dense Tensor answers the sparse and SelectedRows accessors with Paddle's errors; sparse
tensors (sampan.sparse) define their own. Distributed state is the `_dist_attr` record that
paddle.distributed.shard_tensor attaches (None on an ordinary tensor).
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor


def _only(kind: str, method: str, error=SystemError):
    def refuse(self, *args, **kwargs):
        raise error(f"Tensor.{method}: this method is only effective for {kind}; got a dense "
                    f"Tensor of shape {list(self.shape)}")
    refuse.__name__ = refuse.__qualname__ = method
    refuse.__doc__ = f"Only for {kind}: a dense Tensor raises {error.__name__} (as in Paddle)."
    return refuse


def get_selected_rows(self):
    """The SelectedRows this tensor holds: None for a dense Tensor (as in Paddle)."""
    return None


def set_vocab(self, vocab: dict) -> None:
    """Make this tensor hold a vocabulary {token: id} (Paddle's Vocab tensor, read back with
    get_map_tensor). Keys must be str and values int."""
    if not isinstance(vocab, dict):
        raise TypeError(f"Tensor.set_vocab: vocab must be a dict of str -> int, got "
                        f"{type(vocab).__name__}")
    for key, value in vocab.items():
        if not isinstance(key, str) or isinstance(value, bool) or \
                not isinstance(value, (int, np.integer)):
            raise TypeError(f"Tensor.set_vocab: vocab must map str to int, got the entry "
                            f"{key!r}: {value!r}")
    self._vocab = {key: int(value) for key, value in vocab.items()}


def get_map_tensor(self) -> dict:
    """The vocabulary set by set_vocab, as a dict {token: id}."""
    vocab = getattr(self, "_vocab", None)
    if vocab is None:
        raise SystemError("Tensor.get_map_tensor: this method is only effective for a "
                          "vocabulary tensor (one given a dict with set_vocab)")
    return dict(vocab)


def set_string_list(self, strings) -> None:
    """Make this tensor hold a list of strings (Paddle's string-list tensor, the input of
    tokenizer ops); read it back with `_string_list`."""
    if not isinstance(strings, (list, tuple)) or \
            not all(isinstance(s, str) for s in strings):
        raise TypeError(f"Tensor.set_string_list: expected a list of str, got "
                        f"{type(strings).__name__}"
                        + ("" if not isinstance(strings, (list, tuple)) else
                           f" holding {sorted({type(s).__name__ for s in strings})}"))
    self._string_list = list(strings)


def reconstruct_from_(self, other: Tensor) -> None:
    """Make `self` a deep copy of `other` (values, dtype, shape and stop_gradient), in place.

    Examples:
        >>> import sampan as paddle
        >>> t1 = paddle.to_tensor([1.0], stop_gradient=False)
        >>> t2 = paddle.to_tensor([2.0], stop_gradient=True)
        >>> t1.reconstruct_from_(t2)
        >>> t1
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2.])
    """
    if not isinstance(other, Tensor):
        raise TypeError(f"Tensor.reconstruct_from_: other must be a Tensor, got "
                        f"{type(other).__name__}")
    self._data = other._data.copy()
    self.stop_gradient = other.stop_gradient
    self._version += 1


def _dist_part(field: str):
    def get(self):
        record = getattr(self, "_dist_attr", None)
        return None if record is None else getattr(record, field)
    return get


def _num_shard(self):
    """How many distinct pieces the global tensor is cut into (None: not distributed)."""
    record = getattr(self, "_dist_attr", None)
    if record is None:
        return None
    count = 1
    for size, placement in zip(record.process_mesh.shape, record.placements):
        if placement.is_shard():
            count *= size
    return count


def is_dist(self) -> bool:
    """Whether this is a distributed tensor (made by paddle.distributed.shard_tensor)."""
    return getattr(self, "_dist_attr", None) is not None


def _get_grad_(self):
    return self.grad


def _set_grad_(self, value) -> None:
    self.grad = value


METHODS = {
    "indices": _only("SparseCooTensor", "indices"),
    "crows": _only("SparseCsrTensor", "crows"),
    "cols": _only("SparseCsrTensor", "cols"),
    "nnz": _only("SparseCooTensor or SparseCsrTensor", "nnz"),
    "values": _only("SparseCooTensor or SparseCsrTensor", "values", NotImplementedError),
    "coalesce": _only("SparseCooTensor", "coalesce", NotImplementedError),
    "rows": _only("SelectedRows", "rows"),
    "get_selected_rows": get_selected_rows, "set_vocab": set_vocab,
    "get_map_tensor": get_map_tensor, "set_string_list": set_string_list,
    "reconstruct_from_": reconstruct_from_, "is_dist": is_dist,
}
PROPERTIES = {
    "grad_": property(_get_grad_, _set_grad_, doc="The gradient Tensor (same as grad)."),
    "process_mesh": property(_dist_part("process_mesh"),
                             doc="The ProcessMesh of a distributed tensor, else None."),
    "placements": property(_dist_part("placements"),
                           doc="The placements of a distributed tensor, else None."),
    "dist_attr": property(_dist_part("dist_attr"),
                          doc="The DistAttr of a distributed tensor, else None."),
    "num_shard": property(_num_shard, doc=_num_shard.__doc__),
}
