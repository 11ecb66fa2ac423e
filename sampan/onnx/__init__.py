"""paddle.onnx: ONNX export built into the OpDefs (`export`) and ONNX import (`load`,
`load_program`).

Export lowers each operator of a traced Program through its OpDef's `onnx` rule or its
`decompose`; import interprets an ONNX graph with sampan operators inside a Layer. `onnx` (and
`onnxruntime` in the tests) are imported only when used.
Imports `framework`, `ops`, `static`, `jit` and `nn`.
"""
from .export import ExportError, export  # noqa: F401
from .importer import ONNXModel, load, load_program  # noqa: F401

__all__ = ["export", "ExportError", "load", "load_program", "ONNXModel"]
