"""Reader of Paddle 3.x PIR programs saved as JSON (`.json`) into the reader-neutral
`PModel`. PIR ops take positional operands, and some legacy attrs became operands made by
full/full_int_array ops; `PIR_OPS` renames each PIR op onto the legacy op type and slots the
translators use, an operand slot written "=name" turning a load-time constant back into
the attr `name`. Imports only its package's modules.
"""
from __future__ import annotations

import json

from .ir import PModel, POp, PVar

_BN = (["X", "Mean", "Variance", "Scale", "Bias"],
       ["Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace"])
_XO = (["X"], ["Out"])
_XYO = (["X", "Y"], ["Out"])

# PIR name -> (legacy type, operand slots, result slots, {PIR attr: legacy attr})
PIR_OPS = {
    "conv2d": ("conv2d", ["Input", "Filter"], ["Output"], {}),
    "depthwise_conv2d": ("depthwise_conv2d", ["Input", "Filter"], ["Output"], {}),
    "conv2d_transpose": ("conv2d_transpose", ["Input", "Filter", "=output_size"], ["Output"],
                         {}),
    "pool2d": ("pool2d", ["X", "=ksize"], ["Out"], {}),
    "batch_norm": ("batch_norm", *_BN, {}),
    "layer_norm": ("layer_norm", ["X", "Scale", "Bias"], ["Y", "Mean", "Variance"], {}),
    "instance_norm": ("instance_norm", ["X", "Scale", "Bias"], ["Y", "SavedMean",
                                                                "SavedVariance"], {}),
    "group_norm": ("group_norm", ["X", "Scale", "Bias"], ["Y", "Mean", "Variance"], {}),
    "dropout": ("dropout", ["X", "Seed", "=dropout_prob"], ["Out", "Mask"],
                {"mode": "dropout_implementation"}),
    "matmul": ("matmul_v2", *_XYO, {"transpose_x": "trans_x", "transpose_y": "trans_y"}),
    "add": ("elementwise_add", *_XYO, {}), "subtract": ("elementwise_sub", *_XYO, {}),
    "multiply": ("elementwise_mul", *_XYO, {}), "divide": ("elementwise_div", *_XYO, {}),
    "maximum": ("elementwise_max", *_XYO, {}), "minimum": ("elementwise_min", *_XYO, {}),
    "elementwise_pow": ("elementwise_pow", *_XYO, {}),
    "floor_divide": ("elementwise_floordiv", *_XYO, {}),
    "remainder": ("elementwise_mod", *_XYO, {}), "bmm": ("bmm", *_XYO, {}),
    "scale": ("scale", ["X", "=scale"], ["Out"], {}),
    "clip": ("clip", ["X", "=min", "=max"], ["Out"], {}),
    "cast": ("cast", *_XO, {"dtype": "out_dtype"}),
    "pow": ("pow", *_XO, {"y": "factor"}),
    "leaky_relu": ("leaky_relu", *_XO, {"negative_slope": "alpha"}),
    "hardswish": ("hard_swish", *_XO, {}), "hardsigmoid": ("hard_sigmoid", *_XO, {}),
    "sum": ("reduce_sum", ["X", "=axis"], ["Out"], {}),
    "mean": ("reduce_mean", ["X", "=axis"], ["Out"], {}),
    "max": ("reduce_max", ["X", "=axis"], ["Out"], {}),
    "min": ("reduce_min", ["X", "=axis"], ["Out"], {}),
    "prod": ("reduce_prod", ["X", "=axis"], ["Out"], {}),
    "argmax": ("arg_max", ["X", "=axis"], ["Out"], {}),
    "argmin": ("arg_min", ["X", "=axis"], ["Out"], {}),
    "topk": ("top_k_v2", ["X", "=k"], ["Out", "Indices"], {}),
    "cumsum": ("cumsum", ["X", "=axis"], ["Out"], {}),
    "p_norm": ("p_norm", *_XO, {}),
    "reshape": ("reshape2", ["X", "=shape"], ["Out", "XShape"], {}),
    "transpose": ("transpose2", *_XO, {"perm": "axis"}),
    "flatten": ("flatten_contiguous_range", *_XO, {}),
    "squeeze": ("squeeze2", ["X", "=axes"], ["Out", "XShape"], {}),
    "unsqueeze": ("unsqueeze2", ["X", "=axes"], ["Out", "XShape"], {}),
    "concat": ("concat", ["X", "=axis"], ["Out"], {}),
    "split": ("split", ["X", "=sections", "=axis"], ["Out"], {}),
    "split_with_num": ("split", ["X", "=axis"], ["Out"], {}),
    "stack": ("stack", ["X"], ["Y"], {}),
    "slice": ("slice", ["Input", "=starts", "=ends"], ["Out"], {}),
    "strided_slice": ("strided_slice", ["Input", "=starts", "=ends", "=strides"], ["Out"],
                      {}),
    "gather": ("gather", ["X", "Index", "=axis"], ["Out"], {}),
    "gather_nd": ("gather_nd", ["X", "Index"], ["Out"], {}),
    "expand": ("expand_v2", ["X", "=shape"], ["Out"], {}),
    "expand_as": ("expand_as_v2", ["X", "Y"], ["Out"], {}),
    "tile": ("tile", ["X", "=repeat_times"], ["Out"], {}),
    "shape": ("shape", ["Input"], ["Out"], {}), "shape64": ("shape", ["Input"], ["Out"], {}),
    "numel": ("size", ["Input"], ["Out"], {}),
    "full_with_tensor": ("fill_constant", ["ValueTensor", "ShapeTensor"], ["Out"], {}),
    "full_like": ("fill_any_like", ["X", "=value"], ["Out"], {}),
    "zeros_like": ("fill_zeros_like", *_XO, {}),
    "arange": ("range", ["Start", "End", "Step"], ["Out"], {}),
    "where": ("where", ["Condition", "X", "Y"], ["Out"], {}),
    "one_hot": ("one_hot_v2", ["X", "=depth"], ["Out"], {}),
    "embedding": ("lookup_table_v2", ["Ids", "W"], ["Out"], {}),
    "index_select": ("index_select", ["X", "Index"], ["Out"], {"axis": "dim"}),
    "pad3d": ("pad3d", ["X", "=paddings"], ["Out"], {"pad_value": "value"}),
    "prelu": ("prelu", ["X", "Alpha"], ["Out"], {"data_format": "data_format"}),
    "rnn": ("rnn", ["Input", "PreState", "WeightList", "SequenceLength", "DropoutState"],
            ["Out", "DropoutState", "State", "Reserve"], {}),
    "assign": ("assign", *_XO, {}),
    "add_n": ("sum", ["X"], ["Out"], {}),
    "unstack": ("unstack", ["X"], ["Y"], {}),
    "tril": ("tril_triu", *_XO, {}), "triu": ("tril_triu", *_XO, {}),
    "argsort": ("argsort", ["X"], ["Out", "Indices"], {}),
    "logsumexp": ("logsumexp", *_XO, {}),
    "assign_value": ("assign_value", ["Dest"], ["Out"], {}),
    "bilinear_interp": ("bilinear_interp_v2", ["X", "OutSize", "SizeTensor", "Scale"],
                        ["Out"], {}),
    "nearest_interp": ("nearest_interp_v2", ["X", "OutSize", "SizeTensor", "Scale"],
                       ["Out"], {}),
}
_SAME = ("relu", "relu6", "sigmoid", "tanh", "gelu", "swish", "silu", "mish", "elu",
         "softplus", "softsign", "logsigmoid", "softmax", "log_softmax", "exp", "log", "sqrt",
         "rsqrt", "abs", "square", "floor", "ceil", "round", "reciprocal", "sign", "sin",
         "cos", "erf", "logical_not")
