"""Autograd: Tensor.backward, paddle.grad, grad-mode switches and PyLayer.

Imports `framework`, `ops` and its own engine.
"""
from __future__ import annotations

import functools
import inspect
import types
import warnings

import numpy as np

from ..framework.flags import STATE
from ..framework.tensor import Tensor, wrap
from ..ops.vjp_context import unbroadcast  # noqa: F401
from .engine import run_backward
from .graph_dump import dump_backward_graph
from .py_layer import PyLayer, PyLayerContext  # noqa: F401
from .py_layer import PyLayer as Function  # noqa: F401  (Paddle 3.x: the same class)
from .functional import Jacobian, hessian, jacobian  # noqa: F401


def _wrap_like(wrapper, func) -> None:
    """Give a decorator object func's name, doc and signature (inspect treats objects with
    __get__ as builtins unless they carry __signature__)."""
    functools.update_wrapper(wrapper, func)
    try:
        wrapper.__signature__ = inspect.signature(func)
    except (TypeError, ValueError):
        pass


class no_grad:
    """Disable gradient recording; a context manager and a decorator."""

    def __init__(self, func=None) -> None:
        self._func = func
        if func is not None:
            _wrap_like(self, func)

    def __call__(self, *args, **kwargs):
        if self._func is None:  # used as @no_grad() on a function
            return type(self)(args[0])
        with type(self)():
            return self._func(*args, **kwargs)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return types.MethodType(self, obj)  # keeps __name__ and the signature

    _mode = False

    def __enter__(self):
        self._prev = STATE.grad_enabled
        STATE.grad_enabled = self._mode

    def __exit__(self, *exc):
        STATE.grad_enabled = self._prev
        return False


class enable_grad(no_grad):
    """Enable gradient recording inside a no_grad region; context manager and decorator."""

    _mode = True


class saved_tensors_hooks:
    """Context manager: tensors saved for backward go through pack_hook when the forward op
    runs and come back through unpack_hook when backward needs them (e.g. to offload or
    compress activations).

    Args:
        pack_hook (callable): Tensor -> any object.
        unpack_hook (callable): that object -> Tensor.

    Examples:
        >>> import sampan as paddle
        >>> packed = []
        >>> def pack(t):
        ...     packed.append(t.shape)
        ...     return t.numpy()
        >>> def unpack(a):
        ...     return paddle.to_tensor(a)
        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> with paddle.autograd.saved_tensors_hooks(pack, unpack):
        ...     y = (x * x).sum()
        >>> y.backward()
        >>> x.grad.numpy().tolist(), len(packed) > 0
        ([2.0, 4.0], True)
    """

    def __init__(self, pack_hook, unpack_hook) -> None:
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callable")
        self.hooks = (pack_hook, unpack_hook)

    def __enter__(self):
        self.prev = STATE.saved_hooks
        STATE.saved_hooks = self.hooks
        return self

    def __exit__(self, *exc) -> None:
        STATE.saved_hooks = self.prev


class set_grad_enabled(no_grad):
    """Turn gradient recording on or off: as a call, a context manager (restoring the
    previous mode on exit) or a decorator (`@set_grad_enabled(False)`)."""

    def __init__(self, mode: bool, func=None) -> None:
        self._mode = bool(mode)
        self._func = func
        if func is not None:
            _wrap_like(self, func)
            return
        self._prev = STATE.grad_enabled
        STATE.grad_enabled = self._mode

    def __call__(self, *args, **kwargs):
        if self._func is None:  # @set_grad_enabled(mode) on a function
            if len(args) != 1 or kwargs or not callable(args[0]):
                raise TypeError("set_grad_enabled: a decorator takes one callable")
            STATE.grad_enabled = self._prev
            return type(self)(self._mode, args[0])
        with type(self)(self._mode):
            return self._func(*args, **kwargs)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        STATE.grad_enabled = self._prev
        return False


def is_grad_enabled() -> bool:
    return STATE.grad_enabled


class GradArgumentError(TypeError, AssertionError):
    """A malformed argument of paddle.grad / backward (Paddle asserts on these, so this is
    an AssertionError as well as a TypeError)."""


class _CountMismatch(ValueError, AssertionError):
    """outputs and grad_outputs of different lengths (Paddle asserts)."""


def _as_list(value, what: str) -> list:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        for v in value:
            if v is not None and not isinstance(v, Tensor):
                raise GradArgumentError(f"grad: every element of {what} must be a Tensor, "
                                        f"got {type(v).__name__}")
        return list(value)
    raise GradArgumentError(f"grad: {what} must be a Tensor or a list of Tensors, got "
                            f"{type(value).__name__}")


