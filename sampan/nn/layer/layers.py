"""Layer: the base class of every model part (parameters, sublayers, buffers, hooks, state).

Attribute assignment registers Parameters, sublayers and Tensor buffers (Paddle semantics).
Imports `framework`, `tensor` and `initializer`; never tests eager vs static mode.
"""
from __future__ import annotations

import collections
import re
import warnings
from typing import Callable, Iterator

import numpy as np

from ...framework import dtype as _dt
from ...framework import place as _place
from ...framework.tensor import Parameter, Tensor
from ...initializer import make_parameter
from ...utils import unique_name
from . import hooks as _hooks

__all__ = ["Layer"]


def _snake(name: str) -> str:
    """Paddle's layer-name rule: Conv2D -> conv2d, BatchNorm1D -> batch_norm1d,
    Conv2DTranspose -> conv2d_transpose (names reach optimizer state keys)."""
    s1 = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s1).lower()


class HookRemoveHelper:
    """Handle returned by register_forward_*_hook; `remove()` unregisters the hook."""

    _next_id = 0

    def __init__(self, hooks: dict) -> None:
        self._hooks = hooks
        self._id = HookRemoveHelper._next_id
        HookRemoveHelper._next_id += 1

    def remove(self) -> None:
        self._hooks.pop(self._id, None)


_LAYER_DTYPES = ("bfloat16", "float16", "float32", "float64", "int8", "int16", "int32", "int64",
                 "uint8", "complex64", "complex128", "bool")


