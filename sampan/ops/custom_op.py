"""Custom C++ operators: the ctypes bridge to a compiled op library (the C ABI of
utils/cpp_extension's sampan_bridge.cc) and the OpDef each of its ops becomes.

A library built by `paddle.utils.cpp_extension` lists its ops (PD_BUILD_OP / PD_BUILD_GRAD_OP);
`load_op_library` registers one OpDef per forward op (infer from its InferShape/InferDtype
functions, compute calling its kernel over NumPy buffers, vjp calling its grad op) and one per
grad op. Imports only `framework` and `ops`.
"""
from __future__ import annotations

import ctypes
import json
import os

import numpy as np

from .dispatch import dispatch
from .opdef import REGISTRY, OpDef, TensorSpec

# paddle::DataType codes (extension.h) <-> dtype names
_CODES = {"bool": 1, "int8": 2, "uint8": 3, "int16": 4, "int32": 5, "int64": 6, "float16": 7,
          "bfloat16": 8, "float32": 9, "float64": 10, "complex64": 11, "complex128": 12}
_NAMES = {v: k for k, v in _CODES.items()}
ONNX_DOMAIN = "sampan.custom"   # paddle.onnx.export writes custom ops as nodes of this domain
# attr type (as written in .Attrs({"alpha: float"})) -> kind of SampanAttrC
_ATTR_KINDS = {"bool": 0, "int": 1, "int64_t": 1, "float": 2, "double": 2, "std::string": 3,
               "std::vector<int>": 4, "std::vector<int64_t>": 4, "std::vector<float>": 5,
               "std::vector<double>": 5, "std::vector<std::string>": 6}


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("ndim", ctypes.c_int32), ("dtype", ctypes.c_int32)]


class _Attr(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("i", ctypes.c_int64), ("f", ctypes.c_double),
                ("s", ctypes.c_char_p), ("vi", ctypes.POINTER(ctypes.c_int64)),
                ("vf", ctypes.POINTER(ctypes.c_double)),
                ("vs", ctypes.POINTER(ctypes.c_char_p)), ("len", ctypes.c_int64)]


