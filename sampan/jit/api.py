"""paddle.jit.to_static and StaticFunction; enable_to_static, not_to_static, ignore_module,
set_code_level, set_verbosity.

A StaticFunction converts its function once (H4's AST conversion, sampan.jit.transform),
traces it into a Program per (input specs, non-tensor argument values, train/eval) and runs
that Program from eager mode through the `run_program` op. Called while another function is
being traced it simply runs inline. Where conversion or tracing fails, the call runs eagerly
with one warning per function (an error with full_graph=True). Imports `framework`, `static`
and `jit`.
"""
from __future__ import annotations

import inspect
import logging
import sys
import textwrap
import warnings
import weakref

from ..framework.flags import in_dynamic_mode
from ..static.input_spec import InputSpec
from ..framework import flags as _flags
from .program_cache import ProgramCache, trace
from .pytree import flatten, freeze, is_tensor, unflatten

_ENABLED = [True]
_IGNORED: set = set()        # module-name prefixes whose functions are never converted
_WARNED: set = set()         # functions that already warned about falling back to eager
_LOG = logging.getLogger("sampan.jit")
_LEVELS = {"code": 0, "verbosity": 0}


def _tracing() -> bool:
    """True while a Program is being built in this thread (not dynamic mode)."""
    return not in_dynamic_mode()


def _convert(fn):
    """H4's conversion (sampan.jit.transform.convert_function) of a plain function."""
    if getattr(fn, "_sampan_not_to_static", False):
        return fn
    module = getattr(fn, "__module__", "") or ""
    if any(module == m or module.startswith(m + ".") for m in _IGNORED):
        return fn
    try:
        from .transform import convert_function
    except ImportError:   # TODO(h5): drop once sampan.jit.transform is complete (#9)
        return fn
    return convert_function(fn)


def dy2static_error_class():
    """sampan.jit.errors.Dy2StaticError (H4's), or RuntimeError where it is missing."""
    try:
        from .errors import Dy2StaticError
    except ImportError:
        return RuntimeError
    return Dy2StaticError


