"""Paddle 3.3.1's call forms added to public functions by ONE wrapper per function: the
keyword-only `out=`, alias keywords (`input=`, `dim=`, ...) and PyTorch-style positional
forms (`paddle.ones(2, 3)`); the alias and form tables are data in param_alias.py.

Paddle 3.3.1 gives ~180 public functions and Tensor methods a keyword-only `out=None`.
Its behaviour (recorded from Paddle 3.3.1 in tests/tensor/test_out_arg.py): the function
computes its result as usual, then `out` takes that result over - its value, shape,
dtype and graph position (gradients flow through `out` as through the result); `out`'s
own shape and dtype do not matter. A multi-output function (topk, svd) takes a tuple
with one Tensor per output. `write_out` does exactly this through the in-place path
(`Tensor._rebind`, or the static Variable's SSA rebind), so eager, autograd and static
mode keep working. Without `out` and aliases in the call the wrapper costs one extra
Python call and a test or two (measured, CPU time per call against the wrapper of `out` alone:
paddle.add +0.00 us, x.sum(axis=0) +0.07 us, x.reshape([6, 4]) +0.25 us: reshape had none).

The `out` name lists are data from Paddle 3.3.1's signatures. This module imports only
`framework` and its sibling param_alias.
"""
from __future__ import annotations

import functools
import inspect

from ..framework.tensor import Tensor, is_variable
from .param_alias import CPP_PARSED, FORMS, FORMS_BY_PREFIX, OVERLOADS, TABLES, both_given

# paddle.<name> and/or paddle.Tensor.<name> with `out` in Paddle 3.3.1 (sampan.tensor family
# functions; the Tensor methods are bound from the same objects).
TENSOR_NAMES = (
    "abs", "acos", "acosh", "add", "all", "amax", "amin", "any", "arange", "atanh", "bmm",
    "bucketize", "ceil", "clip", "complex", "concat", "cos", "cosh", "cumprod", "cumsum",
    "diff", "divide", "dot", "empty", "equal", "exp", "expm1", "eye", "floor",
    "floor_divide", "floor_mod", "frac", "full", "greater_equal", "greater_than",
    "index_add", "index_select", "less_equal", "less_than", "linspace", "log", "log10",
    "log1p", "log2", "logsumexp", "masked_select", "matmul", "maximum", "mean", "median",
    "minimum", "mod", "multinomial", "multiply", "nonzero", "normal", "not_equal", "ones",
    "outer", "polar", "pow", "quantile", "rand", "randn", "randperm", "remainder", "round",
    "rsqrt", "searchsorted", "sigmoid", "sign", "sin", "sinh", "solve", "sqrt", "stack",
    "standard_normal", "subtract", "sum", "take_along_axis", "tanh", "topk", "tril", "triu",
    "uniform", "var", "where", "zeros")
# paddle.fft.<name>, paddle.linalg.<name>, paddle.nn.functional.<name> with `out`
FFT_NAMES = (
    "fft", "fft2", "fftfreq", "fftn", "hfft", "hfft2", "hfftn", "ifft", "ifft2", "ifftn",
    "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq",
    "rfftn")
LINALG_NAMES = ("solve", "svd")
FUNCTIONAL_NAMES = ("sigmoid", "softmax", "tanh")


def with_out(fn, api: str | None = None):
    """`fn` with a keyword-only `out=None` (Paddle 3.3.1) in its call and `__signature__`.

    Args:
        fn (callable): a public function returning a Tensor or a tuple of Tensors.
        api (str, optional): the name used in error messages (default: ``fn.__name__``).

    Returns:
        callable: the wrapper; `fn` itself if it is wrapped already or takes `out` itself.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> out = paddle.zeros([2])
            >>> r = paddle.add(paddle.ones([2]), paddle.ones([2]), out=out)
            >>> r is out, out.numpy().tolist()
            (True, [2.0, 2.0])
    """
    if getattr(fn, "_with_out", False):
        return fn
    return wrap(fn, api or f"paddle.{fn.__name__}", out=True)


