"""The ONNX graph builder that OpDef lowering rules call, and the node view they receive.

A rule is `fn(builder, node)` (an `onnx` method on the OpDef) returning the ONNX names of the
op's outputs (one name, or a list with None for outputs it does not produce). Rules never
import onnx: they call `builder.op(...)`, `builder.const(...)` and the small helpers here.
Imports `onnx` lazily (only while exporting) and nothing of sampan above `framework`/`ops`.
"""
from __future__ import annotations

import numpy as np

from .nn_helpers import Fallback, NNHelpers  # noqa: F401 (Fallback: for rules and lower)


class Unsupported(Exception):
    """A rule cannot lower this particular use of its op (the reason names what)."""


class Node:
    """What a lowering rule sees of one Operator.

    inputs    ONNX names aligned with the OpDef's input names (a list for a variadic input,
              None for an absent optional input).
    specs     the matching Variables (`.shape` with -1 for unknown, `.dtype`), same alignment.
    outs      the op's output Variables, flat.
    attrs     the op's attrs with the OpDef defaults filled in.
    """

    def __init__(self, op, opdef, inputs: list, specs: list, outs: list) -> None:
        self.op = op
        self.type = op.type
        self.inputs = inputs
        self.specs = specs
        self.outs = outs
        self.attrs = {**opdef.attrs, **op.attrs}

    def __getitem__(self, key: str):
        return self.attrs[key]

    def out_shape(self, k: int = 0) -> list:
        return list(self.outs[k].shape)

    def out_dtype(self, k: int = 0):
        return np.dtype(self.outs[k].dtype.name)


def np_dtype(dtype) -> np.dtype:
    """numpy dtype of a sampan DType / name / numpy dtype."""
    return np.dtype(getattr(dtype, "name", dtype))


def onnx_dtype(dtype) -> int:
    """TensorProto element type of a sampan DType (or numpy dtype)."""
    from onnx import helper
    try:
        return helper.np_dtype_to_tensor_dtype(np_dtype(dtype))
    except (KeyError, TypeError):
        raise Unsupported(f"dtype {getattr(dtype, 'name', dtype)} has no ONNX type") from None


def _flat(items: list) -> list:
    return [i for x in items for i in (x if isinstance(x, list) else [x])]