_CMP = ("equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
        "logical_and", "logical_or")
PIR_OPS.update({n: (n, *_XO, {}) for n in _SAME})
PIR_OPS.update({n: (n, *_XYO, {}) for n in _CMP})

_DT = {"t_f32": "float32", "t_f64": "float64", "t_f16": "float16", "t_bf16": "bfloat16",
       "t_i64": "int64", "t_i32": "int32", "t_i16": "int16", "t_i8": "int8", "t_ui8": "uint8",
       "t_bool": "bool", "t_c64": "complex64", "t_c128": "complex128"}


def _attr(at):
    """A PIR attribute {"#": type, "D": data} as a Python value."""
    kind, data = at.get("#", ""), at.get("D")
    if kind.endswith("a_array"):
        return [_attr(x) for x in data]
    return data


def _type(tt) -> tuple:
    """(shape, dtype) of a value type {"#": "0.t_dtensor", "D": [dtype, dims, ...]}."""
    if not tt or not tt.get("#", "").endswith("t_dtensor"):
        return [], "float32"
    d = tt["D"]
    return list(d[1]), _DT.get(d[0].get("#", "").split(".")[-1], "float32")


def _name(vid: int) -> str:
    return f"%{vid}"


def _results(op) -> list:
    out = op.get("O", [])
    return out if isinstance(out, list) else [out]


