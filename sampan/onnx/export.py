"""paddle.onnx.export: trace through paddle.jit, lower every op by its OpDef, check, write.

Imports `framework`, `static`, `jit` and this package; `onnx` only while exporting.
"""
from __future__ import annotations

import os

from ..framework.io import write_atomic
from ..jit.save_load import _concrete_for_save, _select_outputs
from ..static.executor import global_scope
from ..static.passes.dce import dead_code_elimination
from .builder import GraphBuilder
from .lower import Lowerer, value_info

OPSET = 17
_CONFIGS = ("output_spec", "enable_onnx_checker", "verbose", "model_name")


class ExportError(ValueError):
    """Ops without an ONNX lowering; `missing` holds (op type, (file, line), reason)."""

    def __init__(self, message: str, missing: list) -> None:
        super().__init__(message)
        self.missing = missing


def export(layer, path: str, input_spec=None, opset_version: int = OPSET, **configs) -> None:
    """Export a Layer (or function) to ONNX as `path + ".onnx"`.

    The layer is traced through paddle.jit into a static Program (inference attrs applied, as
    `Program.clone(for_test=True)`), and each operator is lowered by its own OpDef rule (or its
    decomposition). Dims given as None in `input_spec` stay dynamic. Only the standard ai.onnx
    domain at opset 17 is written; another opset is refused. A model with operators that have
    no lowering raises one error listing every such operator with the user's source line, and
    no file is written.

    Args:
        layer (Layer|function): the model (its forward is traced, as paddle.jit.save does).
        path (str): the output path without suffix; ".onnx" is appended.
        input_spec (list[InputSpec|Tensor], optional): the forward's inputs; default the
            to_static input_spec, else the inputs of the latest to_static call.
        opset_version (int, optional): must be 17 (the one opset sampan lowers to). Default 17.
        **configs: output_spec (outputs to keep, as in jit.save), enable_onnx_checker (default
            True), verbose, model_name.

    Examples:
        >>> import sampan as paddle
        >>> net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU())
        >>> spec = [paddle.static.InputSpec([None, 4], "float32", "x")]
        >>> paddle.onnx.export(net, "/tmp/doc_onnx/mlp", input_spec=spec)  # doctest: +SKIP
    """
    for key in configs:
        if key not in _CONFIGS:
            raise ValueError(f"paddle.onnx.export: unknown config {key!r} (supported: "
                             f"{', '.join(_CONFIGS)})")
    if opset_version != OPSET:
        raise ValueError(f"paddle.onnx.export: opset_version {opset_version!r} is not supported;"
                         f" sampan lowers every operator to ONNX opset {OPSET} only (pass "
                         f"opset_version={OPSET})")
    if not isinstance(path, str) or not os.path.basename(path):
        raise ValueError(f"paddle.onnx.export: path must be 'dirname/file_prefix', got {path!r}")
    concrete, _ = _concrete_for_save(layer, input_spec)
    keep = _select_outputs(concrete, configs.get("output_spec"))
    feeds = [v.name for v in concrete.inputs]
    fetch = [concrete.outputs[k].name for k in keep]
    pruned = dead_code_elimination(concrete.main_program, keep=fetch, side_effects=False,
                                   prune_vars=True)
    block = pruned.global_block()
    for v in concrete.inputs:   # an input no output uses stays a graph input
        if not block.has_var(v.name):
            block.create_var(v.name, v.shape, v.dtype).is_data = True
    model = program_to_onnx(pruned.clone(for_test=True), feeds, fetch,
                            name=configs.get("model_name") or "sampan",
                            check=configs.get("enable_onnx_checker", True))
    data = model.SerializeToString()
    write_atomic(path + ".onnx", lambda f: f.write(data))


def program_to_onnx(program, feeds: list, fetch: list, name: str = "sampan",
                    check: bool = True):
    """An onnx ModelProto computing `fetch` from `feeds` (variable names of `program`'s global
    block). Persistable values come from the Program (constants, bound tensors) or the global
    scope. Raises ExportError listing every op without a lowering."""
    import onnx
    from onnx import helper
    block = program.global_block()
    b = GraphBuilder()
    for n in feeds + fetch:
        b.reserve(n)
    env = {n: n for n in feeds}
    low = Lowerer(program, global_scope())
    low.lower_block(b, program, block, env)
    if low.missing:
        raise ExportError(_missing_message(low.missing), low.missing)
    outputs = []
    for n in fetch:
        src = env.get(n)
        if src is None:
            raise ExportError(f"paddle.onnx.export: output {n!r} is an auxiliary output that "
                              f"the ONNX lowering of its operator does not compute", [])
        out = n if n not in feeds else b.fresh(n + "_out")
        b.op("Identity", [src], outputs=[out])
        outputs.append(value_info(out, block._find_var(n)))
    inputs = [value_info(n, block._find_var(n), dynamic_prefix=n) for n in feeds]
    graph = helper.make_graph(b.nodes, name, inputs, outputs, initializer=b.initializers)
    domains = sorted({n.domain for n in b.nodes if n.domain})   # custom ops (cpp_extension)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)] +
                              [helper.make_opsetid(d, 1) for d in domains],
                              producer_name="sampan")
    model.ir_version = min(model.ir_version, 8)   # widely readable (onnxruntime >= 1.11)
    if check:
        onnx.checker.check_model(model)
    return model


def _missing_message(missing: list) -> str:
    lines = []
    seen = set()
    for op_type, loc, reason in missing:
        where = f"{loc[0]}:{loc[1]}" if loc else "unknown location"
        line = f"  {op_type} at {where}: {reason}"
        if line not in seen:
            seen.add(line)
            lines.append(line)
    types = sorted({m[0].split(" ")[0] for m in missing})
    return (f"paddle.onnx.export: {len(types)} operator type(s) have no ONNX lowering "
            f"({', '.join(types)}); nothing was written:\n" + "\n".join(lines))
