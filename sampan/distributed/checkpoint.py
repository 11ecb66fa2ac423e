"""paddle.distributed.save_state_dict / load_state_dict without sharding: every rank writes
its own state dict with paddle.save to `path/{rank}_{unique_id}.distcp` and reads back its
own file. No resharding across a different number of ranks and no ShardedWeight (sampan has
no auto-parallel)."""
from __future__ import annotations

import os

from ..framework.io import load, save
from .env import _group

__all__ = ["save_state_dict", "load_state_dict"]


def _file(api: str, state_dict, path, process_group, unique_id) -> str:
    if not isinstance(state_dict, dict):
        raise TypeError(f"{api}: state_dict must be a dict, got {type(state_dict).__name__}")
    if not isinstance(path, str) or not path:
        raise ValueError(f"{api}: path must be a non-empty str (a folder), got {path!r}")
    uid = 0 if unique_id is None else unique_id
    if not isinstance(uid, int) or isinstance(uid, bool) or uid < 0:
        raise ValueError(f"{api}: unique_id must be a non-negative int or None, got "
                         f"{unique_id!r}")
    rank = _group(api, process_group).rank
    return os.path.join(path, f"{rank}_{uid}.distcp")


def save_state_dict(state_dict, path: str, process_group=None, coordinator_rank: int = 0,
                    unique_id=None, async_save: bool = False, **kwargs) -> None:
    """Save this rank's `state_dict` (name -> Tensor) under the folder `path`.

    Args:
        state_dict (dict): the tensors to save.
        path (str): the folder (created if missing).
        process_group (Group, optional): the rank numbering; default all processes.
        coordinator_rank (int): accepted (no metadata file is written).
        unique_id (int, optional): the checkpoint number in the file name; default 0.
        async_save (bool): accepted; the save completes before returning.

    Examples:
        >>> import os, tempfile
        >>> import sampan as paddle
        >>> d = tempfile.mkdtemp()
        >>> paddle.distributed.save_state_dict({"w": paddle.ones([2])}, d)
        >>> os.listdir(d)
        ['0_0.distcp']
    """
    target = _file("save_state_dict", state_dict, path, process_group, unique_id)
    os.makedirs(path, exist_ok=True)
    save(state_dict, target)


def load_state_dict(state_dict, path: str, process_group=None, coordinator_rank: int = 0,
                    unique_id=None, offload: bool = False, **kwargs) -> None:
    """Load in place into the tensors of `state_dict` the values this rank saved with
    save_state_dict under `path`; a key missing from the file, or a shape that differs,
    raises naming the key."""
    api = "load_state_dict"
    source = _file(api, state_dict, path, process_group, unique_id)
    if not os.path.isfile(source):
        raise FileNotFoundError(f"{api}: no checkpoint {source!r} for this rank")
    saved = load(source)
    for key, tensor in state_dict.items():
        if key not in saved:
            raise KeyError(f"{api}: {key!r} is not in the checkpoint {source!r}")
        value = saved[key]
        if list(value.shape) != list(tensor.shape):
            raise ValueError(f"{api}: {key!r} has shape {list(value.shape)} in the "
                             f"checkpoint but {list(tensor.shape)} in state_dict")
        tensor.set_value(value)