def locate(exc: BaseException, fn) -> tuple | None:
    """(file, line, source) of the user's line where `exc` arose: sampan.jit.errors.locate
    (which maps converted code back), else the innermost traceback frame in fn's file."""
    try:
        from .errors import locate as _locate
    except ImportError:
        _locate = None
    if _locate is not None:
        found = _locate(exc)
        if found is not None:
            return found
    target = _source_file(fn)
    best = None
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == target:
            best = (code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    if best is None:
        return None
    import linecache
    return best[0], best[1], linecache.getline(best[0], best[1]).strip()


def _source_file(fn) -> str | None:
    try:
        return inspect.getsourcefile(inspect.unwrap(fn))
    except (TypeError, OSError):
        return None


def describe(fn) -> str:
    """"function 'name' (file.py:12)" for messages."""
    fn = inspect.unwrap(getattr(fn, "__func__", fn))
    code = getattr(fn, "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    return f"function '{getattr(fn, '__qualname__', fn)}'{where}"


class StaticFunction:
    """A function (or Layer method) converted to a static graph on first call.

    Use `paddle.jit.to_static` to create one. Attributes: `code` (the transformed source),
    `concrete_program`, `get_concrete_program(*specs)`, `rollback()`, `program_cache`,
    `dygraph_function`.
    """

    def __init__(self, function, input_spec=None, build_strategy=None, backend=None,
                 full_graph: bool = False, instance=None, **kwargs) -> None:
        if isinstance(function, StaticFunction):
            function = function._function
        self._function = getattr(function, "__func__", function)
        self._instance = instance if instance is not None else getattr(function,
                                                                       "__self__", None)
        self._input_spec = _check_input_spec(input_spec)
        self._build_strategy = build_strategy
        self._backend = backend
        self._full_graph = bool(full_graph)
        self._kwargs = kwargs
        self._converted = None
        self._cache = ProgramCache()
        self._per_instance = weakref.WeakKeyDictionary()
        self.__name__ = getattr(self._function, "__name__", "static_function")
        self.__qualname__ = getattr(self._function, "__qualname__", self.__name__)
        self.__doc__ = getattr(self._function, "__doc__", None)
        self.__wrapped__ = self._function

    # --- binding to Layer instances ------------------------------------------------------
    def __get__(self, instance, owner=None):
        if instance is None or self._instance is not None:
            return self
        bound = self._per_instance.get(instance)
        if bound is None:
            bound = StaticFunction(self._function, self._input_spec, self._build_strategy,
                                   self._backend, self._full_graph, instance, **self._kwargs)
            bound._converted = self._converted
            self._per_instance[instance] = bound
        return bound

    @property
    def dygraph_function(self):
        """The original function (bound to the layer for a method)."""
        if self._instance is not None:
            return self._function.__get__(self._instance)
        return self._function

    def _converted_function(self):
        if self._converted is None:
            self._converted = _convert(self._function)
            if _LEVELS["code"] > 0:
                _LOG.info("to_static: transformed code of %s:\n%s", describe(self._function),
                          self.code)
        fn = self._converted
        return fn.__get__(self._instance) if self._instance is not None else fn

    # --- calling ------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not _ENABLED[0]:
            return self.dygraph_function(*args, **kwargs)
        if _tracing():   # nested in another to_static trace: run inline
            try:
                fn = self._converted_function()
            except Exception as err:  # noqa: BLE001 - conversion failure: trace the original
                self._fallback(err, "converted")
                fn = self.dygraph_function
            return fn(*args, **kwargs)
        tensors, spec_args, spec_kwargs = self._specs(args, kwargs)
        key = (freeze((spec_args, spec_kwargs)), self._training(), _flags.trace_key())
        concrete = self._cache.get(key)
        if concrete is None:
            concrete = self._trace(key, spec_args, spec_kwargs)
        if concrete is ProgramCache.FALLBACK:
            return self.dygraph_function(*args, **kwargs)
        return concrete(tensors)

    def _trace(self, key, spec_args, spec_kwargs):
        if _LEVELS["verbosity"] > 0:
            _LOG.info("to_static: tracing %s for %s", describe(self._function), key[0])
        try:
            concrete = trace(self._converted_function(), spec_args, spec_kwargs,
                             describe(self._function), self.dygraph_function)
        except Exception as err:  # noqa: BLE001 - any conversion/trace failure falls back
            self._fallback(err, "traced")
            concrete = ProgramCache.FALLBACK
        self._cache.set(key, concrete)
        return concrete

    def _fallback(self, err: Exception, what: str) -> None:
        """Warn once per function that it runs eagerly (full_graph=True: raise instead)."""
        loc = locate(err, self._function)
        where = f" at {loc[0]}:{loc[1]}: {loc[2]}" if loc else ""
        message = (f"paddle.jit.to_static: {describe(self._function)} could not be {what} "
                   f"to a static graph{where}\n  reason: {type(err).__name__}: {err}")
        if self._full_graph:
            cls = dy2static_error_class()
            if isinstance(err, cls) and cls is not RuntimeError:
                raise err
            raise cls(message + "\n  (full_graph=True: no fallback to dynamic mode)") from err
        if self._function not in _WARNED:
            _WARNED.add(self._function)
            warnings.warn(message + "\n  it runs in dynamic mode instead", stacklevel=4)

    def _training(self):
        layer = self._instance
        sublayers = getattr(layer, "sublayers", None)
        if sublayers is None:
            return None
        return tuple(l.training for l in sublayers(include_self=True))

    def _specs(self, args: tuple, kwargs: dict):
        """The tensor leaves of the call, and args/kwargs with each replaced by its spec
        (from input_spec where given, else the tensor's own shape and dtype)."""
        tensors, tree = flatten((args, kwargs))
        given = flatten(self._input_spec, leaf=_spec_leaf)[0] if self._input_spec else []
        specs = []
        for i, t in enumerate(tensors):
            if not hasattr(t, "_data"):
                raise TypeError(f"{describe(self._function)}: argument {i} is a static "
                                f"Variable; call the function in dynamic mode")
            if i < len(given):
                spec = _as_spec(given[i])
                _check_compatible(self._function, i, spec, t)
            else:
                spec = InputSpec(t.shape, t.dtype, stop_gradient=bool(t.stop_gradient))
            specs.append(spec)
        spec_args, spec_kwargs = unflatten(tree, specs)
        return tensors, spec_args, spec_kwargs

    # --- inspection ---------------------------------------------------------------------
    @property
    def code(self) -> str:
        """The transformed source of the function (its own source if not transformed)."""
        self._converted_function()
        code = getattr(self._converted, "__sampan_code__", None)
        if code is not None:
            return code
        try:
            return textwrap.dedent(inspect.getsource(self._function))
        except (OSError, TypeError) as err:
            raise RuntimeError(f"StaticFunction.code: the source of "
                               f"{describe(self._function)} is not available ({err})") from None

    def get_concrete_program(self, *args, **kwargs):
        """Trace (or fetch from the cache) the program for these InputSpecs/Tensors; returns
        (concrete_program, runner)."""
        tensors, tree = flatten((args, kwargs), leaf=_spec_leaf)
        spec_args, spec_kwargs = unflatten(tree, [_as_spec(t) for t in tensors])
        key = (freeze((spec_args, spec_kwargs)), self._training(), _flags.trace_key())
        concrete = self._cache.get(key)
        if concrete is None or concrete is ProgramCache.FALLBACK:
            try:
                concrete = trace(self._converted_function(), spec_args, spec_kwargs,
                                 describe(self._function), self.dygraph_function)
            except Exception as err:  # noqa: BLE001
                loc = locate(err, self._function)
                where = f" at {loc[0]}:{loc[1]}: {loc[2]}" if loc else ""
                raise dy2static_error_class()(
                    f"{describe(self._function)} could not be converted to a static "
                    f"graph{where}\n  reason: {type(err).__name__}: {err}") from err
            self._cache.set(key, concrete)
        return concrete, concrete.runner

    @property
    def concrete_program(self):
        """The ConcreteProgram of `input_spec` (or of the latest call)."""
        if self._input_spec is not None:
            return self.get_concrete_program(*self._input_spec)[0]
        last = self._cache.last()
        if last is None:
            raise RuntimeError(f"StaticFunction.concrete_program: {describe(self._function)} "
                               f"has no input_spec and has not been called yet")
        return last

    @property
    def program_cache(self) -> ProgramCache:
        return self._cache

    @property
    def input_spec(self):
        return self._input_spec

    def rollback(self):
        """The original dynamic-mode function; on a Layer, `forward` is restored too."""
        layer = self._instance
        if layer is not None and layer.__dict__.get("forward") is self:
            del layer.__dict__["forward"]
        return self.dygraph_function

    def __repr__(self) -> str:
        return f"<StaticFunction of {describe(self._function)}>"


def _spec_leaf(x) -> bool:
    return isinstance(x, InputSpec) or is_tensor(x)


def _as_spec(x) -> InputSpec:
    return x if isinstance(x, InputSpec) else InputSpec.from_tensor(x)


def _check_compatible(fn, i: int, spec: InputSpec, t) -> None:
    shape = tuple(t.shape)
    ok = len(shape) == len(spec.shape) and all(d == -1 or d == s
                                               for d, s in zip(spec.shape, shape))
    if not ok:
        raise ValueError(f"{describe(fn)}: tensor input {i} has shape {list(shape)}, which "
                         f"does not match its InputSpec shape {list(spec.shape)}")


def _check_input_spec(input_spec):
    if input_spec is None:
        return None
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(f"paddle.jit.to_static: input_spec must be a list or tuple of "
                        f"InputSpec, got {type(input_spec).__name__}")
    return list(input_spec)


def to_static(function=None, input_spec=None, build_strategy=None, backend=None,
              full_graph: bool = False, **kwargs):
    """Convert a dynamic-mode function (or Layer) into a static graph function.

    Use as ``@to_static``, ``@to_static(input_spec=[...])``, on a ``Layer.forward``, or as
    ``to_static(layer, input_spec=...)`` on a Layer instance (its forward is replaced and the
    layer returned). The function's Python control flow on tensors is converted into graph
    ops; the result runs from dynamic mode and trains (gradients reach the layer's
    parameters). Code that cannot be converted runs in dynamic mode with a warning.

    Args:
        function (callable|Layer, optional): the function or Layer to convert.
        input_spec (list[InputSpec], optional): shapes/dtypes/names of the tensor inputs;
            None dims stay unknown (-1) so one program serves every size.
        build_strategy (BuildStrategy, optional): accepted for compatibility.
        backend (str, optional): None or "CINN" (accepted; sampan has one backend).
        full_graph (bool): raise instead of falling back to dynamic mode. Default False.

    Returns:
        StaticFunction, or the Layer with a converted forward.

    Examples:
        >>> import sampan as paddle
        >>> @paddle.jit.to_static
        ... def func(x):
        ...     if paddle.mean(x) < 0:
        ...         x_v = x - 1
        ...     else:
        ...         x_v = x + 1
        ...     return x_v
        >>> func(paddle.ones([1, 2])).numpy()
        array([[2., 2.]], dtype=float32)
    """
    if backend not in (None, "CINN"):
        raise ValueError(f"paddle.jit.to_static: backend must be None or 'CINN', got "
                         f"{backend!r}")
    _check_input_spec(input_spec)

    def decorate(fn):
        if hasattr(fn, "forward") and hasattr(fn, "sublayers"):   # a Layer instance
            fn.__dict__["forward"] = StaticFunction(fn.forward, input_spec, build_strategy,
                                                    backend, full_graph, **kwargs)
            return fn
        if not callable(fn):
            raise TypeError(f"paddle.jit.to_static: expected a function or Layer, got "
                            f"{type(fn).__name__}")
        return StaticFunction(fn, input_spec, build_strategy, backend, full_graph, **kwargs)

    return decorate if function is None else decorate(function)


def not_to_static(func=None):
    """Mark a function to be run as plain Python (its tensor ops are still recorded) when a
    to_static function calls it; usable as ``@not_to_static``."""
    if func is None:
        return not_to_static
    try:
        func._sampan_not_to_static = True
    except AttributeError:
        pass
    return func


def enable_to_static(enable_to_static_bool: bool) -> None:
    """Globally turn to_static conversion on (default) or off (functions run eagerly)."""
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(f"paddle.jit.enable_to_static: enable_to_static_bool must be a bool, "
                        f"got {type(enable_to_static_bool).__name__}")
    _ENABLED[0] = enable_to_static_bool


def ignore_module(modules: list) -> None:
    """Never convert functions of these modules (called from to_static code, they run as
    plain Python)."""
    if not isinstance(modules, (list, tuple)):
        raise TypeError(f"paddle.jit.ignore_module: modules must be a list of modules, got "
                        f"{type(modules).__name__}")
    names = []
    for m in modules:
        name = getattr(m, "__name__", None)
        if not isinstance(name, str):
            raise TypeError(f"paddle.jit.ignore_module: {m!r} is not a module")
        names.append(name)
    _IGNORED.update(names)
    try:
        from . import transform
    except ImportError:   # TODO(h5): drop once sampan.jit.transform is complete (#9)
        return
    ignored = getattr(transform, "IGNORED_MODULES", None)
    if ignored is not None:
        ignored.update(names)


def _set_level(api: str, key: str, level, also_to_stdout) -> None:
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"paddle.jit.{api}: level must be an int, got {type(level).__name__}")
    _LEVELS[key] = level
    if level > 0:
        _LOG.setLevel(logging.INFO)
    if also_to_stdout and not any(getattr(h, "_sampan_stdout", False) for h in _LOG.handlers):
        handler = logging.StreamHandler(sys.stdout)
        handler._sampan_stdout = True
        _LOG.addHandler(handler)


def set_code_level(level: int = 100, also_to_stdout: bool = False) -> None:
    """Log the transformed code of each converted function (level > 0) to the
    "sampan.jit" logger (and stdout with also_to_stdout=True)."""
    _set_level("set_code_level", "code", level, also_to_stdout)


def set_verbosity(level: int = 0, also_to_stdout: bool = False) -> None:
    """Log to_static's tracing decisions (level > 0) to the "sampan.jit" logger."""
    _set_level("set_verbosity", "verbosity", level, also_to_stdout)