def _leading_values(g, out, api: str, i: int):
    """paddle.autograd.backward reads a larger grad_tensors[i] as a buffer: its first
    out.size values, in out's shape (Paddle's tests pass ones_like(x) for out = x.max(0)).
    Kept, with a warning; paddle.grad and Tensor.backward refuse it."""
    warnings.warn(f"{api}: grad_outputs[{i}] has shape {list(g.shape)} but outputs[{i}] has "
                  f"shape {list(out.shape)}; its first {out.size} values are used (as in Paddle)",
                  stacklevel=4)
    return g.flatten()[:out.size].reshape(list(out.shape))


def _root_grads(outputs, grad_outputs, api: str) -> list:
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if out.stop_gradient:
            raise RuntimeError(f"{api}: output {i} has stop_gradient=True, so no gradient "
                               f"can flow from it; did you forget x.stop_gradient = False?")
        if g is None:
            g = wrap(np.ones(out._data.shape, dtype=out._data.dtype))
        elif not isinstance(g, Tensor):
            g = wrap(np.asarray(g, dtype=out._data.dtype))
        elif tuple(g.shape) != tuple(out.shape) and g.size == out.size:
            g = g.reshape(list(out.shape))  # Paddle takes e.g. a [1] grad for a 0-D output
        elif tuple(g.shape) != tuple(out.shape) and g.size > out.size and api == "backward":
            g = _leading_values(g, out, api, i)
        elif tuple(g.shape) != tuple(out.shape):
            raise ValueError(f"{api}: grad_outputs[{i}] has shape {list(g.shape)} but "
                             f"outputs[{i}] has shape {list(out.shape)}")
        grads.append(g)
    return grads


def backward(tensors, grad_tensors=None, retain_graph: bool = False, *,
             dump_backward_graph_path=None) -> None:
    """Run backward from several tensors at once (paddle.autograd.backward);
    `dump_backward_graph_path` (a directory) receives the graph as a DOT file first."""
    tensors = _as_list(tensors, "tensors")
    if dump_backward_graph_path is not None:
        dump_backward_graph(dump_backward_graph_path, tensors, "backward")
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    grad_tensors = _as_list(grad_tensors, "grad_tensors") if not isinstance(
        grad_tensors, list) else grad_tensors
    if len(grad_tensors) != len(tensors):
        raise ValueError(f"backward: got {len(tensors)} tensors but {len(grad_tensors)} "
                         f"grad_tensors")
    pairs = [(t, g) for t, g in zip(tensors, grad_tensors) if not t.stop_gradient]
    if pairs:  # as in Paddle, tensors that stop gradient contribute nothing
        tensors, grad_tensors = [t for t, _ in pairs], [g for _, g in pairs]
        run_backward(tensors, _root_grads(tensors, grad_tensors, "backward"), retain_graph)


def _tensor_backward(self, grad_tensor=None, retain_graph: bool = False, *,
                     dump_backward_graph_path=None) -> None:
    """Compute the gradients of this tensor with respect to the graph leaves and accumulate
    them into each leaf's `.grad`.

    A leaf's hooks (`register_hook`) run once per call, on the sum of its gradients. The
    graph's saved values are freed unless `retain_graph` is True; a second backward over a
    freed graph raises (a SystemError, as in Paddle).

    Args:
        grad_tensor (Tensor, optional): the initial gradient, of this tensor's shape.
            Default None: ones.
        retain_graph (bool, optional): keep the graph for another backward. Default False.
        dump_backward_graph_path (str, optional): a directory; the graph is written there
            as `<timestamp>_backward_graph.dot` (Graphviz) before the pass.

    Returns:
        None. On a tensor that stops gradient it does nothing (as in Paddle).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
        >>> (x * x).sum().backward()
        >>> x.grad.numpy().tolist()
        [2.0, 4.0, 6.0]
    """
    if self.stop_gradient:
        return
    if dump_backward_graph_path is not None:
        dump_backward_graph(dump_backward_graph_path, [self], "Tensor.backward")
    run_backward([self], _root_grads([self], [grad_tensor], "Tensor.backward"),
                 retain_graph)