class GraphBuilder(NNHelpers):
    """Collects the nodes of one ONNX graph; constants go to the root graph's initializers.

    Subgraphs (If branches, Loop bodies) are child builders sharing the root's name set, so
    every name in the model is unique (ONNX requires it across nesting). Rules raise
    `b.Unsupported(reason)` for a use they cannot lower and `b.Fallback()` to lower this use
    through the OpDef's `decompose`."""

    Unsupported = Unsupported
    Fallback = Fallback

    def __init__(self, parent: "GraphBuilder | None" = None) -> None:
        self.parent = parent
        self.root = self if parent is None else parent.root
        self.nodes: list = []
        if parent is None:
            self.initializers: list = []
            self.used: set = set()
            self._count = 0

    # --- names ----------------------------------------------------------------------------
    def fresh(self, hint: str = "t") -> str:
        root = self.root
        base = "".join(c if c.isalnum() or c in "_." else "_" for c in hint) or "t"
        name = base
        while name in root.used:
            root._count += 1
            name = f"{base}_{root._count}"
        root.used.add(name)
        return name

    def reserve(self, name: str) -> str:
        self.root.used.add(name)
        return name

    # --- nodes and constants ----------------------------------------------------------------
    def op(self, op_type: str, inputs: list, n_out: int = 1, outputs: list | None = None,
           **attrs):
        """Append an ai.onnx node; returns its output name (or a list when n_out > 1)."""
        from onnx import helper
        outs = outputs or [self.fresh(op_type.lower()) for _ in range(n_out)]
        ins = ["" if i is None else i for i in inputs]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(helper.make_node(op_type, ins, outs, **attrs))
        return outs[0] if len(outs) == 1 and n_out == 1 else outs

    def const(self, value, dtype=None, hint: str = "const") -> str:
        """An initializer holding `value` (dtype default: the value's own)."""
        from onnx import numpy_helper
        arr = np.asarray(value, dtype=None if dtype is None else np_dtype(dtype))
        name = self.fresh(hint)
        self.root.initializers.append(numpy_helper.from_array(np.array(arr, order="C"), name))
        return name

    def initializer(self, name: str, value) -> str:
        from onnx import numpy_helper
        self.root.initializers.append(numpy_helper.from_array(np.array(value, order="C"),
                                                              self.reserve(name)))
        return name

    def ints(self, values) -> str:
        """An int64 1-D constant (axes, shapes, starts...)."""
        return self.const(np.asarray(list(values), np.int64).reshape(-1), hint="ints")

    # --- helpers shared by rules -----------------------------------------------------------
    def cast(self, x: str, dtype) -> str:
        return self.op("Cast", [x], to=onnx_dtype(dtype))

    def scalar(self, value, dtype) -> str:
        return self.const(np.asarray(value, np_dtype(dtype)))

    def reshape(self, x: str, shape) -> str:
        """Reshape to a static shape list (0 copies the input dim, one -1 is inferred)."""
        return self.op("Reshape", [x, self.ints(shape)])

    def shape_of(self, x: str, start: int | None = None, end: int | None = None) -> str:
        kw = {}
        if start is not None:
            kw["start"] = start
        if end is not None:
            kw["end"] = end
        return self.op("Shape", [x], **kw)

    def reduce(self, op_type: str, x: str, axes, keepdims: bool) -> str:
        """Reduce over `axes` (None: all). ReduceSum takes axes as an input in opset 13+, the
        other reductions as an attribute up to opset 17."""
        keep = int(bool(keepdims))
        if axes is None:
            return self.op(op_type, [x], keepdims=keep)
        axes = [int(a) for a in axes]
        if op_type == "ReduceSum":
            return self.op(op_type, [x, self.ints(axes)], keepdims=keep)
        return self.op(op_type, [x], axes=axes, keepdims=keep)

    def to_out_shape(self, node, x: str | None = None, k: int = 0) -> str:
        """Reshape x (default the first input) to output k's inferred shape; needs at most
        one unknown dim."""
        shape = node.out_shape(k)
        if sum(1 for s in shape if s < 0) > 1:
            raise Unsupported(f"reshape to {shape}: more than one unknown dim")
        return self.reshape(node.inputs[0] if x is None else x, shape)

    def like(self, names: list, specs: list, dtype) -> list:
        """The inputs (variadic lists flattened), each cast to `dtype` where its own dtype
        differs."""
        names, specs = _flat(names), _flat(specs)
        want = np_dtype(dtype)
        return [n if n is None or np_dtype(s.dtype) == want else self.cast(n, want)
                for n, s in zip(names, specs)]

    def elementwise(self, op_type: str, node, dtype=None, **attrs) -> str:
        """A 1:1 op on the inputs cast to `dtype`; by default (the string form of `onnx`)
        inputs are cast to the output dtype only where they mix dtypes or feed integers to
        a float op (Paddle's promotion), so ops like MatMulInteger keep their inputs."""
        specs = [s for s in _flat(node.specs) if s is not None]
        for s in specs:
            if np_dtype(s.dtype).kind == "c":
                raise Unsupported("complex tensors have no ONNX type")
        if dtype is None:
            kinds = {np_dtype(s.dtype) for s in specs}
            out = node.out_dtype()
            if len(kinds) == 1 and not (out.kind == "f" and next(iter(kinds)).kind != "f"):
                return self.op(op_type, [i for i in _flat(node.inputs) if i is not None],
                               **attrs)
        ins = self.like(node.inputs, node.specs, dtype or node.out_dtype())
        return self.op(op_type, [i for i in ins if i is not None], **attrs)

    def compare(self, op_type: str, node) -> str:
        """A comparison on both inputs cast to their promoted dtype."""
        common = np.result_type(*[np_dtype(s.dtype) for s in _flat(node.specs)])
        return self.elementwise(op_type, node, common)

    def reduce_node(self, node, op_type: str) -> str:
        """sum/mean/max/min/prod: axis None/int/list, keepdim; the input is cast to the
        output dtype first (sum of int32 is int64, mean of ints is float)."""
        x = self.like(node.inputs[:1], node.specs[:1], node.out_dtype())[0]
        axis = node.attrs.get("axis")
        if isinstance(axis, int):
            axis = [axis]
        if axis is not None and len(axis) == 0:
            axis = None
        if axis is not None and len(node.specs[0].shape) == 0:
            axis = None
        return self.reduce(op_type, x, axis, node.attrs.get("keepdim", False))

    def arg_reduce(self, node, op_type: str) -> str:
        """argmax/argmin: axis None flattens first; the index dtype is the output's."""
        x, axis = node.inputs[0], node.attrs["axis"]
        if axis is None:
            x, axis = self.reshape(x, [-1]), 0
        out = self.op(op_type, [x], axis=int(axis), keepdims=int(bool(node.attrs["keepdim"])))
        if node.attrs["axis"] is None:
            out = self.reshape(out, node.out_shape())
        return self.cast(out, node.out_dtype())

    def at_least_1d(self, node, fn) -> str:
        """fn(x) on the first input; a 0-D input goes through as shape [1] (ONNX softmax,
        topk... need a rank >= 1) and the result back to 0-D."""
        if len(node.specs[0].shape):
            return fn(node.inputs[0])
        return self.reshape(fn(self.reshape(node.inputs[0], [1])), [])

    def squeeze_axes(self, x: str, axes: list) -> str:
        return self.op("Squeeze", [x, self.ints(axes)]) if axes else self.op("Identity", [x])

    def unsqueeze_axes(self, x: str, axes: list) -> str:
        return self.op("Unsqueeze", [x, self.ints(axes)]) if axes else self.op("Identity", [x])

    def getitem(self, x: str, items: list, tensors: list) -> str:
        """x[items] for expanded NumPy index items (see ops/indexing `_expand`): slices become
        one Slice; without tensor indices integers become Gathers (last axis first); with
        them the advanced indices (ints, int tensors, bool masks via NonZero) are broadcast
        and read by one GatherND, and the result dims are placed as NumPy places them."""
        big = np.iinfo(np.int64)
        sl = ([], [], [], [])   # starts, ends, axes, steps
        d = 0
        for item in items:
            if isinstance(item, list):
                st, sp, step = item
                step = 1 if step is None else int(step)
                if (st, sp, step) != (None, None, 1):
                    sl[0].append(st if st is not None else (0 if step > 0 else big.max))
                    sl[1].append(sp if sp is not None else (big.max if step > 0 else big.min))
                    sl[2].append(d)
                    sl[3].append(step)
            if item is not None:
                d += item[1].ndim if isinstance(item, tuple) and item[1].dtype.kind == "b" else 1
        if sl[2]:
            x = self.op("Slice", [x] + [self.ints(v) for v in sl])
        if any(isinstance(it, tuple) for it in items):
            return self._advanced(x, items, tensors, d)
        gathers, new_pos, out, d = [], [], 0, 0
        for item in items:
            if item is None:
                new_pos.append(out)
                out += 1
            elif isinstance(item, list):
                d, out = d + 1, out + 1
            else:
                gathers.append((d, self.const(np.int64(item))))
                d += 1
        for axis, idx in sorted(gathers, key=lambda g: -g[0]):
            x = self.op("Gather", [x, idx], axis=axis)
        return self.unsqueeze_axes(x, new_pos) if new_pos else x

    def _advanced(self, x: str, items: list, tensors: list, ndim: int) -> str:
        idx, adv_dims, rest, tokens, rank = [], [], [], [], 0
        d = k = 0
        for item in items:
            if item is None:
                tokens.append("N")
            elif isinstance(item, list):
                rest.append(d)
                tokens.append("S")
                d += 1
            elif isinstance(item, tuple) and item[1].dtype.kind == "b":
                m = item[1].ndim
                nz = self.op("NonZero", [tensors[k]])
                idx += [self.op("Gather", [nz, self.const(np.int64(j))], axis=0)
                        for j in range(m)]
                adv_dims += list(range(d, d + m))
                k, d, rank = k + 1, d + m, max(rank, 1)
                tokens.append("A")
            else:
                if isinstance(item, tuple):
                    idx.append(self.cast(tensors[k], "int64"))
                    k, rank = k + 1, max(rank, item[1].ndim)
                else:
                    idx.append(self.const(np.int64(item)))
                adv_dims.append(d)
                d += 1
                tokens.append("A")
        total = idx[0]
        for i in idx[1:]:
            total = self.op("Add", [total, i])
        shape = self.op("Shape", [total])
        parts = [self.unsqueeze_axes(self.op("Expand", [i, shape]), [rank]) for i in idx]
        xt = self.op("Transpose", [x], perm=adv_dims + rest)
        out = self.op("GatherND", [xt, self.op("Concat", parts, axis=-1)])
        adv = "".join(tokens).replace("N", "").strip("S")
        keep_place = set(adv) == {"A"}   # one adjacent group stays in place, else leads
        order = [t for t in tokens if t != "N"]
        first = order.index("A")
        if keep_place and first:
            order = [t for t in order if t != "A"]
            perm = list(range(rank, rank + first)) + list(range(rank))
            perm += list(range(rank + first, rank + len(order)))
            out = self.op("Transpose", [out], perm=perm)
        if "N" in tokens:
            lead = 0 if keep_place else rank
            pos, p = [], lead
            seen_a = False
            for t in tokens:
                if t == "N":
                    pos.append(p)
                    p += 1
                elif t == "S":
                    p += 1
                elif keep_place and not seen_a:
                    p += rank
                    seen_a = True
            out = self.unsqueeze_axes(out, pos)
        return out

    def fold(self, opdef, node) -> str:
        """An op of attrs alone (full, arange, eye...): its value, computed now, as an
        initializer."""
        if opdef.inputs:
            raise Unsupported("fold needs an op without tensor inputs")
        value = opdef.compute(np, **node.attrs)
        return self.const(np.asarray(value, node.out_dtype()))
