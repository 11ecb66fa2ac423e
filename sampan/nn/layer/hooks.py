"""Forward hooks of nn.Layer with Paddle 3.x's options: `prepend` (run before the hooks
already registered), `with_kwargs` (the hook sees and may replace forward's keyword
arguments) and, for post hooks, `always_call` (run even when forward raises, with outputs
None). The hook tables stay OrderedDicts id -> callable; the options of a hook live in the
layer's `_forward_hook_flags` (id -> (with_kwargs, always_call)). Imports nothing of sampan.
"""
from __future__ import annotations

from typing import Callable


def register(layer, table: dict, handle, hook: Callable, prepend: bool, with_kwargs: bool,
             always_call: bool = False) -> None:
    """Put `hook` in `table` under the handle's id, first when `prepend`."""
    if not callable(hook):
        raise TypeError(f"{type(layer).__name__}: a forward hook must be callable, got "
                        f"{type(hook).__name__}")
    table[handle._id] = hook
    if prepend:
        table.move_to_end(handle._id, last=False)
    if with_kwargs or always_call:
        layer.__dict__.setdefault("_forward_hook_flags", {})[handle._id] = (
            bool(with_kwargs), bool(always_call))


def run_pre(layer, table: dict, inputs: tuple, kwargs: dict) -> tuple:
    """Run the pre hooks; returns the (possibly replaced) inputs and kwargs."""
    flags = layer.__dict__.get("_forward_hook_flags", {})
    for key, hook in list(table.items()):
        if flags.get(key, (False, False))[0]:
            result = hook(layer, inputs, kwargs)
            if result is None:
                continue
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{type(layer).__name__}: a forward pre-hook registered "
                                   f"with with_kwargs=True must return None or a tuple "
                                   f"(args, kwargs), got {type(result).__name__}")
            inputs, kwargs = result
            inputs = inputs if isinstance(inputs, tuple) else (inputs,)
            continue
        result = hook(layer, inputs)
        if result is not None:
            inputs = result if isinstance(result, tuple) else (result,)
    return inputs, kwargs


def run_post(layer, table: dict, inputs: tuple, kwargs: dict, outputs, only_always=False):
    """Run the post hooks (only the always_call ones when forward raised)."""
    flags = layer.__dict__.get("_forward_hook_flags", {})
    for key, hook in list(table.items()):
        with_kwargs, always = flags.get(key, (False, False))
        if only_always and not always:
            continue
        if with_kwargs:
            result = hook(layer, inputs, kwargs, outputs)
        else:
            result = hook(layer, inputs, outputs)
        if result is not None:
            outputs = result
    return outputs


def has_always_call(layer, table: dict) -> bool:
    flags = layer.__dict__.get("_forward_hook_flags")
    return bool(flags) and any(flags.get(k, (0, 0))[1] for k in table)
