"""amp.decorate: O2 casts model parameters to low precision (norm layers stay float32) and
gives the optimizers float32 master weights, so updates too small for bfloat16 still count."""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from ..framework.tensor import wrap
from ..nn.layer.norm import _BatchNormBase, BatchNorm, GroupNorm, LayerNorm
from . import support

_NORMS = (_BatchNormBase, BatchNorm, GroupNorm, LayerNorm)
_F32 = np.dtype(np.float32)


def _as_list(value) -> tuple:
    if value is None:
        return [], False
    if isinstance(value, (list, tuple)):
        return list(value), True
    return [value], False


def _cast_model(model, low, excluded: tuple) -> None:
    skip = set()
    for layer in model.sublayers(include_self=True):
        if isinstance(layer, _NORMS + excluded):
            skip.update(id(p) for p in layer.parameters())
    for param in model.parameters():
        if id(param) not in skip and param._data.dtype == _F32:
            param._data = param._data.astype(low.np)


def _add_master_weights(optimizer, low) -> None:
    """Make `optimizer` update float32 copies of its low-precision parameters."""
    if getattr(optimizer, "_amp_masters", None) is not None:
        return
    masters = {}
    inner = optimizer._apply_pairs

    def apply_pairs(pairs, group, lr):
        swapped = []
        for param, _ in pairs:
            if param._data.dtype == low.np:
                master = masters.get(id(param))
                if master is None:
                    master = param._data.astype(np.float32)
                param._data = master
                swapped.append(param)
        try:
            inner(pairs, group, lr)
        finally:
            for param in swapped:
                masters[id(param)] = param._data
                param._data = param._data.astype(low.np)

    optimizer._apply_pairs = apply_pairs
    optimizer._amp_masters = masters
    _save_masters(optimizer, masters, low)


def _save_masters(optimizer, masters: dict, low) -> None:
    """state_dict() carries {"master_weights": {param name: float32 Tensor}} as Paddle's does;
    set_state_dict() restores them (else they restart from the low-precision values)."""
    inner_save, inner_load = optimizer.state_dict, optimizer.set_state_dict

    def state_dict():
        state = inner_save()
        named = {p.name: p for p in optimizer._all_params()}
        state["master_weights"] = {name: wrap(masters[id(p)].copy())
                                   for name, p in named.items() if id(p) in masters}
        return state

    def set_state_dict(state_dict):
        saved = dict(state_dict).get("master_weights") or {}
        for param in optimizer._all_params():
            if param.name in saved:
                value = saved[param.name]
                masters[id(param)] = np.array(getattr(value, "_data", value), np.float32)
        inner_load(state_dict)

    optimizer.state_dict = state_dict
    optimizer.set_state_dict = optimizer.load_state_dict = set_state_dict


def decorate(models, optimizers=None, level: str = "O1", dtype: str = "float16",
             master_weight=None, save_dtype=None, master_grad: bool = False,
             excluded_layers=None):
    """Prepare models (and optimizers) for auto_cast level O2.

    O2 casts every parameter to `dtype` except those of norm layers and `excluded_layers`;
    with `master_weight` (default True at O2) each optimizer keeps float32 master weights.
    O1 changes nothing. float16 on CPU: the models are returned unchanged (Paddle 3.3.1).

    Args:
        models (Layer|list[Layer]): the models.
        optimizers (Optimizer|list[Optimizer], optional): their optimizers.
        level (str, optional): 'O1' or 'O2'. Default 'O1'.
        dtype (str, optional): 'float16' or 'bfloat16'. Default 'float16'.
        master_weight (bool, optional): float32 master weights (None: True at O2).
        save_dtype (str, optional): dtype of the state_dict saved (float16, bfloat16,
            float32, float64); None keeps the parameters' dtype.
        master_grad (bool, optional): accepted; gradients reach the master weights as float32.
        excluded_layers (Layer type|list, optional): layer types kept in float32.

    Returns:
        the models, or (models, optimizers) when optimizers are given.

    Examples:
        >>> import sampan as paddle
        >>> model = paddle.nn.Linear(2, 2)
        >>> opt = paddle.optimizer.SGD(parameters=model.parameters())
        >>> model, opt = paddle.amp.decorate(model, opt, level='O2', dtype='bfloat16')
        >>> model.weight.dtype
        paddle.bfloat16
    """
    if level not in ("O1", "O2"):
        raise ValueError(f"paddle.amp.decorate: level must be 'O1' or 'O2', got {level!r}")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"paddle.amp.decorate: dtype must be 'float16' or 'bfloat16', "
                         f"got {dtype!r}")
    if save_dtype is not None and save_dtype not in ("float16", "bfloat16", "float32",
                                                     "float64"):
        raise ValueError(f"paddle.amp.decorate: save_dtype must be float16, bfloat16, "
                         f"float32 or float64, got {save_dtype!r}")
    model_list, _ = _as_list(models)
    opt_list, _ = _as_list(optimizers)
    live = support.is_bfloat16_supported() if dtype == "bfloat16" else \
        support.is_float16_supported()
    if live and level == "O2":
        low = _dt.convert_dtype(dtype)
        excluded = tuple(excluded_layers if isinstance(excluded_layers, (list, tuple))
                         else [excluded_layers] if excluded_layers is not None else [])
        excluded = tuple(e if isinstance(e, type) else type(e) for e in excluded)
        for model in model_list:
            _cast_model(model, low, excluded)
        if master_weight is None or master_weight:
            for opt in opt_list:
                _add_master_weights(opt, low)
    if live and save_dtype is not None:
        for model in model_list:
            _cast_state_dict_on_save(model, save_dtype)
    if optimizers is None:
        return models
    return models, optimizers


def _cast_state_dict_on_save(model, save_dtype: str) -> None:
    """model.state_dict() returns float parameters cast to save_dtype (Paddle's save hook)."""
    inner = model.state_dict
    target = _dt.convert_dtype(save_dtype)

    def state_dict(*args, **kwargs):
        out = inner(*args, **kwargs)
        for key, value in out.items():
            if _dt.convert_dtype(value.dtype).kind == "f" and value.dtype is not target:
                out[key] = value.astype(target.name)
        return out

    model.state_dict = state_dict
