"""dy2static conversion: parse a function's source, run the ordered transformer pipeline
(one Python construct each), compile the result with the user's line numbers, and rebuild
the function with its globals, closure cells and defaults. `convert_function` is what
`paddle.jit.to_static` (sampan/jit/api.py) and `convert_call` use.

Imports `sampan.jit.errors` only at import time (the converters are bound lazily).
"""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import types
import weakref

from ..errors import Dy2StaticError, Unsupported, is_converted_code, register
from .base import JST, Counter
from .control import (DeclareTransformer, ForTransformer, IfTransformer, StateAnalysis,
                      WhileTransformer)
from .exprs import (AssertTransformer, CallTransformer, CompareTransformer,
                    IfExpTransformer, LogicalTransformer, MangleTransformer, ShapeTransformer,
                    SuperTransformer)
from .jumps import BreakContinueTransformer, ReturnTransformer

__all__ = ["convert_function", "Unsupported", "IGNORED_MODULES", "PIPELINE",
           "transformed_source"]


# module-name prefixes whose functions are never converted (extend with jit.ignore_module)
IGNORED_MODULES: set = set()
_ALWAYS_IGNORED = ("sampan", "numpy", "scipy", "builtins", "abc", "collections", "copy",
                   "functools", "inspect", "itertools", "math", "operator", "typing", "re",
                   "os", "sys", "warnings", "logging", "contextlib", "enum", "dataclasses",
                   "json", "random", "threading", "weakref", "types", "_pytest", "pytest",
                   "unittest")

# The ordered pipeline. Each entry builds a transformer from the conversion context.
PIPELINE = (
    ("mangle private names", lambda c: MangleTransformer(c.cls) if c.cls else None),
    ("return -> flags", lambda c: ReturnTransformer(c.counter)),
    ("break/continue -> flags", lambda c: BreakContinueTransformer(c.counter)),
    ("state of if/while/for", lambda c: StateAnalysis()),
    ("for -> while", lambda c: ForTransformer(c.counter)),
    ("while -> convert_while_loop", lambda c: WhileTransformer(c.counter)),
    ("if -> convert_ifelse", lambda c: IfTransformer(c.counter)),
    ("ternary -> convert_ifelse_expr", lambda c: IfExpTransformer()),
    ("and/or/not -> convert_logical_*", lambda c: LogicalTransformer()),
    ("chained comparison -> convert_compare", lambda c: CompareTransformer()),
    ("assert -> convert_assert", lambda c: AssertTransformer()),
    ("x.shape -> convert_shape", lambda c: ShapeTransformer()),
    ("f(...) -> convert_call(f)(...)", lambda c: CallTransformer()),
    ("super() -> super(__class__, self)", lambda c: SuperTransformer(c.has_class_cell)),
    ("declare helper state", lambda c: DeclareTransformer()),
)

_FACTORY = "__sampan_factory__"
_INNER = "__sampan_converted__"


class _Context:
    def __init__(self, fn) -> None:
        self.counter = Counter()
        self.cls = _class_name(fn.__qualname__)
        self.has_class_cell = "__class__" in fn.__code__.co_freevars


def _class_name(qualname: str) -> str | None:
    parts = qualname.split(".")
    if len(parts) < 2 or parts[-2] == "<locals>":
        return None
    return parts[-2]


# library modules converted all the same: containers whose forward calls user sublayers
_CONVERTED_LIBRARY = ("sampan.nn.layer.container",)


def is_ignored(fn) -> bool:
    module = getattr(fn, "__module__", None) or ""
    if module in _CONVERTED_LIBRARY:
        return False
    for prefix in _ALWAYS_IGNORED + tuple(IGNORED_MODULES):
        if module == prefix or module.startswith(prefix + "."):
            return True
    return False


def _parse(fn):
    """The FunctionDef of fn with the user's line numbers, or None without source."""
    if fn.__code__.co_name == "<lambda>":
        return _parse_lambda(fn.__code__)
    try:  # the code object: getsourcelines(fn) would follow a decorator's __wrapped__
        lines, start = inspect.getsourcelines(fn.__code__)
    except (OSError, TypeError):
        return None
    src = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef) or node.name != fn.__code__.co_name:
        return None   # lambdas and other one-line definitions
    ast.increment_lineno(tree, start - 1)
    node.decorator_list = []
    return node


def _parse_lambda(code):
    """A lambda as `def <lambda>(args): return body`, found in its file by line and
    parameter names; None when that is ambiguous (two such lambdas on one line)."""
    lines = linecache.getlines(code.co_filename)
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS) \
        + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    params = list(code.co_varnames[:n])
    found = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)
             and node.lineno == code.co_firstlineno and _lambda_params(node) == params]
    if len(found) != 1:
        return None
    lam = found[0]
    node = ast.FunctionDef(name="<lambda>", args=lam.args, body=[ast.Return(value=lam.body)],
                           decorator_list=[], returns=None, type_comment=None)
    for n_ in (node, node.body[0]):
        ast.copy_location(n_, lam)
    return node


