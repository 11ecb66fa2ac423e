"""paddle.onnx: ONNX export built into the OpDefs (`export`) and ONNX import (`load`).

Export lowers each operator of a traced Program through its OpDef's `onnx` rule or its
`decompose`; `onnx` (and `onnxruntime` in the tests) are imported only when used.
Imports `framework`, `ops`, `static`, `jit` (and `nn` for the imported-model Layer).
"""
from .export import ExportError, export  # noqa: F401

__all__ = ["export", "ExportError"]