def wrap(fn, api: str, out: bool = False, aliases: dict | None = None, forms=None,
         both: str | None = None):
    """`fn` behind ONE wrapper that takes Paddle 3.3.1's call forms: a keyword-only `out=`
    (`out`), alias keywords (`aliases`: {alias: parameter}, param_alias.TABLES) and
    positional forms (`forms(args, kwargs) -> (args, kwargs)`, param_alias.FORMS).

    A wrapper of this module is unwrapped first, so the features merge into one wrapper.
    Without aliases in the call and without `out` the wrapper costs one Python call.

    Args:
        fn (callable): the public function.
        api (str): its public name, for error messages and param_alias.both_given.
        out (bool): add `out=` unless `fn` takes `out` itself.
        aliases (dict, optional): {alias: canonical parameter name}.
        forms (callable, optional): rewrites positional call forms.
        both (str, optional): 'value', 'type' or 'wins' when a name and its alias are both
            given (default: param_alias.both_given(api)).

    Returns:
        callable: the wrapper, or `fn` when there is nothing to add.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> paddle.sum(paddle.ones([2, 3]), dim=0).numpy().tolist()
            [2.0, 2.0, 2.0]
    """
    spec = getattr(fn, "_call_spec", None)
    if spec is not None:  # one of ours: merge, so that a function is wrapped once
        fn, out = spec[0], out or spec[1]
        aliases = {**spec[2], **(aliases or {})}
        forms = forms or spec[3]
    sig = inspect.signature(fn)
    out = out and "out" not in sig.parameters  # a function that takes `out` keeps its own
    aliases = aliases or {}
    if not out and not aliases and forms is None:
        return fn
    rename = _renamer(api, aliases, sig, both) if aliases else None
    keys = frozenset(aliases)
    wrapper = _make(fn, api, out, keys, rename, forms)
    functools.update_wrapper(wrapper, fn)
    wrapper.__signature__ = _signature_with_out(sig) if out else sig
    wrapper._with_out = out
    wrapper._call_spec = (fn, out, aliases, forms)
    return wrapper


def _make(fn, api, out, keys, rename, forms):
    if forms is not None:
        return _make_with_forms(fn, api, out, keys, rename, forms)
    if out:
        def wrapper(*args, out=None, **kwargs):
            if kwargs and not keys.isdisjoint(kwargs):
                rename(args, kwargs)
            if out is None:
                return fn(*args, **kwargs)
            return write_out(api, fn(*args, **kwargs), out)
        return wrapper

    def wrapper(*args, **kwargs):
        if kwargs and not keys.isdisjoint(kwargs):
            rename(args, kwargs)
        return fn(*args, **kwargs)
    return wrapper


_SEQUENCES = (list, tuple)


def _make_with_forms(fn, api, out, keys, rename, forms):
    # the form runs only when its trigger is there, so x.reshape([2, 3]) pays two tests
    first, on_kwargs = forms.first, forms.on_kwargs
    if out:
        def wrapper(*args, out=None, **kwargs):
            if ((len(args) > first and args[first].__class__ not in _SEQUENCES)
                    or (on_kwargs and kwargs)):
                args, kwargs = forms(args, kwargs)
            if kwargs and not keys.isdisjoint(kwargs):
                rename(args, kwargs)
            if out is None:
                return fn(*args, **kwargs)
            return write_out(api, fn(*args, **kwargs), out)
        return wrapper

    def wrapper(*args, **kwargs):
        if ((len(args) > first and args[first].__class__ not in _SEQUENCES)
                or (on_kwargs and kwargs)):
            args, kwargs = forms(args, kwargs)
        if kwargs and not keys.isdisjoint(kwargs):
            rename(args, kwargs)
        return fn(*args, **kwargs)
    return wrapper


