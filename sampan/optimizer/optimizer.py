"""The Optimizer base class: parameter groups, accumulators (state), lr, clipping, weight decay.

A subclass names its update OpDef (`_op`) and says, per parameter, which accumulators the op
reads and with which attrs (`_prepare`). `step()` clips, regularizes and then calls the OpDef's
in-place `update` on the parameter's and the accumulators' own arrays, the same rule the static
`minimize` appends as an op. Imports the ops registry, regularizer, nn.clip and lr only.
"""
from __future__ import annotations

import re
import weakref
from collections import defaultdict

import numpy as np

from ..backend import numpy_ as _xp
from ..framework import trace as _trace
from ..framework.flags import in_dynamic_mode
from ..framework.place import backend_of
from ..framework.tensor import Tensor, is_variable
from ..ops.opdef import REGISTRY
from ..regularizer import L2Decay, WeightDecayRegularizer
from ..utils import unique_name
from .lr import LRScheduler

__all__ = ["Optimizer"]


def _no_grad():
    from ..autograd import no_grad
    return no_grad()


class Optimizer:
    """Base class of the optimizers (`paddle.optimizer.Optimizer`).

    Args:
        learning_rate (float|LRScheduler): the learning rate, or a scheduler read every step.
        parameters (list[Tensor]|list[dict], optional): the parameters to update, or parameter
            groups: dicts with "params" and per-group options ("learning_rate" multiplies the
            global learning rate, "weight_decay", "grad_clip", and the optimizer's own
            hyper-parameters such as "beta1").
        weight_decay (float|L1Decay|L2Decay, optional): regularization; a float means L2Decay.
            A parameter's own regularizer (ParamAttr) takes precedence.
        grad_clip (ClipGradByValue|ClipGradByNorm|ClipGradByGlobalNorm, optional): clipping.
        name (str, optional): prefix of the accumulator names.
    """

    _op: str = ""
    # per-group hyper-parameters a parameter group may override: {key: attribute}
    _group_keys: dict = {}

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None,
                 name: str | None = None) -> None:
        api = type(self).__name__
        if parameters is None and in_dynamic_mode():
            raise AttributeError(f"{api}: parameters argument given to the Optimizer should "
                                 f"not be None in dygraph mode")
        _check_parameters(api, parameters)
        if isinstance(parameters, dict):
            raise TypeError(f"{api}: parameters must not be a dict; for parameter groups pass "
                            f"a list of dicts")
        if learning_rate is None:
            raise ValueError(f"{api}: learning_rate is not set")
        if isinstance(learning_rate, int) and not isinstance(learning_rate, bool):
            learning_rate = float(learning_rate)
        if isinstance(learning_rate, (Tensor, np.floating)):
            learning_rate = float(learning_rate)  # a 1-element Tensor or NumPy scalar
        elif isinstance(learning_rate, float):
            learning_rate = float(learning_rate)  # a float subclass: get_lr tests `is float`
        if not isinstance(learning_rate, (float, LRScheduler)):
            raise TypeError(f"{api}: learning_rate must be a float or an LRScheduler, got "
                            f"{type(learning_rate).__name__}")
        _check_clip(api, grad_clip)
        self._learning_rate = learning_rate
        self.regularization = _as_regularizer(api, weight_decay)
        self._grad_clip = grad_clip
        self._name = name
        # static mode: no list means every trainable parameter of the loss's program
        self._parameter_list = [] if parameters is None else list(parameters)
        for item in self._parameter_list:
            if not isinstance(item, (Tensor, dict)) and not _is_variable(item):
                raise TypeError(f"{api}: parameters must be Tensors (or parameter-group dicts), "
                                f"got an element of type {type(item).__name__}")
        self._accumulators = defaultdict(dict)  # {acc name: {param name: Tensor}}
        self._accumulators_holder: dict = {}  # loaded state waiting for its accumulators
        self._opti_name_list: list = []  # accumulator names in creation order
        self._cache: dict = {}  # id(param) -> (param, states, attrs, lr multiplier, regularizer)
        # static minimize: Program -> static_minimize.StaticState (lr variable, state names)
        self._static_state = weakref.WeakKeyDictionary()
        self._opdef = REGISTRY[self._op] if self._op else None
        self._grouped = bool(self._parameter_list) and isinstance(self._parameter_list[0], dict)
        self._groups: list = []  # always dicts {"params": [...], options...}
        if self._grouped:
            for group in self._parameter_list:
                self._add_param_group(dict(group))
        else:
            self._groups.append({"params": self._parameter_list})
        # Paddle's attribute: the parameter list itself unless groups were given
        self._param_groups = self._groups if self._grouped else self._parameter_list
        self.clear_gradients = self.clear_grad

    # --- parameter groups --------------------------------------------------------------
    def _add_param_group(self, group: dict) -> None:
        api = type(self).__name__
        if "params" not in group:
            raise ValueError(f"{api}: every parameter group needs a 'params' entry")
        params = group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(f"{api}: parameters of a group must be an ordered collection "
                            f"(list), not a set")
        group["params"] = list(params)
        for p in group["params"]:
            if not isinstance(p, Tensor) and not _is_variable(p):
                raise TypeError(f"{api}: the 'params' of a parameter group must be Tensors, "
                                f"got an element of type {type(p).__name__}")
        seen = {id(p) for g in self._groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError(f"{api}: some parameters appear in more than one parameter group")
        group.setdefault("weight_decay", self.regularization)
        group.setdefault("grad_clip", self._grad_clip)
        _check_clip(api, group["grad_clip"])
        self._groups.append(group)
        self._cache.clear()

    def _all_params(self) -> list:
        return [p for g in self._groups for p in g["params"]]

    def _hyper(self, group: dict, key: str):
        """A hyper-parameter: the group's value when it sets one, else the optimizer's."""
        value = group.get(key, getattr(self, self._group_keys[key]))
        return float(value) if isinstance(value, Tensor) else value

    # --- learning rate -----------------------------------------------------------------
    def get_lr(self) -> float:
        """The current global learning rate (the scheduler's value when one is used)."""
        lr = self._learning_rate
        return lr if lr.__class__ is float else float(lr())

    def set_lr(self, value: float) -> None:
        """Set a float learning rate (not allowed while an LRScheduler is in use)."""
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError(f"{type(self).__name__}.set_lr: the learning rate is an "
                               f"LRScheduler; set_lr cannot be used with a scheduler")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{type(self).__name__}.set_lr: value must be a float, got "
                            f"{type(value).__name__}")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler: LRScheduler) -> None:
        """Replace the learning rate by `scheduler`."""
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(f"{type(self).__name__}.set_lr_scheduler: scheduler must be an "
                            f"LRScheduler, got {type(scheduler).__name__}")
        self._learning_rate = scheduler

    # --- accumulators ------------------------------------------------------------------
    def _add_accumulator(self, name: str, param, fill_value: float = 0.0, shape=None,
                         dtype=None) -> Tensor:
        """The accumulator `name` of `param`, created (Paddle naming) on first use."""
        if self._name is not None:
            name = f"{self._name}_{name}"
        accs = self._accumulators[name]
        acc = accs.get(param.name)
        if acc is not None:
            return acc
        var_name = unique_name.generate(f"{param.name}_{name}")
        shape = param._data.shape if shape is None else tuple(shape)
        dtype = param._data.dtype if dtype is None else np.dtype(dtype)
        acc = Tensor(np.full(shape, fill_value, dtype=dtype), name=var_name)
        acc.persistable = True
        self._opti_name_list.append(var_name)
        if self._accumulators_holder:
            key = _find_key(self._accumulators_holder, var_name)
            if key is None:
                raise KeyError(f"{type(self).__name__}: the loaded state dict has no entry "
                               f"for accumulator {var_name!r}")
            _load(acc, self._accumulators_holder.pop(key))
        accs[param.name] = acc
        return acc

    def _get_accumulator(self, name: str, param) -> Tensor:
        if self._name is not None:
            name = f"{self._name}_{name}"
        try:
            return self._accumulators[name][param.name]
        except KeyError:
            raise KeyError(f"{type(self).__name__}: accumulator {name} does not exist for "
                           f"parameter {param.name}") from None

    # --- state ---------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """Accumulators by name ("linear_0.w_0_moment1_0") plus "LR_Scheduler" if used."""
        state: dict = {}
        if not self._accumulators and self._accumulators_holder:
            state.update(self._accumulators_holder)
        for accs in self._accumulators.values():
            for acc in accs.values():
                state[acc.name] = acc
        if isinstance(self._learning_rate, LRScheduler):
            state["LR_Scheduler"] = self._learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict: dict) -> None:
        """Load a state dict from `state_dict()` (or a Paddle .pdopt loaded with paddle.load).

        Accumulators that exist get their values now; the others when they are created.
        Keys match exactly, or up to the unique-name counter suffix.
        """
        from .lr import LambdaDecay
        state = dict(state_dict)
        lr_state = state.pop("LR_Scheduler", None)
        if isinstance(self._learning_rate, LRScheduler):
            if lr_state is None and not isinstance(self._learning_rate, LambdaDecay):
                raise KeyError(f"{type(self).__name__}.set_state_dict: the state dict has no "
                               f"'LR_Scheduler' entry for the optimizer's scheduler")
            if lr_state:
                self._learning_rate.set_state_dict(lr_state)
        state.pop("master_weights", None)
        self._accumulators_holder = state
        for accs in self._accumulators.values():
            for acc in accs.values():
                key = _find_key(state, acc.name)
                if key is None:
                    raise KeyError(f"{type(self).__name__}.set_state_dict: optimizer tensor "
                                   f"{acc.name!r} not found in the state dict")
                _load(acc, state[key])

    load_state_dict = set_state_dict

    # --- stepping ------------------------------------------------------------------------
    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Clear the gradients of the optimized parameters (zeros, or None)."""
        for p in self._all_params():
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    def zero_grad(self, set_to_none: bool = True) -> None:
        self.clear_grad(set_to_zero=not set_to_none)

    def step(self) -> None:
        """Update every parameter that has a gradient, once."""
        sink = _trace.SINK[0]  # a recording profiler: the step is an "Optimization" span
        start = _trace.clock() if sink is not None else 0
        lr = self.get_lr()
        with _no_grad():
            for group in self._groups:
                pairs = [(p, p._grad) for p in group["params"]
                         if not p.stop_gradient and p._grad is not None]
                if pairs:
                    self._apply_pairs(pairs, group, lr)
        if sink is not None:
            sink("Optimization Step", "Optimization", start, _trace.clock())

    def _apply_pairs(self, pairs: list, group: dict, lr: float) -> None:
        clip = group.get("grad_clip", self._grad_clip)
        if clip is not None:
            pairs = clip(pairs)
        cache = self._cache
        sink = _trace.SINK[0]
        for param, grad in pairs:
            if grad is None:
                continue
            entry = cache.get(id(param))
            if entry is None:
                entry = cache[id(param)] = self._entry(param, group)
            _, states, attrs, mult, reg = entry
            if reg is not None:
                grad = grad + reg(param, grad)
            g = grad._data
            if g.dtype != param._data.dtype:
                g = g.astype(param._data.dtype)
            if sink is None:
                self._update(param, g, lr * mult, states, attrs)
            else:  # the update kernel runs outside dispatch: record it as an op event
                start = _trace.clock()
                self._update(param, g, lr * mult, states, attrs)
                sink(self._op or type(self).__name__, "Operator", start, _trace.clock())

    def _entry(self, param, group: dict) -> tuple:
        """Per-parameter constants: (param, state tensors, attrs, lr multiplier, regularizer)."""
        states, attrs = self._prepare(param, group)
        if self._grouped:
            mult = float(group.get("learning_rate", 1.0))
        else:
            mult = float((getattr(param, "optimize_attr", None) or {}).get("learning_rate", 1.0))
        return param, tuple(states), attrs, mult, self._regularizer(param, group)

    def _regularizer(self, param, group: dict):
        """The weight decay applied to `param`'s gradient (None = none)."""
        if self._grouped:
            reg = _as_regularizer(type(self).__name__, group.get("weight_decay"))
        else:
            reg = getattr(param, "regularizer", None) or self.regularization
        if reg is None or (isinstance(reg, WeightDecayRegularizer) and reg.coeff == 0.0):
            return None
        return reg

    def _prepare(self, param, group: dict) -> tuple:
        """(accumulator tensors in the OpDef's input order after learning_rate, attrs)."""
        return [], {}

    def _update(self, param, grad, lr: float, states: tuple, attrs: dict) -> None:
        data = param._data
        if not getattr(data.flags, "writeable", True):  # CuPy arrays have no such flag
            param._data = data = data.copy()
        xp = _xp if data.__class__ is np.ndarray else backend_of(data)  # a device param
        self._opdef.update(xp, data, grad, lr, *[s._data for s in states], **attrs)
        param._version += 1

    def backward(self, loss, startup_program=None, parameters=None, no_grad_set=None,
                 callbacks=None) -> list:
        """Run backward on `loss`; return the (param, grad) pairs of the parameters to update.

        Args:
            loss (Tensor): the loss.
            startup_program: static-graph argument, ignored in eager mode.
            parameters (list[Tensor]|list[str], optional): the parameters (or their names) to
                return; default all of this optimizer's parameters.
            no_grad_set (set[Tensor]|set[str], optional): parameters to leave out.
            callbacks: static-graph argument, ignored in eager mode.
        """
        loss.backward()
        return self._params_grads(parameters, no_grad_set)

    def _params_grads(self, parameters, no_grad_set) -> list:
        params = self._all_params()
        if parameters is not None:
            wanted = {p if isinstance(p, str) else p.name for p in parameters}
            params = [p for p in params if p.name in wanted]
        skip = {p if isinstance(p, str) else p.name for p in no_grad_set or ()}
        return [(p, p.grad) for p in params
                if p.name not in skip and not p.stop_gradient and p._grad is not None]

    def apply_gradients(self, params_grads: list) -> list:
        """Clip, regularize and apply the given (param, grad) pairs (Paddle sorts them by
        parameter name first). Returns [] (the optimize ops, none in eager mode)."""
        if not isinstance(params_grads, (list, tuple)):
            raise TypeError(f"{type(self).__name__}.apply_gradients: params_grads must be a "
                            f"list of (param, grad) pairs, got {type(params_grads).__name__}")
        group_of = {id(p): i for i, g in enumerate(self._groups) for p in g["params"]}
        by_group: dict = defaultdict(list)
        for param, grad in sorted(params_grads, key=lambda pg: pg[0].name):
            if grad is None or param.stop_gradient:
                continue
            index = group_of.get(id(param))
            if index is None:
                raise ValueError(f"{type(self).__name__}.apply_gradients: parameter "
                                 f"{param.name!r} is not optimized by this optimizer")
            by_group[index].append((param, grad))
        lr = self.get_lr()
        with _no_grad():
            for index, pairs in sorted(by_group.items()):
                self._apply_pairs(pairs, self._groups[index], lr)
        return []

    def append_regularization_ops(self, parameters_and_grads: list,
                                  regularization=None) -> list:
        """(param, grad + weight-decay term) for each pair; a parameter's own regularizer
        (ParamAttr) takes precedence over `regularization`."""
        out = []
        for param, grad in parameters_and_grads:
            reg = getattr(param, "regularizer", None) or regularization
            if grad is not None and reg is not None:
                grad = grad + reg(param, grad)
            out.append((param, grad))
        return out

    def get_opti_var_name_list(self) -> list:
        """The names of the accumulators created so far, in creation order."""
        return self._opti_name_list

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Update the parameters from their current gradients (eager mode; call
        `loss.backward()` first, as in Paddle's dynamic mode). In static mode, append the
        backward and update ops for `loss` to its Program.

        Returns:
            tuple: (optimize ops: [] in eager mode, list of (param, grad) pairs updated).
        """
        if is_variable(loss):  # static mode: append the update ops
            from .static_minimize import minimize
            return minimize(self, loss, startup_program, parameters, no_grad_set)
        params = self._all_params() if parameters is None else list(parameters)
        names = set()
        for item in no_grad_set or ():
            names.add(item if isinstance(item, str) else item.name)
        wanted = {id(p) for p in params if p.name not in names}
        lr = self.get_lr()
        done = []
        with _no_grad():
            for group in self._groups:
                pairs = [(p, p._grad) for p in group["params"] if id(p) in wanted
                         and not p.stop_gradient and p._grad is not None]
                if pairs:
                    self._apply_pairs(pairs, group, lr)
                    done.extend(pairs)
        return [], done


def _is_variable(obj) -> bool:
    """A static-graph Variable/Parameter (not a Tensor subclass)."""
    return bool(is_variable(obj))


def _check_parameters(api: str, parameters) -> None:
    """`parameters` is None or an iterable of Tensors/groups; a Layer gets a hint."""
    from ..nn import Layer
    if isinstance(parameters, Layer):
        raise TypeError(f"{api}: parameters must be a list of Tensors, got the Layer "
                        f"{type(parameters).__name__} itself; pass model.parameters()")
    if isinstance(parameters, Tensor):
        raise TypeError(f"{api}: parameters must be an iterable of Tensors, got a Tensor")
    if parameters is not None and not hasattr(parameters, "__iter__"):
        raise TypeError(f"{api}: parameters must be an iterable of Tensors, got "
                        f"{type(parameters).__name__}")


def _check_clip(api: str, clip) -> None:
    from ..nn.clip import GradientClipBase
    if clip is not None and not isinstance(clip, GradientClipBase):
        raise TypeError(f"{api}: grad_clip must be a ClipGradByValue, ClipGradByNorm or "
                        f"ClipGradByGlobalNorm, got {type(clip).__name__}")


def _as_regularizer(api: str, weight_decay):
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    if isinstance(weight_decay, (int, float)) and not isinstance(weight_decay, bool):
        return L2Decay(float(weight_decay))
    if isinstance(weight_decay, Tensor):
        return L2Decay(float(weight_decay))
    raise TypeError(f"{api}: weight_decay must be a float, L1Decay or L2Decay, got "
                    f"{type(weight_decay).__name__}")


_SUFFIX = re.compile(r"_\d+$")


def _find_key(state: dict, name: str):
    """`name` in `state`, else the one key equal to it up to the unique-name counter."""
    if name in state:
        return name
    stem = _SUFFIX.sub("", name)
    hits = [k for k in state if isinstance(k, str) and _SUFFIX.sub("", k) == stem]
    return hits[0] if len(hits) == 1 else None


def _load(acc: Tensor, value) -> None:
    arr = np.asarray(value._data if isinstance(value, Tensor) else value)
    if arr.shape != acc._data.shape and arr.size == acc._data.size:
        arr = arr.reshape(acc._data.shape)  # 0-D vs [1] beta powers
    acc.set_value(arr)