class Layer:
    """Base class of layers: subclass, create parameters in `__init__`, write `forward`.

    Args:
        name_scope (str, optional): prefix of the layer's full name and parameter names;
            the snake_case class name by default.
        dtype (str): default dtype of the parameters this layer creates. Default "float32".

    Examples:
        >>> import sampan as paddle
        >>> class Net(paddle.nn.Layer):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = self.create_parameter([2, 3])
        ...     def forward(self, x):
        ...         return paddle.matmul(x, self.w)
        >>> Net()(paddle.ones([4, 2])).shape
        paddle.Size([4, 3])
    """

    def __init__(self, name_scope: str | None = None, dtype="float32") -> None:
        d = self.__dict__
        d["training"] = True
        d["_full_name"] = unique_name.generate(name_scope or _snake(type(self).__name__))
        d["_dtype"] = _dt.convert_dtype(dtype).name if dtype is not None else "float32"
        d["_parameters"] = collections.OrderedDict()
        d["_sub_layers"] = collections.OrderedDict()
        d["_buffers"] = collections.OrderedDict()
        d["_non_persistable_buffer_names_set"] = set()
        d["_forward_pre_hooks"] = collections.OrderedDict()
        d["_forward_post_hooks"] = collections.OrderedDict()
        d["_casted_by_pure_fp16"] = False
        d["_state_dict_hooks"] = collections.OrderedDict()

    # --- calling ------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}: forward() is not implemented")

    def backward(self, *inputs):
        raise ValueError(f"{type(self).__name__}: Layer shouldn't implement backward; "
                         f"gradients come from autograd")

    def __call__(self, *inputs, **kwargs):
        d = self.__dict__
        pre = d.get("_forward_pre_hooks")
        if pre is None:
            raise RuntimeError(f"{type(self).__name__}: call super().__init__() in __init__ "
                               f"before using the layer")
        if pre:  # (the hot path tests two dicts and calls forward)
            inputs, kwargs = _hooks.run_pre(self, pre, inputs, kwargs)
        post = d["_forward_post_hooks"]
        if post and _hooks.has_always_call(self, post):
            try:
                outputs = self.forward(*inputs, **kwargs)
            except Exception:
                _hooks.run_post(self, post, inputs, kwargs, None, only_always=True)
                raise
        else:
            outputs = self.forward(*inputs, **kwargs)
        if post:
            outputs = _hooks.run_post(self, post, inputs, kwargs, outputs)
        return outputs

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> HookRemoveHelper:
        """hook(layer, inputs) -> None or new inputs; runs before forward. With `with_kwargs`
        hook(layer, inputs, kwargs) -> None or (inputs, kwargs); `prepend` runs it first."""
        handle = HookRemoveHelper(self._forward_pre_hooks)
        _hooks.register(self, self._forward_pre_hooks, handle, hook, prepend, with_kwargs)
        return handle

    def register_forward_post_hook(self, hook: Callable, *, prepend: bool = False,
                                   with_kwargs: bool = False,
                                   always_call: bool = False) -> HookRemoveHelper:
        """hook(layer, inputs, outputs) -> None or new outputs; runs after forward. With
        `with_kwargs` hook(layer, inputs, kwargs, outputs); `prepend` runs it first;
        `always_call` runs it (outputs None) also when forward raises."""
        handle = HookRemoveHelper(self._forward_post_hooks)
        _hooks.register(self, self._forward_post_hooks, handle, hook, prepend, with_kwargs,
                        always_call)
        return handle

    # --- registration -------------------------------------------------------------------
    def create_parameter(self, shape, attr=None, dtype=None, is_bias: bool = False,
                         default_initializer=None, device=None) -> Parameter | None:
        """Create (and initialise) a Parameter; `attr=False` means no parameter (None).

        dtype None means the global default dtype (paddle.set_default_dtype), as in Paddle:
        the layer's own `dtype` argument does not change it.

        The initializer is, in order: the ParamAttr's, the global one
        (`nn.initializer.set_global_initializer`), `default_initializer`, else
        XavierUniform for weights and Constant(0.0) for biases. `device` (Paddle 3.x, a
        place or 'cpu'/'gpu:N') is where the parameter is created.
        """
        param = make_parameter(f"{type(self).__name__}.create_parameter", shape,
                               _dt.default_float() if dtype is None else dtype, attr,
                               is_bias, default_initializer, self._full_name)
        if device is not None and param is not None:
            param._data = _place.move(param._data, _place.to_place(device))
        return param

    def create_variable(self, name: str | None = None, persistable: bool | None = None,
                        dtype=None) -> Tensor:
        """An empty, not initialized Tensor named `<layer full name>.<name>` (a unique
        `<layer full name>._generated_var_N` without `name`), to be filled later, e.g. by
        paddle.assign(x, output=t); it prints as `Tensor(Not initialized)` until then."""
        t = Tensor(np.zeros((0,), dtype=_dt.convert_dtype(dtype or self._dtype).np))
        t._blank = t._data
        t.name = (f"{self._full_name}.{name}" if name is not None else
                  unique_name.generate(f"{self._full_name}._generated_var"))
        t.persistable = bool(persistable)
        return t

    create_tensor = create_variable

    def add_parameter(self, name: str, parameter: Parameter | None) -> Parameter | None:
        """Register `parameter` (a Parameter or None) under `name`."""
        _check_name(self, "add_parameter", name)
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(f"{type(self).__name__}.add_parameter: {name!r} must be a "
                            f"Parameter, got {type(parameter).__name__}")
        if name in self.__dict__ and name not in self._parameters:
            raise KeyError(f"{type(self).__name__}.add_parameter: attribute {name!r} exists")
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name: str, sublayer: "Layer | None") -> "Layer | None":
        """Register `sublayer` under `name` (sets it as an attribute)."""
        _check_name(self, "add_sublayer", name)
        if sublayer is not None and not isinstance(sublayer, Layer):
            raise TypeError(f"{type(self).__name__}.add_sublayer: {name!r} must be a Layer, "
                            f"got {type(sublayer).__name__}")
        self._sub_layers[name] = sublayer
        return sublayer

    def register_buffer(self, name: str, tensor: Tensor | None,
                        persistable: bool = True) -> None:
        """Register a non-trainable Tensor; persistable buffers go into state_dict."""
        _check_name(self, "register_buffer", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"{type(self).__name__}.register_buffer: buffer {name!r} must be "
                            f"a Tensor, got {type(tensor).__name__}")
        if name in self._parameters or name in self._sub_layers:
            raise KeyError(f"{type(self).__name__}.register_buffer: {name!r} is already a "
                           f"parameter or sublayer")
        self.__dict__.pop(name, None)
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)
        if tensor is not None:
            tensor.persistable = persistable

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("call super().__init__() before assigning parameters")
            if name not in params:  # a replaced parameter keeps its place (Paddle)
                self._unregister_attr(name)
            params[name] = value
        elif isinstance(value, Layer):
            if params is None:
                raise AttributeError("call super().__init__() before assigning sublayers")
            self._unregister_attr(name)
            d["_sub_layers"][name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"{type(self).__name__}: assigning {type(value).__name__} to "
                                f"parameter {name!r} (a Parameter or None is required)")
            params[name] = None
        elif params is not None and name in d["_sub_layers"]:
            if value is not None:
                raise TypeError(f"{type(self).__name__}: assigning {type(value).__name__} to "
                                f"sublayer {name!r} (a Layer or None is required)")
            d["_sub_layers"][name] = None
        elif isinstance(value, Tensor) and params is not None:
            # Paddle: a plain Tensor attribute becomes a buffer (non-persistable if new)
            if name not in d["_buffers"]:
                self._unregister_attr(name)
                d["_non_persistable_buffer_names_set"].add(name)
            d["_buffers"][name] = value
        elif params is not None and name in d["_buffers"] and value is None:
            d["_buffers"][name] = None
        else:
            object.__setattr__(self, name, value)

    def _unregister_attr(self, name: str) -> None:
        # NOTE: not `_drop`: Paddle models name a Dropout sublayer `self._drop` (SqueezeNet)
        d = self.__dict__
        d.pop(name, None)
        for key in ("_parameters", "_sub_layers", "_buffers"):
            d[key].pop(name, None)
        d["_non_persistable_buffer_names_set"].discard(name)

    def __getattr__(self, name: str):
        d = self.__dict__
        for key in ("_parameters", "_sub_layers", "_buffers"):
            table = d.get(key)
            if table is not None and name in table:
                return table[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        for key in ("_parameters", "_sub_layers", "_buffers"):
            if name in d.get(key, ()):
                del d[key][name]
                d["_non_persistable_buffer_names_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._sub_layers)
                      | set(self._buffers))

    # --- traversal ----------------------------------------------------------------------
    def full_name(self) -> str:
        """The layer's unique name, e.g. "linear_0"."""
        return self._full_name

    def named_sublayers(self, prefix: str = "", include_self: bool = False,
                        layers_set: set | None = None,
                        remove_duplicate: bool = True) -> Iterator[tuple]:
        """(name, layer) for every sublayer, depth first, each layer once (every path to it
        with remove_duplicate=False, Paddle 3.x)."""
        seen = set() if layers_set is None else layers_set
        if include_self and (id(self) not in seen or not remove_duplicate):
            seen.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None or (remove_duplicate and id(layer) in seen):
                continue
            path = f"{prefix}.{key}" if prefix else key
            seen.add(id(layer))
            yield path, layer
            yield from layer.named_sublayers(path, False, seen, remove_duplicate)

    def sublayers(self, include_self: bool = False) -> list:
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self) -> Iterator[tuple]:
        seen = set()
        for key, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield key, layer

    def children(self) -> Iterator["Layer"]:
        for _, layer in self.named_children():
            yield layer

    def _named_members(self, table: str, prefix: str, include_sublayers: bool,
                       remove_duplicate: bool = True):
        seen = set()
        layers = (self.named_sublayers(prefix=prefix, include_self=True,
                                       remove_duplicate=remove_duplicate)
                  if include_sublayers else [(prefix, self)])
        for path, layer in layers:
            for key, value in getattr(layer, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{path}.{key}" if path else key), value

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple]:
        """(structured name, Parameter) pairs, each parameter once (under every name with
        remove_duplicate=False, Paddle 3.x)."""
        return self._named_members("_parameters", prefix, include_sublayers, remove_duplicate)

    def parameters(self, include_sublayers: bool = True) -> list:
        """All parameters of this layer (and its sublayers), each once."""
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix: str = "", include_sublayers: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple]:
        return self._named_members("_buffers", prefix, include_sublayers, remove_duplicate)

    def buffers(self, include_sublayers: bool = True) -> list:
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn: Callable) -> "Layer":
        """Call fn(layer) on every sublayer, then on self; returns self."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    # --- modes and gradients ------------------------------------------------------------
    def train(self, mode: bool = True) -> "Layer":
        """Set training mode (mode=False: evaluation, Paddle 3.x) on this layer and every
        sublayer (Dropout, BatchNorm act on it)."""
        if not isinstance(mode, (bool, np.bool_)):
            raise TypeError(f"{type(self).__name__}.train: mode must be a bool, got "
                            f"{type(mode).__name__}")
        for layer in self.sublayers(include_self=True):
            layer.__dict__["training"] = bool(mode)
        return self

    def eval(self) -> "Layer":
        """Set evaluation mode on this layer and every sublayer."""
        for layer in self.sublayers(include_self=True):
            layer.__dict__["training"] = False
        return self

    def clear_gradients(self, set_to_zero: bool = True) -> None:
        for p in self.parameters():
            if not p.stop_gradient:
                p.clear_grad(set_to_zero)

    # --- state --------------------------------------------------------------------------
    def state_dict(self, destination=None, include_sublayers: bool = True,
                   structured_name_prefix: str = "", use_hook: bool = True,
                   keep_vars: bool = True) -> collections.OrderedDict:
        """Parameters and persistable buffers by structured name ("fc.weight");
        keep_vars=False gives detached tensors (stop_gradient, not the parameters)."""
        out = collections.OrderedDict() if destination is None else destination
        self._state_into(out, structured_name_prefix, include_sublayers, False)
        if not keep_vars:
            out.update((k, v.detach()) for k, v in out.items())
        if use_hook:
            for hook in self._state_dict_hooks.values():
                result = hook(out)
                if result is not None:
                    out = result
        return out

    def to_static_state_dict(self, destination=None, include_sublayers: bool = True,
                             structured_name_prefix: str = "", use_hook: bool = True,
                             keep_vars: bool = True):
        """Like state_dict, including non-persistable buffers (keep_vars as state_dict's)."""
        out = collections.OrderedDict() if destination is None else destination
        self._state_into(out, structured_name_prefix, include_sublayers, True)
        if not keep_vars:
            out.update((k, v.detach()) for k, v in out.items())
        return out

    def register_state_dict_hook(self, hook: Callable) -> HookRemoveHelper:
        """hook(state_dict) -> None or a new dict; runs at the end of state_dict()."""
        handle = HookRemoveHelper(self._state_dict_hooks)
        self._state_dict_hooks[handle._id] = hook
        return handle

    def _state_into(self, out: dict, prefix: str, include_sublayers: bool,
                    all_buffers: bool) -> None:
        for key, p in self._parameters.items():
            if p is not None:
                out[prefix + key] = p
        for key, b in self._buffers.items():
            if b is not None and (all_buffers
                                  or key not in self._non_persistable_buffer_names_set):
                out[prefix + key] = b
        if include_sublayers:
            for key, layer in self._sub_layers.items():
                if layer is not None:
                    layer._state_into(out, f"{prefix}{key}.", True, all_buffers)

    def set_state_dict(self, state_dict: dict, use_structured_name: bool = True) -> tuple:
        """Copy values from `state_dict` into this layer's parameters and buffers.

        Missing keys and shape mismatches are skipped with a warning (Paddle's behaviour).
        Values are cast to each parameter's dtype.

        Returns:
            (missing_keys, unexpected_keys): lists of names; a key whose shape mismatched
            appears in both.
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.set_state_dict: state_dict must be a dict, "
                            f"got {type(state_dict).__name__}")
        own = self.state_dict()
        missing, used = [], set()
        for key, target in own.items():
            lookup = key if use_structured_name else target.name
            if lookup not in state_dict:
                warnings.warn(f"Skip loading for {key}. {key} is not found in the provided "
                              f"dict.")
                missing.append(key)
                continue
            value = state_dict[lookup]
            arr = value._data if isinstance(value, Tensor) else np.asarray(value)
            if tuple(arr.shape) != tuple(target._data.shape):
                warnings.warn(f"Skip loading for {key}. {key} receives a shape "
                              f"{list(arr.shape)}, but the expected shape is {list(target.shape)}.")
                missing.append(key)
                continue
            target.set_value(arr)
            used.add(lookup)
        unexpected = [k for k in state_dict if k not in used]
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    # --- dtype --------------------------------------------------------------------------
    def to(self, device=None, dtype=None, blocking=None, non_blocking=None) -> "Layer":
        """Cast floating parameters and buffers to `dtype` (devices other than CPU warn).
        blocking/non_blocking only choose a synchronous copy; sampan's copies always are."""
        if device is not None and not str(device).lower().startswith(("cpu", "place(cpu")):
            warnings.warn(f"{type(self).__name__}.to: sampan runs on the CPU; device "
                          f"{device!r} is ignored")
        if dtype is not None:
            self._cast_floats(dtype)
        return self

    def astype(self, dtype) -> "Layer":
        """Cast every parameter and buffer (of this layer and its sublayers) to `dtype`, any
        of Paddle's layer dtypes (floats, integers, complex, bool); returns self."""
        try:
            dt = _dt.convert_dtype(dtype)
        except TypeError:
            dt = None
        if dt is None or dt.name not in _LAYER_DTYPES:
            raise ValueError(f"{type(self).__name__}.astype: dtype value error, must be one "
                             f"of {list(_LAYER_DTYPES)}, got {dtype!r}")
        for layer in self.sublayers(include_self=True):
            for table in (layer._parameters, layer._buffers):
                for t in table.values():
                    if t is not None and t.dtype is not dt:
                        t._data = t._data.astype(dt.np)
            layer.__dict__["_dtype"] = dt.name
        return self

    def float(self, excluded_layers=None) -> "Layer":
        return self._cast_floats("float32", excluded_layers)

    def float16(self, excluded_layers=None) -> "Layer":
        return self._cast_floats("float16", excluded_layers)

    def bfloat16(self, excluded_layers=None) -> "Layer":
        return self._cast_floats("bfloat16", excluded_layers)

    def _cast_floats(self, dtype, excluded_layers=None) -> "Layer":
        dtype = _dt.convert_dtype(dtype)
        if dtype.kind != "f":
            raise TypeError(f"{type(self).__name__}.astype: dtype must be a floating dtype, "
                            f"got {dtype.name}")
        excluded = tuple(excluded_layers or ())
        for layer in self.sublayers(include_self=True):
            if excluded and isinstance(layer, excluded):
                continue
            for table in (layer._parameters, layer._buffers):
                for t in table.values():
                    if t is not None and t.dtype.kind == "f":
                        t._data = t._data.astype(dtype.np)
            layer.__dict__["_dtype"] = dtype.name
        return self

    # --- printing -----------------------------------------------------------------------
    def extra_repr(self) -> str:
        """Layer-specific text shown inside the parentheses of repr (override)."""
        return ""

    def __repr__(self) -> str:
        lines = []
        for key, layer in self._sub_layers.items():
            text = repr(layer).replace("\n", "\n  ")
            lines.append(f"  ({key}): {text}")
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        head = f"{type(self).__name__}({extra}" if extra else f"{type(self).__name__}("
        return head + "\n" + "\n".join(lines) + "\n)"

    # --- pickling (whole-layer save) ----------------------------------------------------
    def __getstate__(self) -> dict:
        return self.__dict__

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


def _check_name(layer: Layer, api: str, name) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{type(layer).__name__}.{api}: name must be a str, got "
                        f"{type(name).__name__}")
    if "." in name or not name:
        raise KeyError(f"{type(layer).__name__}.{api}: name must be non-empty and contain "
                       f"no '.', got {name!r}")
    if "_parameters" not in layer.__dict__:
        raise RuntimeError(f"{type(layer).__name__}: call super().__init__() before {api}")

