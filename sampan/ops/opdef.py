"""OpDef (the single definition of an operator), TensorSpec and the registry.

Every consumer (eager dispatch, static Programs, both backward engines, the Executor,
passes, export, the generic tests) reads the same OpDef. Imports only `framework`.
"""
from __future__ import annotations

from ..framework import dtype as _dt


class TensorSpec:
    """Shape (tuple, -1 = unknown) and dtype of a value, with no data."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype) -> None:
        self.shape = tuple(int(s) for s in shape)
        self.dtype = _dt.convert_dtype(dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def with_dtype(self, dtype) -> "TensorSpec":
        return TensorSpec(self.shape, dtype)

    def with_shape(self, shape) -> "TensorSpec":
        return TensorSpec(shape, self.dtype)

    def __eq__(self, other) -> bool:
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype is other.dtype)

    def __repr__(self) -> str:
        return f"TensorSpec(shape={list(self.shape)}, dtype={self.dtype.name})"


class OpDef:
    """Base class of every operator definition. Subclass, fill the fields, `@register`.

    Fields (see STYLE.md section 2):
      name      snake_case op type, equal to the public function name.
      inputs    tensor parameter names in order; "*xs" marks one variadic (list) input and
                a trailing "?" an optional input that may be None ("bias?").
      outputs   output names; len > 1 or a "*name" entry (variable count) means compute
                returns a tuple.
      attrs     {attr: default}; JSON-serializable values.
      saves     names of inputs/outputs that `vjp` reads (None = every input).
      promote   binary elementwise: dispatch casts tensor inputs to the promoted dtype.
      check     eager calls `infer` before `compute` (for ops whose kernel would silently
                accept bad input); otherwise `infer` runs only to explain a kernel error.
      random    compute takes a `seed` attr; the Executor draws a seed 0 at every run.
      onnx      None, an ONNX op type (1:1) or fn(builder, node).
      decompose optional fn(*inputs, **attrs) in primitives, equal to compute.
      vjp       fn(ctx, *grads) -> grads per input (None where not differentiable), written
                in sampan ops; None marks the whole op non-differentiable.
      nondiff_outputs  output indices that never carry a gradient (integer indices, masks).
      test_attrs  attrs that switch the op to inference behaviour; Program.clone(for_test=True)
                applies them (dropout: training=False, batch_norm: use_global_stats=True).
      side_effects  the op does more than compute its outputs (py_func, print): passes
                never fold, merge or remove it.
      none_grads  multi-output ops: the vjp gets None (not zeros) for outputs that received
                no gradient, and skips their terms.
      runs_blocks  control flow: the Executor hands compute a `_run_block(block_idx, feed,
                fetch)` callable at run time (see ops/control_flow.py).
      version   the op's format version, recorded by jit.save; bump it when the meaning of
                an input, output or attr changes, so old saved models are refused clearly.
    """

    name: str = ""
    inputs: tuple = ("x",)
    outputs: tuple = ("out",)
    attrs: dict = {}
    saves: tuple | None = None
    promote = False
    check = False
    random = False
    onnx = None
    decompose = None
    vjp = None
    nondiff_outputs: tuple = ()
    test_attrs: dict = {}
    runs_blocks = False
    none_grads = False
    side_effects = False
    version: int = 1

    def __init__(self) -> None:
        names = [n.lstrip("*").rstrip("?") for n in self.inputs]
        self.input_names = tuple(names)
        self.variadic = tuple(n.startswith("*") for n in self.inputs)
        self.optional = tuple(n.endswith("?") for n in self.inputs)
        self.has_variadic = any(self.variadic)
        # "*out" declares a variable number of outputs (split): compute returns a tuple
        self.multi_out = len(self.outputs) > 1 or any(o.startswith("*") for o in self.outputs)
        saves = self.input_names if self.saves is None else self.saves
        self.saved_inputs = tuple(i for i, n in enumerate(self.input_names) if n in saves)
        self.saved_outputs = tuple(i for i, n in enumerate(self.outputs) if n in saves)
        unknown = set(saves) - set(self.input_names) - set(self.outputs)
        if unknown:
            raise ValueError(f"OpDef {self.name}: saves names {sorted(unknown)} that are "
                             f"neither inputs nor outputs")

    def infer(self, *specs, **attrs):
        raise NotImplementedError(f"OpDef {self.name} defines no infer")

    def compute(self, xp, *arrays, **attrs):
        raise NotImplementedError(f"OpDef {self.name} defines no compute")

    def __repr__(self) -> str:
        return f"<OpDef {self.name}>"


REGISTRY: dict = {}


def register(cls):
    """Class decorator: instantiate the OpDef and enter it in REGISTRY under its name."""
    op = cls()
    if not op.name:
        raise ValueError(f"OpDef {cls.__name__} has no name")
    if op.name in REGISTRY:
        raise ValueError(f"OpDef {op.name!r} registered twice")
    REGISTRY[op.name] = op
    return op


def get_op(name: str) -> OpDef:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"no operator named {name!r} is registered") from None


# --- helpers for infer functions ---------------------------------------------------------

def broadcast_shapes(api: str, a: tuple, b: tuple, names=("x", "y")) -> tuple:
    """Numpy broadcasting of two shapes (-1 = unknown), with a Paddle-style error."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else 1
        db = b[-i] if i <= len(b) else 1
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        elif da == -1 or db == -1:
            out.append(max(da, db))
        else:
            raise ValueError(f"{api}: shape of {names[0]} {list(a)} and shape of {names[1]} "
                             f"{list(b)} cannot be broadcast together (dim {-i}: {da} vs {db})")
    return tuple(reversed(out))


class AxisError(IndexError, ValueError):
    """An axis out of range. Paddle raises ValueError for it in most APIs and IndexError in
    some (as NumPy's AxisError, this is both)."""


def norm_axis(api: str, axis: int, ndim: int, arg: str = "axis") -> int:
    """Map a possibly negative axis into [0, ndim); AxisError naming the API if out of range."""
    lo, hi = -max(ndim, 1), max(ndim, 1)
    if not lo <= axis < hi:
        raise AxisError(f"{api}: {arg} {axis} is out of range for a tensor with {ndim} "
                         f"dims (expected {lo} <= {arg} < {hi})")
    return axis % max(ndim, 1)


def require_float(api: str, spec: TensorSpec, arg: str = "x") -> None:
    if spec.dtype.kind not in "fc":
        raise TypeError(f"{api}: {arg} must be a floating point tensor, got {spec.dtype.name}")