def _renamer(api: str, aliases: dict, sig: inspect.Signature, both: str | None = None):
    """rename(args, kwargs): alias keywords -> their parameter, with Paddle's errors."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    position = {name: i for i, (name, p) in enumerate(sig.parameters.items())
                if p.kind in kinds}
    both = both or both_given(api)
    cpp = api in CPP_PARSED

    def rename(args: tuple, kwargs: dict) -> None:
        for alias in [k for k in kwargs if k in aliases]:
            canonical = aliases[alias]
            if canonical in kwargs and both != "wins":
                if both == "type":
                    raise TypeError(f"{api}() got an unexpected keyword argument '{alias}' "
                                    f"('{alias}' is an alias of '{canonical}', given too)")
                raise ValueError(f"{api}(): cannot specify both '{canonical}' and its alias "
                                 f"'{alias}'")
            if len(args) > position.get(canonical, len(args)):
                error = ValueError if cpp else TypeError
                raise error(f"{api}() got multiple values for argument '{canonical}' (by "
                            f"position and as its alias '{alias}')")
            kwargs[canonical] = kwargs.pop(alias)
    return rename


def _signature_with_out(sig: inspect.Signature) -> inspect.Signature:
    params = list(sig.parameters.values())
    at = len(params)
    if params and params[-1].kind is inspect.Parameter.VAR_KEYWORD:
        at -= 1
    params.insert(at, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    return sig.replace(parameters=params)


def write_out(api: str, result, out):
    """Make `out` (a Tensor, or a tuple of them for several outputs) take `result` over."""
    if isinstance(result, (tuple, list)):
        if not isinstance(out, tuple) or len(out) != len(result):
            raise ValueError(f"{api}: the out argument must be a tuple with {len(result)} "
                             f"elements (one Tensor per output), got {_describe(out)}")
        for i, (r, o) in enumerate(zip(result, out)):
            _check_target(f"{api}: out[{i}]", o, r)
            o._rebind(r)
        return out
    _check_target(f"{api}: out", out, result)
    return out._rebind(result)


def _check_target(what: str, out, result) -> None:
    if is_variable(out):
        if not is_variable(result):
            raise TypeError(f"{what} is a static Variable but the result is an eager Tensor "
                            f"(call it while building the Program)")
    elif not isinstance(out, Tensor):
        raise TypeError(f"{what} must be a Tensor, got {_describe(out)}")
    elif is_variable(result):
        raise TypeError(f"{what} is an eager Tensor but the result is a static Variable; "
                        f"pass a Variable of the Program being built (e.g. paddle.zeros "
                        f"called in static mode)")


def _describe(value) -> str:
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    return type(value).__name__


def install(namespace: dict, names, prefix: str) -> None:
    """Wrap, in `namespace` (a module's globals or the FUNCTIONS dict), each of `names` with
    `out=` and every name of param_alias's table for `prefix` with its aliases and forms.
    Other names bound to the same function (clamp/clip) get the same wrapper, as in Paddle;
    names sharing a function but not their aliases (mul/multiply) get wrappers of their own."""
    table = TABLES.get(prefix, {})
    forms = FORMS_BY_PREFIX.get(prefix, {})
    if prefix == "paddle.":
        _install_overloads(namespace)
    made, first = {}, {}
    # `out` belongs to the function object: every name bound to it gets it (clamp/clip)
    with_out_ids = {id(_base(namespace[n])) for n in names if n in namespace}
    for name in sorted(set(names) | set(table) | set(forms)):
        fn = namespace.get(name)
        if isinstance(fn, type):  # a class (finfo): its constructor takes the aliases
            wrap_method(fn, "__init__", prefix + name, table.get(name))
            continue
        if fn is None or not callable(fn):
            continue
        base = _base(fn)
        out = id(base) in with_out_ids
        aliases = table.get(name, {})
        key = (id(base), out, tuple(sorted(aliases.items())), forms.get(name),
               both_given(prefix + name), prefix + name in CPP_PARSED)
        if key not in made:
            made[key] = wrap(fn, prefix + name, out, aliases, forms.get(name))
        namespace[name] = made[key]
        first.setdefault(id(base), made[key])
    for name, fn in list(namespace.items()):
        if callable(fn) and id(fn) in first and name not in table and name not in forms:
            namespace[name] = first[id(fn)]


def wrap_method(cls: type, method: str, api: str, aliases: dict | None, forms=None,
                both: str | None = None) -> None:
    """Give `cls.<method>` (its own or inherited; set on `cls` itself) aliases and forms."""
    fn = getattr(cls, method, None)
    if fn is None or not (aliases or forms):
        return
    spec = getattr(fn, "_call_spec", None)
    if spec is not None and method in cls.__dict__:
        return  # done already
    setattr(cls, method, wrap(fn, api, False, aliases, forms, both))


def _install_overloads(namespace: dict) -> None:
    """gather/scatter/scatter_: PyTorch's (input, dim, index, ...) form goes to its own
    function (param_alias.OVERLOADS), Paddle's form to the original."""
    for name, (is_torch, make) in OVERLOADS.items():
        fn = namespace.get(name)
        if fn is None or getattr(fn, "_overloaded", False):
            continue
        try:
            torch_form = make(namespace)
        except KeyError:  # a namespace without the target function
            continue

        def dispatcher(*args, _fn=fn, _is_torch=is_torch, _torch=torch_form, **kwargs):
            if _is_torch(args, kwargs):
                return _torch(*args, **kwargs)
            return _fn(*args, **kwargs)
        functools.update_wrapper(dispatcher, fn)
        dispatcher._overloaded = True
        namespace[name] = dispatcher


def _base(fn):
    return getattr(fn, "_call_spec", (fn,))[0]


def install_methods(cls: type, prefix: str = "paddle.") -> None:
    """Give `cls`'s methods named in the `prefix` table (Tensor-only ones, or methods not
    bound from the public function) their aliases and forms."""
    table, forms = TABLES[prefix], FORMS
    for name in set(table) | set(forms):
        fn = cls.__dict__.get(name)
        if fn is None or not callable(fn) or isinstance(fn, type):
            continue
        spec = getattr(fn, "_call_spec", None)
        if spec is not None and (spec[2] or spec[3]):
            continue  # bound from a wrapped public function
        setattr(cls, name, wrap(fn, prefix + name, False, table.get(name), forms.get(name)))