_tensor_backward.__name__ = "backward"
_tensor_backward.__qualname__ = "Tensor.backward"
Tensor.backward = _tensor_backward


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool = False, no_grad_vars=None, *,
         dump_backward_graph_path=None) -> list:
    """The gradients of `outputs` with respect to `inputs`, returned without touching any
    `.grad`.

    As in Paddle the graph is kept, so `grad` (or a later `backward`) can run over it again;
    `retain_graph` is accepted for compatibility. Hooks of non-leaf inputs run; a leaf's
    hooks belong to its accumulation into `.grad` and do not.

    Args:
        outputs (Tensor|list[Tensor]): the differentiated tensors.
        inputs (Tensor|list[Tensor]): the tensors to differentiate against.
        grad_outputs (Tensor|list, optional): initial gradients of `outputs` (None: ones).
        retain_graph (bool, optional): accepted; the graph is always kept.
        create_graph (bool, optional): record the gradient computation so that the result
            can be differentiated again. Default False.
        only_inputs (bool, optional): accepted for compatibility.
        allow_unused (bool, optional): return None for an input that `outputs` do not
            depend on instead of raising. Default False.
        no_grad_vars (Tensor|list[Tensor], optional): tensors no gradient flows through.

    Returns:
        list[Tensor]: one gradient per input.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> y = (x * x * x).sum()
        >>> paddle.grad(y, x)[0].numpy().tolist()
        [3.0, 12.0]
        >>> paddle.grad(y, x)[0].numpy().tolist()   # the graph is kept
        [3.0, 12.0]
    """
    outputs = _as_list(outputs, "outputs")
    inputs_list = _as_list(inputs, "inputs")
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    else:
        grad_outputs = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(
            grad_outputs)
        if len(grad_outputs) != len(outputs):
            raise _CountMismatch(f"grad: got {len(outputs)} outputs but "
                                 f"{len(grad_outputs)} grad_outputs")
    blocked = _as_list(no_grad_vars, "no_grad_vars") if no_grad_vars is not None else []
    for i, t in enumerate(inputs_list):
        if t.stop_gradient:
            raise ValueError(f"grad: inputs[{i}] has stop_gradient=True; set "
                             f"stop_gradient=False on tensors you differentiate against")
        if any(t is u for u in inputs_list[:i]):     # Paddle: a RuntimeError too
            raise RuntimeError(f"grad: inputs[{i}] is a duplicate of an earlier input; "
                               f"pass each tensor once")
    # NOTE: Paddle's grad never frees the graph, whatever retain_graph says: a second
    # paddle.grad (or a later backward) over the same graph works. retain_graph is accepted
    # for signature compatibility.
    if dump_backward_graph_path is not None:
        dump_backward_graph(dump_backward_graph_path, outputs, "grad")
    saved_flags = [(t, t.stop_gradient) for t in blocked]
    hooks = []
    for t in blocked:  # stop gradients flowing through these tensors
        if t._node is not None:
            hooks.append(_block(t))
    try:
        result = run_backward(outputs, _root_grads(outputs, grad_outputs, "grad"),
                              True, create_graph, targets=inputs_list)
    finally:
        for h in hooks:
            h()
        for t, flag in saved_flags:
            t.stop_gradient = flag
    for i, g in enumerate(result):
        if g is None and not allow_unused:
            raise ValueError(f"grad: inputs[{i}] is not reachable from outputs (it was not "
                             f"used to compute them); pass allow_unused=True to get None")
        if g is not None and not create_graph:
            result[i] = wrap(g._data)
        elif g is not None and g.stop_gradient:
            # create_graph: every gradient is differentiable, even a constant one (Paddle)
            g = result[i] = g._alias() if g is inputs_list[i] else g
            g.stop_gradient = False
    return result


def _block(t):
    node, idx = t._node, t._out_idx
    zero = lambda g: g * 0  # noqa: E731
    prev = node.hooks.get(idx) if node.hooks else None
    node.add_hooks(idx, (prev or []) + [zero])

    def undo():
        if prev is None:
            del node.hooks[idx]
        else:
            node.hooks[idx] = prev
    return undo


def _register_hook_nonleaf(self, hook):
    handle = _register_hook_base(self, hook)
    if self._node is not None:
        self._node.add_hooks(self._out_idx, self._hooks)
    return handle


_register_hook_base = Tensor.register_hook
Tensor.register_hook = _register_hook_nonleaf


def _retain_grads(self) -> None:
    """Keep the gradient of this non-leaf tensor in `.grad` after backward."""
    if self._node is None or self._retain:
        return
    self._retain = True
    import weakref
    ref = weakref.ref(self)

    def keep(g):
        t = ref()
        if t is not None:
            kept = wrap(g._data) if t._grad is None else wrap(t._grad._data + g._data)
            kept.stop_gradient = False      # as `.grad` of a leaf (Paddle)
            t._grad = kept
    self.register_hook(keep)


Tensor.retain_grads = _retain_grads