class OpLibrary:
    """One loaded custom-op shared library."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        try:
            lib = ctypes.CDLL(self.path)
            lib.sampan_ext_meta.restype = ctypes.c_char_p
        except (OSError, AttributeError) as e:
            raise RuntimeError(f"custom op library {self.path!r} cannot be loaded as a sampan "
                               f"op library: {e}") from None
        lib.sampan_ext_run.restype = ctypes.c_int
        lib.sampan_ext_run.argtypes = [
            ctypes.c_char_p, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(_Tensor),
            ctypes.POINTER(ctypes.c_int32), ctypes.c_int32, ctypes.POINTER(_Attr),
            ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_int32]
        lib.sampan_ext_result_size.restype = ctypes.c_int32
        lib.sampan_ext_result_size.argtypes = [ctypes.c_void_p]
        lib.sampan_ext_result_get.argtypes = [ctypes.c_void_p, ctypes.c_int32,
                                              ctypes.POINTER(_Tensor)]
        lib.sampan_ext_result_free.argtypes = [ctypes.c_void_p]
        self.lib = lib
        self.meta = json.loads(lib.sampan_ext_meta().decode("utf-8"))

    def run(self, op: str, level: int, mode: int, slots: list, attrs: list) -> list:
        """Call op's kernel (mode 0), infer shape (1) or infer dtype (2). `slots`: per input
        slot a list of arrays (None: uninitialised) or of TensorSpecs (infer); `attrs`:
        [(type, value)]. Returns per output (data array or None, shape, dtype name)."""
        keep, flat, sizes = [], [], []
        for slot in slots:
            sizes.append(len(slot))
            for v in slot:
                flat.append(_c_tensor(v, keep))
        tensors = (_Tensor * max(len(flat), 1))(*flat)
        c_attrs = (_Attr * max(len(attrs), 1))(*[_c_attr(t, v, keep) for t, v in attrs])
        c_sizes = (ctypes.c_int32 * max(len(sizes), 1))(*sizes)
        handle, err = ctypes.c_void_p(), ctypes.create_string_buffer(8192)
        rc = self.lib.sampan_ext_run(op.encode(), level, mode, tensors, c_sizes, len(sizes),
                                     c_attrs, len(attrs), ctypes.byref(handle), err, 8192)
        if rc:
            raise RuntimeError(err.value.decode("utf-8", "replace"))
        try:
            return [self._result(handle, k)
                    for k in range(self.lib.sampan_ext_result_size(handle))]
        finally:
            self.lib.sampan_ext_result_free(handle)

    def _result(self, handle, k: int) -> tuple:
        t = _Tensor()
        self.lib.sampan_ext_result_get(handle, k, ctypes.byref(t))
        shape = tuple(t.shape[i] for i in range(t.ndim))
        dtype = _NAMES.get(t.dtype)
        if not t.data:
            return None, shape, dtype
        arr_dtype = np.dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64)) * arr_dtype.itemsize
        buf = (ctypes.c_char * n).from_address(t.data) if n else b""
        return np.frombuffer(buf, arr_dtype).reshape(shape).copy(), shape, dtype


def _c_tensor(v, keep: list) -> _Tensor:
    if v is None:
        return _Tensor(None, None, 0, 0)
    if isinstance(v, TensorSpec):
        shape = (ctypes.c_int64 * max(len(v.shape), 1))(*v.shape)
        keep.append(shape)
        return _Tensor(None, shape, len(v.shape), _CODES[v.dtype.name])
    arr = np.ascontiguousarray(v)
    if arr.dtype.name not in _CODES:
        raise TypeError(f"custom op: inputs of dtype {arr.dtype.name} are not supported")
    shape = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
    keep += [arr, shape]
    data = arr.ctypes.data if arr.size else ctypes.addressof(shape)  # never NULL: initialised
    return _Tensor(data, shape, arr.ndim, _CODES[arr.dtype.name])


def _c_attr(typ: str, value, keep: list) -> _Attr:
    kind = _ATTR_KINDS[typ]
    a = _Attr(kind=kind)
    if kind <= 1:
        a.i = int(value)
    elif kind == 2:
        a.f = float(value)
    elif kind == 3:
        a.s = str(value).encode()
        keep.append(a.s)
    else:
        values = list(value)
        ctype = {4: ctypes.c_int64, 5: ctypes.c_double, 6: ctypes.c_char_p}[kind]
        items = [str(v).encode() if kind == 6 else v for v in values]
        arr = (ctype * max(len(items), 1))(*items)
        keep.append(arr)
        a.len = len(items)
        setattr(a, {4: "vi", 5: "vf", 6: "vs"}[kind], ctypes.cast(arr, ctypes.POINTER(ctype)))
    return a


def _base(name: str) -> str:
    """'X@VECTOR@GRAD' -> 'X'."""
    return name.replace("@GRAD", "").replace("@VECTOR", "").replace("@OPTIONAL", "")


def _slot(name: str) -> str:
    """The IR slot of a declared input/output: 'X@VECTOR' -> '*X' (a list)."""
    return ("*" + name.replace("@VECTOR", "")) if "@VECTOR" in name else name


def _parse_attrs(op: str, decls: list) -> list:
    out = []
    for decl in decls:
        name, _, typ = (p.strip() for p in decl.partition(":"))
        typ = typ.replace(" ", "")
        if typ not in _ATTR_KINDS:
            raise TypeError(f"custom op {op}: attribute {name!r} has unsupported type {typ!r} "
                            f"(supported: {sorted(_ATTR_KINDS)})")
        out.append((name, typ))
    return out


class CustomOpDef(OpDef):
    """An op of a compiled custom-op library (forward: grad_level 0, grad op: 1)."""

    version = 1
    none_grads = True   # an output without gradient reaches the grad kernel uninitialised

    def __init__(self, library: OpLibrary, meta: dict, grad_meta: dict | None = None) -> None:
        self.library = library
        self.level = meta["grad_level"]
        self.cname = meta["name"]
        self.name = meta["name"] + "_grad" * self.level
        self.raw_inputs, self.raw_outputs = list(meta["inputs"]), list(meta["outputs"])
        self.inputs = tuple(_slot(n) + ("?" if n.endswith("@GRAD") else "")
                            for n in self.raw_inputs)
        self.outputs = tuple(_slot(n) for n in self.raw_outputs)
        self.has_vec_out = any("@VECTOR" in n for n in self.raw_outputs)
        if self.has_vec_out and len(self.raw_outputs) > 1:
            raise ValueError(f"custom op {self.name}: a Vec output must be the op's only "
                             f"output (sampan limitation)")
        self.attr_types = _parse_attrs(self.name, meta["attrs"])
        self.attrs = {name: None for name, _ in self.attr_types}
        self.meta, self.grad_meta = meta, grad_meta
        self.saves = ()
        if grad_meta is not None:
            known = [_base(n) for n in self.raw_inputs] + [_base(n) for n in self.raw_outputs]
            self.saves = tuple(dict.fromkeys(n for n in (_base(g) for g in grad_meta["inputs"]
                                                         if not g.endswith("@GRAD"))
                                             if n in known))
            self.vjp = self._vjp
        self.onnx = self._onnx_node
        super().__init__()

    def _attr_values(self, attrs: dict) -> list:
        values = []
        for name, typ in self.attr_types:
            value = attrs.get(name)
            if value is None:
                raise ValueError(f"{self.name}: attribute {name!r} ({typ}) is required")
            values.append((typ, value))
        return values

    def _slots(self, values) -> list:
        return [list(v) if isinstance(v, (list, tuple)) else [v] for v in values]

    def infer(self, *specs, **attrs):
        slots = self._slots(specs)
        values = self._attr_values(attrs)
        shapes = self._infer_part(1, slots, values, "shape")
        dtypes = self._infer_part(2, slots, values, "dtype")
        wrong = len(shapes) != len(dtypes) or (len(shapes) != len(self.outputs)
                                                 and not self.has_vec_out)
        if wrong:
            raise ValueError(f"{self.name}: the infer functions return {len(shapes)} shapes "
                             f"and {len(dtypes)} dtypes for {len(self.outputs)} outputs")
        out = tuple(TensorSpec(s, d) for s, d in zip(shapes, dtypes))
        return out if self.multi_out else out[0]

    def _infer_part(self, mode: int, slots: list, attrs: list, what: str) -> list:
        flag = "infer_shape" if mode == 1 else "infer_dtype"
        if self.meta[flag]:
            res = self.library.run(self.cname, self.level, mode, slots, attrs)
            return [r[1] if mode == 1 else r[2] for r in res]
        pick = [p for o in self.raw_outputs for p in self._default_source(o, slots)]
        if any(p is None for p in pick):
            fn = "SetInferShapeFn" if mode == 1 else "SetInferDtypeFn"
            raise ValueError(f"{self.name}: set {fn} (the output {what} cannot be taken from "
                             f"a single input)")
        return [p.shape if mode == 1 else p.dtype.name for p in pick]

    def _default_source(self, out: str, slots: list):
        """Paddle's default: a grad output X@GRAD has X's spec (each of a list's); otherwise
        an op with one input gives every output that input's spec. A list of specs."""
        names = [_base(n) for n in self.raw_inputs]
        if self.level and _base(out) in names:
            return slots[names.index(_base(out))]
        if len(slots) == 1 and len(slots[0]) == 1:
            return slots[0]
        return [None]

    def compute(self, xp, *arrays, **attrs):
        res = self.library.run(self.cname, self.level, 0, self._slots(arrays),
                               self._attr_values(attrs))
        if len(res) != len(self.outputs) and not self.has_vec_out:
            raise ValueError(f"{self.name}: the kernel returned {len(res)} tensors, the op "
                             f"declares {len(self.outputs)} outputs {list(self.raw_outputs)}")
        outs = [xp.zeros(s, d or "float32") if a is None else a for a, s, d in res]
        return tuple(outs) if self.multi_out else outs[0]

    def _onnx_node(self, b, node):
        """paddle.onnx.export: one node of the custom domain ONNX_DOMAIN (a runtime needs the
        matching custom-op library to run it)."""
        from onnx import helper   # optional dependency, only reached from paddle.onnx
        ins = [n for v in node.inputs for n in (v if isinstance(v, list) else [v])
               if n is not None]
        outs = [b.fresh(self.name) for _ in node.outs]
        attrs = {k: node.attrs[k] for k in self.attrs}
        b.nodes.append(helper.make_node(self.cname + "_grad" * self.level, ins, outs,
                                        domain=ONNX_DOMAIN, **attrs))
        return outs if len(outs) > 1 else outs[0]

    def _vjp(self, ctx, *grads):
        grad_op = REGISTRY[self.name + "_grad"]
        outs = [_base(n) for n in self.raw_outputs]
        ins = []
        for name in grad_op.raw_inputs:
            if name.endswith("@GRAD"):
                ins.append(grads[outs.index(_base(name))])
            else:
                ins.append(ctx.__dict__[_slot(name).lstrip("*")])
        attrs = {a: ctx.attrs[a] for a in grad_op.attrs}
        result = dispatch(grad_op, tuple(ins), attrs)
        result = result if grad_op.multi_out else (result,)
        names = [_base(n) for n in self.raw_inputs]
        gx = [None] * len(names)
        if any(o.startswith("*") for o in grad_op.outputs):  # one list output: all of result
            gx[names.index(_base(grad_op.raw_outputs[0]))] = list(result)
        else:
            for name, value in zip(grad_op.raw_outputs, result):
                gx[names.index(_base(name))] = value
        return tuple(g if (any(n) if isinstance(n, tuple) else n) else None
                     for g, n in zip(gx, ctx.needs))


_LIBRARIES: dict = {}   # abs path -> OpLibrary


def load_op_library(path: str) -> list:
    """Load a compiled custom-op library and register its ops; returns the forward OpDefs.
    Loading a rebuilt library again replaces its ops; a name taken by a built-in op is an
    error."""
    lib = OpLibrary(path)
    metas = {(m["name"], m["grad_level"]): m for m in lib.meta}
    forward = []
    for (name, level), meta in sorted(metas.items()):
        if level != 0:
            if (name, 0) not in metas:
                raise ValueError(f"custom op library {lib.path!r}: grad op of {name!r} has no "
                                 f"forward op (PD_BUILD_OP)")
            continue
        for op_name in (name, name + "_grad"):
            old = REGISTRY.get(op_name)
            if old is not None and not isinstance(old, CustomOpDef):
                raise ValueError(f"custom op {name!r}: the name {op_name!r} is taken by a "
                                 f"built-in sampan operator")
        grad_meta = metas.get((name, 1))
        op = CustomOpDef(lib, meta, grad_meta)
        REGISTRY[name] = op
        if grad_meta is not None:
            REGISTRY[name + "_grad"] = CustomOpDef(lib, grad_meta)
        forward.append(op)
    _LIBRARIES[lib.path] = lib
    return forward


def unregister_custom_ops(names) -> None:
    """Remove custom ops (and their grad ops) from the registry."""
    for name in names:
        for op_name in (name, name + "_grad"):
            if isinstance(REGISTRY.get(op_name), CustomOpDef):
                del REGISTRY[op_name]


def custom_op_libraries(op_types) -> dict:
    """{op type: library path} for the custom ops among `op_types` (jit.save records it)."""
    return {t: REGISTRY[t].library.path for t in op_types
            if isinstance(REGISTRY.get(t), CustomOpDef)}


def ensure_custom_ops(libraries: dict, model_dir: str = "") -> None:
    """Load the libraries of saved custom ops that are not registered (jit.load): at the
    recorded path, else a file of the same name next to the model."""
    for op_type, path in sorted(libraries.items()):
        if op_type in REGISTRY:
            continue
        candidates = [path, os.path.join(model_dir, os.path.basename(path))]
        found = next((p for p in candidates if p and os.path.exists(p)), None)
        if found is None:
            raise ValueError(f"the model uses custom operator {op_type!r} from library "
                             f"{path!r}, which no longer exists; load the extension first "
                             f"(paddle.utils.cpp_extension.load)")
        load_op_library(found)