def _lambda_params(node: ast.Lambda) -> list:
    a = node.args
    names = [x.arg for x in a.posonlyargs + a.args]
    names += [x.arg for x in a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return names


def transform(fn, node: ast.FunctionDef) -> ast.Module:
    """Run the pipeline on fn's definition, wrapped in a factory function whose parameters
    are `_jst` and fn's free variables (so the converted code keeps its closure cells)."""
    ctx = _Context(fn)
    params = [JST] + [n for n in fn.__code__.co_freevars if n != JST]
    factory = ast.FunctionDef(
        name=_FACTORY, args=ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params],
                                          vararg=None, kwonlyargs=[], kw_defaults=[],
                                          kwarg=None, defaults=[]),
        body=[node, ast.Return(value=ast.Name(node.name, ast.Load()))], decorator_list=[],
        returns=None, type_comment=None)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.copy_location(factory, node)
    for _, make in PIPELINE:
        t = make(ctx)
        if t is not None:
            module = t.visit(module)
    ast.fix_missing_locations(module)
    return module


class _Entry:
    __slots__ = ("code", "source")

    def __init__(self, code, source: str) -> None:
        self.code, self.source = code, source


_CODE_CACHE: dict = {}                       # original code object -> _Entry | None
_FN_CACHE = weakref.WeakKeyDictionary()      # original function -> converted function


def _entry(fn):
    code = fn.__code__
    if code in _CODE_CACHE:
        return _CODE_CACHE[code]
    node = _parse(fn)
    entry = None
    if node is not None:
        filename = code.co_filename
        try:
            module = transform(fn, node)
            source = ast.unparse(node)
            # compiled under a private name: a def binds its name in the factory, which would
            # shadow the global the function may call itself by (recursion)
            node.name = _INNER
            module.body[0].body[-1].value.id = _INNER
            compiled = compile(module, filename, "exec")
        except Dy2StaticError:
            raise
        except Exception as e:  # a transformer bug or syntax we cannot rebuild
            raise Unsupported(f"cannot convert {fn.__qualname__}: {type(e).__name__}: {e}",
                              code.co_filename, node.lineno,
                              f"def {fn.__name__}(...)",
                              what=f"function '{fn.__qualname__}'") from e
        inner = _find_code(compiled, _INNER).replace(co_name=code.co_name,
                                                     co_qualname=fn.__qualname__)
        register(inner, fn.__qualname__)
        entry = _Entry(inner, source)
    _CODE_CACHE[code] = entry
    return entry


def _find_code(module_code, fname: str):
    factory = next(c for c in module_code.co_consts if isinstance(c, types.CodeType))
    return next(c for c in factory.co_consts
                if isinstance(c, types.CodeType) and c.co_name == fname)


def _convertible(fn) -> bool:
    if not isinstance(fn, types.FunctionType):
        return False
    if getattr(fn, "_sampan_not_to_static", False) or getattr(fn, "__sampan_code__", None):
        return False
    if is_converted_code(fn.__code__):   # defined inside converted code: already converted
        return False
    flags = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
    return not (fn.__code__.co_flags & flags) and not is_ignored(fn)


def convert_function(fn):
    """The converted twin of `fn` (same signature, globals, closure and defaults), whose
    body calls the runtime converters; `converted.__sampan_code__` is its source. Bound
    methods convert their function and rebind. Anything that cannot be converted (builtins,
    no source, not_to_static, ignored modules, generators) comes back unchanged.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.jit.transform import convert_function
        >>> def f(x):
        ...     if x > 0:
        ...         x = x + 1
        ...     return x
        >>> convert_function(f)(paddle.to_tensor(1.0)).item()
        2.0
    """
    if isinstance(fn, types.MethodType):
        new = convert_function(fn.__func__)
        return fn if new is fn.__func__ else types.MethodType(new, fn.__self__)
    if not _convertible(fn):
        return fn
    done = _FN_CACHE.get(fn)
    if done is not None:
        return done
    entry = _entry(fn)
    if entry is None:
        return fn
    new = _rebuild(fn, entry)
    _FN_CACHE[fn] = new
    return new


def _rebuild(fn, entry: _Entry):
    from .. import convert as _convert  # runtime converters (a sibling module of jit)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(cells[n] if n in cells else types.CellType(_convert)
                    for n in entry.code.co_freevars)
    new = types.FunctionType(entry.code, fn.__globals__, fn.__name__, fn.__defaults__,
                             closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__dict__.update(fn.__dict__)
    for attr in ("__qualname__", "__module__", "__doc__", "__annotations__"):
        setattr(new, attr, getattr(fn, attr))
    # NOTE: no reference back to fn (e.g. __wrapped__): _FN_CACHE is weak in fn and its
    # value must not keep fn alive, or converted closures would never be freed
    new.__sampan_code__ = entry.source
    return new


def transformed_source(fn) -> str | None:
    """The transformed source of fn (what StaticFunction.code shows), or None."""
    new = convert_function(fn)
    return getattr(new, "__sampan_code__", None)
