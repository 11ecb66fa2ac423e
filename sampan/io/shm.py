"""Shared-memory transport of collated batches between DataLoader workers and the main
process. Imports nothing from sampan.

A worker packs every NumPy array of a batch into one `multiprocessing.shared_memory`
segment and sends only a small descriptor through the result queue; the main process
copies the arrays out and unlinks the segment at once. Segment names carry the main
process id and an iterator token, so the main process can sweep segments that were
created but never delivered (a worker killed mid-batch, a loader shut down early).
"""
from __future__ import annotations

import glob
import mmap
import os
from multiprocessing import resource_tracker, shared_memory
from typing import Any

import numpy as np

_ALIGN = 64
_SHM_DIR = "/dev/shm"


def segment_prefix(main_pid: int, token: int) -> str:
    """Name prefix of every segment created for one DataLoader iterator."""
    return f"spio{main_pid}_{token}_"


class _ArrayRef:
    """Where one array lives inside a segment."""

    __slots__ = ("offset", "shape", "dtype")

    def __init__(self, offset: int, shape: tuple, dtype: np.dtype) -> None:
        self.offset = offset
        self.shape = shape
        self.dtype = dtype


class ShmBatch:
    """A batch whose arrays were moved into the shared-memory segment `name`."""

    __slots__ = ("name", "size", "tree")

    def __init__(self, name: str, size: int, tree: Any) -> None:
        self.name = name
        self.size = size
        self.tree = tree


def _arrays(tree: Any, out: list) -> None:
    if isinstance(tree, np.ndarray):
        if tree.dtype.kind not in "OUSV":
            out.append(tree)
    elif isinstance(tree, dict):
        for v in tree.values():
            _arrays(v, out)
    elif isinstance(tree, (list, tuple)):
        for v in tree:
            _arrays(v, out)


def _replace(tree: Any, refs: dict) -> Any:
    if isinstance(tree, np.ndarray):
        return refs.get(id(tree), tree)
    if isinstance(tree, dict):
        return {k: _replace(v, refs) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [_replace(v, refs) for v in tree]
    return tree


def pack(tree: Any, name: str) -> Any:
    """Copy the arrays of `tree` into a new segment `name`; return a `ShmBatch` (or `tree`
    unchanged when it holds no array data)."""
    arrays: list = []
    _arrays(tree, arrays)
    layout, offset = {}, 0
    for arr in arrays:
        if id(arr) not in layout:
            layout[id(arr)] = (arr, offset)
            offset += (arr.nbytes + _ALIGN - 1) // _ALIGN * _ALIGN
    if offset == 0:
        return tree
    seg = shared_memory.SharedMemory(name=name, create=True, size=offset)
    try:
        refs = {}
        for key, (arr, start) in layout.items():
            view = np.ndarray(arr.shape, dtype=arr.dtype, buffer=seg.buf, offset=start)
            view[...] = arr
            del view
            refs[key] = _ArrayRef(start, arr.shape, arr.dtype)
        return ShmBatch(name, offset, _replace(tree, refs))
    except BaseException:
        seg.close()
        seg.unlink()
        raise
    finally:
        seg.close()


def _restore(tree: Any, buf, copy: bool) -> Any:
    if isinstance(tree, _ArrayRef):
        view = np.ndarray(tree.shape, dtype=tree.dtype, buffer=buf, offset=tree.offset)
        if not copy:
            return view
        out = view.copy()
        del view
        return out
    if isinstance(tree, dict):
        return {k: _restore(v, buf, copy) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_restore(v, buf, copy) for v in tree]
    return tree


def _adopt(name: str, size: int) -> mmap.mmap:
    """Map segment `name` and unlink it at once: the mapping (and so the arrays viewing it)
    stays valid until garbage-collected, and nothing is left behind in /dev/shm."""
    path = os.path.join(_SHM_DIR, name)
    fd = os.open(path, os.O_RDWR)
    try:
        buf = mmap.mmap(fd, size)
    finally:
        os.close(fd)
    os.unlink(path)
    # The creating worker registered the segment with the (shared) resource tracker.
    resource_tracker.unregister("/" + name, "shared_memory")
    return buf


def unpack(batch: Any) -> Any:
    """The arrays of a `ShmBatch`, with its segment unlinked. On Linux the arrays view the
    shared pages directly (no copy); elsewhere they are copied out."""
    if not isinstance(batch, ShmBatch):
        return batch
    if os.path.isdir(_SHM_DIR):
        return _restore(batch.tree, _adopt(batch.name, batch.size), copy=False)
    seg = shared_memory.SharedMemory(name=batch.name)
    try:
        return _restore(batch.tree, seg.buf, copy=True)
    finally:
        seg.close()
        seg.unlink()


def release(batch: Any) -> None:
    """Unlink the segment of a batch that will not be used (stale epoch, shutdown)."""
    if isinstance(batch, ShmBatch):
        unlink_name(batch.name)


def unlink_name(name: str) -> None:
    try:
        seg = shared_memory.SharedMemory(name=name)
    except (FileNotFoundError, OSError):
        return
    seg.close()
    try:
        seg.unlink()
    except FileNotFoundError:
        pass


def sweep(prefix: str) -> int:
    """Unlink every segment whose name starts with `prefix`; return how many were found."""
    if not os.path.isdir(_SHM_DIR):
        return 0
    names = [os.path.basename(p) for p in glob.glob(os.path.join(_SHM_DIR, prefix + "*"))]
    for name in names:
        unlink_name(name)
    return len(names)
