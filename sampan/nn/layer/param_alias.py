"""Paddle 3.3.1's alias keywords and call forms on nn Layers, as data plus one install hook.

Taken from Paddle 3.3.1's decorators on paddle.nn (param_one_alias/ParamAliasDecorator on
constructors, forward and Layer methods, lp_pool_layer_decorator, legacy_reduction_decorator)
and checked against Paddle 3.3.1. `install` wraps each listed method once with
`tensor.out_arg.wrap` (the wrapper the public functions use), so no layer file changes.
Imports `tensor` and this room's layers.
"""
from __future__ import annotations

from ...tensor.out_arg import wrap_method
from ...tensor.param_alias import LP_POOL_FORM, _form, forbid

_X = {"input": "x"}
_EPS = {"eps": "epsilon"}
_SUBLAYERS = {"modules": "sublayers"}
_RECURSE = {"recurse": "include_sublayers"}
_MASK = {"return_indices": "return_mask"}
_PADS = ("Pad1D", "Pad2D", "Pad3D", "ZeroPad1D", "ZeroPad2D", "ZeroPad3D", "ConstantPad1D",
         "ConstantPad2D", "ConstantPad3D", "ReflectionPad1D", "ReflectionPad2D",
         "ReflectionPad3D", "ReplicationPad1D", "ReplicationPad2D", "ReplicationPad3D",
         "CircularPad1D", "CircularPad2D", "CircularPad3D")

# (class, method) -> {alias: canonical}; both given -> TypeError unless listed in VALUE_ERROR
LAYERS: dict = {
    **dict.fromkeys([(name, "forward") for name in (
        "UpsamplingNearest2D", "UpsamplingBilinear2D", "Embedding", "LPPool1D", "LPPool2D",
        "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool2D", "AdaptiveMaxPool3D",
        "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D", "Conv1D", "Conv2D", "Conv3D", "GLU",
        "Hardshrink", "Softshrink") + _PADS], _X),
    **dict.fromkeys([("GroupNorm", "__init__"), ("LayerNorm", "__init__"),
                     ("PairwiseDistance", "__init__")], _EPS),
    **dict.fromkeys([("LayerDict", "__init__"), ("LayerDict", "update"),
                     ("LayerList", "__init__"), ("LayerList", "extend")], _SUBLAYERS),
    **dict.fromkeys([("LayerList", "append"), ("LayerList", "insert")],
                    {"module": "sublayer"}),
    **dict.fromkeys([("Layer", "parameters"), ("Layer", "named_parameters"),
                     ("Layer", "buffers"), ("Layer", "named_buffers")], _RECURSE),
    **dict.fromkeys([("AdaptiveMaxPool1D", "__init__"), ("AdaptiveMaxPool2D", "__init__"),
                     ("AdaptiveMaxPool3D", "__init__")], _MASK),
    **dict.fromkeys([("Hardshrink", "__init__"), ("Softshrink", "__init__")],
                    {"lambd": "threshold"}),
    **dict.fromkeys([("CosineSimilarity", "__init__"), ("GLU", "__init__")], {"dim": "axis"}),
    ("Layer", "register_buffer"): {"persistent": "persistable"},
    ("PairwiseDistance", "forward"): {"x1": "x", "x2": "y"},
    ("Fold", "__init__"): {"output_size": "output_sizes", "kernel_size": "kernel_sizes",
                           "stride": "strides", "padding": "paddings", "dilation": "dilations"},
    ("CrossEntropyLoss", "forward"): {"target": "label"},
    ("SmoothL1Loss", "forward"): {"target": "label"},
}
VALUE_ERROR = frozenset({("Fold", "__init__"), ("CrossEntropyLoss", "forward")})

# Loss constructors refuse PyTorch's legacy size_average/reduce (keyword, or a bool at
# these positions after self), naming the reduction to use instead.
LEGACY_REDUCTION: dict = {
    **dict.fromkeys(("L1Loss", "MSELoss", "KLDivLoss", "SmoothL1Loss", "SoftMarginLoss",
                     "MultiLabelMarginLoss"), (0, 1)),
    **dict.fromkeys(("BCELoss", "BCEWithLogitsLoss", "MultiLabelSoftMarginLoss",
                     "HingeEmbeddingLoss", "CosineEmbeddingLoss", "MarginRankingLoss"), (1, 2)),
    "CrossEntropyLoss": (1, 3), "NLLLoss": (1, 3), "PoissonNLLLoss": (2, 4),
    "MultiMarginLoss": (3, 4), "TripletMarginLoss": (4, 5),
}
# a valid reduction string at this position makes the bools legitimate arguments
_REDUCTION_GIVEN = {"CrossEntropyLoss": (2, {"mean", "sum", "none"}),
                    "KLDivLoss": (0, {"mean", "sum", "none", "batchmean"})}
_MISSING = object()
# PyTorch keywords these constructors refuse, pointing to paddle.compat.nn (Paddle 3.3.1)
FORBIDDEN = {"Linear": frozenset({"bias", "device", "dtype"}),
             "Unfold": frozenset({"kernel_size", "dilation", "padding", "stride"})}


def _legacy_form(name: str):
    size_average_at, reduce_at = LEGACY_REDUCTION[name]

    def forms(args: tuple, kwargs: dict):
        given = args[1:]
        size_average = _legacy_value("size_average", size_average_at, given, kwargs)
        reduce = _legacy_value("reduce", reduce_at, given, kwargs)
        if size_average is _MISSING and reduce is _MISSING:
            return args, kwargs
        at, valid = _REDUCTION_GIVEN.get(name, (None, ()))
        if at is not None and len(given) > at and given[at] in valid:
            return args, kwargs
        size_average = None if size_average is _MISSING else size_average
        reduce = None if reduce is _MISSING else reduce
        suggested = "none" if reduce is False else (
            "sum" if size_average is False else "mean")
        raise ValueError(f"[Deprecated] '{name}' no longer supports 'reduce' or "
                         f"'size_average'.\nDetected: reduce={reduce}, size_average="
                         f"{size_average}\nPlease use: reduction='{suggested}' instead.")
    return _form(forms, 1 + min(size_average_at, reduce_at), on_kwargs=True)


def _legacy_value(key: str, at: int, given: tuple, kwargs: dict):
    if key in kwargs:
        return kwargs.pop(key)
    if len(given) > at and type(given[at]) is bool:
        return given[at]
    return _MISSING


def install(namespace: dict) -> None:
    """Wrap the listed methods of the classes in `namespace` (paddle.nn's)."""
    for (cls_name, method), aliases in LAYERS.items():
        cls = namespace.get(cls_name)
        if cls is not None:
            both = "value" if (cls_name, method) in VALUE_ERROR else "type"
            wrap_method(cls, method, f"paddle.nn.{cls_name}.{method}", aliases, None, both)
    for cls_name in ("LPPool1D", "LPPool2D"):
        if cls_name in namespace:
            wrap_method(namespace[cls_name], "__init__", f"paddle.nn.{cls_name}", None,
                        LP_POOL_FORM)
    for cls_name, keys in FORBIDDEN.items():
        if cls_name in namespace:
            wrap_method(namespace[cls_name], "__init__", f"paddle.nn.{cls_name}", None,
                        forbid(f"paddle.nn.{cls_name}", keys, f"paddle.compat.nn.{cls_name}"))
    for cls_name in LEGACY_REDUCTION:
        if cls_name in namespace:
            wrap_method(namespace[cls_name], "__init__", f"paddle.nn.{cls_name}", None,
                        _legacy_form(cls_name))