class _Reader:
    def __init__(self, path: str) -> None:
        self.path, self.ops, self.vars, self.feeds, self.fetches = path, [], {}, [], []
        self.params, self.names, self.aliases = [], {}, {}

    def name(self, vid: int):
        return None if vid == 0 else self.names.get(vid, _name(vid))

    def op(self, op: dict) -> None:
        kind = op.get("#", "")
        if op.get("regions"):
            self.ops.append(POp(f"pd_op.{kind.split('.', 1)[-1]} (control flow)", {}, {}, {}))
            return
        results = _results(op)
        if kind == "p":  # a parameter: its name is the last of "A", persistable first of "OA"
            name = op["A"][-1]
            shape, dtype = _type(results[0].get("TT"))
            persistable = bool((op.get("OA") or [1])[0])
            self.names[results[0]["%"]] = name
            self.vars[name] = PVar(name, shape, dtype, persistable)
            if persistable:  # NOTE: only persistable ones are in the .pdiparams (rnn's
                self.params.append(name)  # dropout state is not)
            return
        attrs = {a["N"]: _attr(a["AT"]) for a in op.get("A", []) if isinstance(a, dict)}
        if kind.endswith(".data") and results:
            self.names[results[0]["%"]] = attrs.get("name") or _name(results[0]["%"])
        ins = [self.name(i["%"]) for i in op.get("I", [])]
        outs = [self.name(o["%"]) for o in results]
        for o in results:
            shape, dtype = _type(o.get("TT"))
            self.vars[self.name(o["%"])] = PVar(self.name(o["%"]), shape, dtype)
        self._add(kind.split(".", 1)[-1], kind, ins, outs, attrs)

    def _add(self, short: str, kind: str, ins: list, outs: list, attrs: dict) -> None:
        if short == "data":
            self.vars[outs[0]].shape = list(attrs.get("shape", self.vars[outs[0]].shape))
            self.feeds.append(outs[0])
            return
        if short == "fetch":
            self.fetches.append(ins[0])
            self.aliases[ins[0]] = attrs.get("name") or ins[0]
            return
        if kind.startswith("0."):  # builtin dialect: combine, split, constant
            self.ops.append(POp("builtin." + short, {"X": ins}, {"Out": outs}, attrs))
            return
        if short in ("full", "full_int_array"):
            self.ops.append(POp("pir." + short, {}, {"Out": outs}, attrs))
            return
        base = short[:-1] if short.endswith("_") and short[:-1] in PIR_OPS else short
        if base not in PIR_OPS:
            self.ops.append(POp("pd_op." + short, {}, {}, attrs))
            return
        legacy, in_slots, out_slots, renames = PIR_OPS[base]
        attrs = {renames.get(k, k): v for k, v in attrs.items()}
        if base in ("tril", "triu"):
            attrs["lower"] = base == "tril"
        inputs = {s: [n] for s, n in zip(in_slots, ins) if n is not None}
        self.ops.append(POp(legacy, inputs, dict(zip(out_slots, [[o] for o in outs])),
                            attrs))


def read_pir_json(data: bytes, path: str) -> PModel:
    """Decode a PIR JSON program; raises ValueError naming `path` if it is not one."""
    try:
        d = json.loads(data)
        if d.get("base_code", {}).get("magic") != "pir":
            raise ValueError("no PIR magic")
        blocks = d["program"]["regions"][0]["blocks"]
        reader = _Reader(path)
        for op in blocks[0]["ops"]:
            reader.op(op)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
        raise ValueError(f"paddle.inference: {path!r} is not a readable Paddle PIR program "
                         f"(.json) file: {type(e).__name__}: {e}; the file may be truncated "
                         f"or corrupt") from None
    return PModel(reader.ops, reader.vars, reader.feeds, reader.fetches, "pir",
                  reader.params, reader.aliases)
