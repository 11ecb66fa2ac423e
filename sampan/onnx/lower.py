"""Lower a static Program to ONNX nodes through each OpDef's `onnx` rule (or its `decompose`).

Control flow: `cond` becomes ONNX If and `while_loop` becomes Loop (sub-blocks are closed, so
a branch or body reads outer values only through the op's inputs, which map to outer ONNX
names). Ops that cannot be lowered are collected, not raised one by one, so the caller can
report every one with the user's source line before writing anything.
Imports `ops`, `static`, `utils` and this package's builder.
"""
from __future__ import annotations

import numpy as np

from ..ops.opdef import REGISTRY
from ..static.builder import building, program_guard
from ..static.program import Program
from ..utils import unique_name
from .builder import Fallback, GraphBuilder, Node, Unsupported, onnx_dtype


class Lowerer:
    """Walks blocks, binding Program variable names to ONNX names in an env dict."""

    def __init__(self, program: Program, scope_values=None) -> None:
        self.program = program
        self.scope_values = scope_values or {}
        self.missing: list = []   # (op type, (file, line) or None, reason)

    # --- values -----------------------------------------------------------------------------
    def _value(self, program: Program, name: str):
        if name in program._consts:
            return program._consts[name]
        if name in program._bound:
            return program._bound[name]._data
        return self.scope_values.get(name)

    def _lookup(self, b: GraphBuilder, program: Program, env: dict, name: str):
        if name in env:
            return env[name]
        arr = self._value(program, name)
        if arr is None:
            return None  # produced by an op that could not be lowered
        env[name] = b.root.initializer(b.root.fresh(name), np.asarray(arr))
        return env[name]

    # --- blocks and ops ---------------------------------------------------------------------
    def lower_block(self, b: GraphBuilder, program: Program, block, env: dict,
                    loc=None, via: str = "") -> None:
        for op in block.ops:
            self.lower_op(b, program, block, op, env, loc, via)

    def lower_op(self, b, program, block, op, env, loc=None, via: str = "") -> None:
        opdef = REGISTRY.get(op.type)
        outs = [block._find_var(n) for n in op.output_arg_names]
        where = loc if loc is not None else op.loc
        try:
            if opdef is None:
                raise Unsupported("not a registered operator")
            inputs, specs = self._inputs(b, program, block, op, opdef, env)
            node = Node(op, opdef, inputs, specs, outs)
            names = self._apply(b, program, opdef, node, env, where, via)
        except Unsupported as e:
            label = f"{via} (its decomposition uses {op.type})" if via else op.type
            self.missing.append((label, where, str(e)))
            names = [None] * len(outs)
        if isinstance(names, str) or names is None:
            names = [names]
        for var_name, onnx_name in zip(op.output_arg_names, names):
            if onnx_name is not None:
                env[var_name] = onnx_name

    def _inputs(self, b, program, block, op, opdef, env):
        inputs, specs = [], []
        for slot, variadic in zip(opdef.input_names, opdef.variadic):
            names = op.inputs.get(slot, [])
            if variadic:
                inputs.append([self._lookup(b, program, env, n) for n in names])
                specs.append([block._find_var(n) for n in names])
            elif names:
                inputs.append(self._lookup(b, program, env, names[0]))
                specs.append(block._find_var(names[0]))
            else:
                inputs.append(None)
                specs.append(None)
        return inputs, specs

    def _apply(self, b, program, opdef, node, env, where, via):
        if node.type == "cond":
            return self._cond(b, program, node)
        if node.type == "while_loop":
            return self._while(b, program, node)
        rule = opdef.onnx
        try:
            if isinstance(rule, str):   # 1:1 elementwise: inputs cast to the output dtype
                return b.elementwise(rule, node)
            if rule is not None:
                return rule(b, node)
        except Fallback:
            pass
        if opdef.decompose is not None:
            return self._decompose(b, opdef, node, where, via or node.type)
        raise Unsupported("no ONNX lowering rule and no decompose")

    # --- decompose --------------------------------------------------------------------------
    def _decompose(self, b, opdef, node, where, via):
        """Trace `decompose` on placeholders into a scratch Program and lower its ops."""
        main = Program()
        env = {}
        with unique_name.guard(), program_guard(main, Program()), building():
            blk = main.global_block()

            def arg(name, spec):
                if spec is None:
                    return None
                v = blk.create_var(unique_name.generate("dec_in"), spec.shape, spec.dtype)
                v.is_data = True
                env[v.name] = name
                return v
            args = [[arg(n, s) for n, s in zip(name, spec)] if isinstance(name, list)
                    else arg(name, spec) for name, spec in zip(node.inputs, node.specs)]
            result = opdef.decompose(*args, **node.attrs)
        self.lower_block(b, main, blk, env, where, via)
        result = result if isinstance(result, (tuple, list)) else (result,)
        names = []
        for r in result:
            names.append(env.get(getattr(r, "name", None)) if getattr(r, "_is_variable", False)
                         else None)
        return names

    # --- control flow -----------------------------------------------------------------------
    def _subgraph(self, b, program, block_idx, env, outputs, out_vars, name, extra_inputs=()):
        """Lower sub-block `block_idx` into a child graph whose outputs are `outputs`."""
        from onnx import helper
        sub = GraphBuilder(b)
        self.lower_block(sub, program, program.block(block_idx), env)
        names = []
        for local, var in zip(outputs, out_vars):
            src = env.get(local)
            names.append(sub.op("Identity", [src]))
        vinfo = [helper.make_tensor_value_info(n, onnx_dtype(v.dtype), None)
                 for n, v in zip(names, out_vars)]
        return sub, names, vinfo, helper.make_graph(sub.nodes, b.fresh(name), list(extra_inputs),
                                                    vinfo)

    def _cond(self, b, program, node):
        a = node.attrs
        graphs = {}
        outs = node.outs[:len(a["out_shapes"])]
        for side in ("true", "false"):
            env = {local: n for local, n in zip(a[f"{side}_inputs"], node.inputs[1])
                   if local is not None}
            graphs[side] = self._subgraph(b, program, a[f"{side}_block"], env,
                                          a[f"{side}_outputs"], outs, f"cond_{side}")[3]
        pred = b.reshape(node.inputs[0], [])
        return b.op("If", [pred], n_out=len(outs), then_branch=graphs["true"],
                    else_branch=graphs["false"])

    def _while(self, b, program, node):
        """while_loop -> Loop(M="", cond0, x...): the body runs the body block, then the cond
        block on the new values to produce the next condition."""
        from onnx import TensorProto, helper
        a = node.attrs
        xs, cs = node.inputs
        n = len(xs)
        x_specs = node.specs[0]
        outer = {local: nm for local, nm in zip(a["cond_inputs"], xs + cs) if local is not None}
        self.lower_block(b, program, program.block(a["cond_block"]), outer)
        cond0 = b.reshape(outer[a["cond_output"]], [])
        it, cond_in = b.fresh("iter"), b.fresh("cond_in")
        args = [b.fresh("loop_x") for _ in range(n)]
        in_info = [helper.make_tensor_value_info(it, TensorProto.INT64, []),
                   helper.make_tensor_value_info(cond_in, TensorProto.BOOL, [])]
        in_info += [helper.make_tensor_value_info(nm, onnx_dtype(s.dtype), None)
                    for nm, s in zip(args, x_specs)]
        sub = GraphBuilder(b)
        env = {local: nm for local, nm in zip(a["body_inputs"], args + cs) if local is not None}
        self.lower_block(sub, program, program.block(a["body_block"]), env)
        new = [env.get(local) for local in a["body_outputs"]]
        cenv = {local: nm for local, nm in zip(a["cond_inputs"], new + cs) if local is not None}
        self.lower_block(sub, program, program.block(a["cond_block"]), cenv)
        outs = [sub.op("Identity", [sub.reshape(cenv.get(a["cond_output"]), [])])]
        outs += [sub.op("Identity", [v]) for v in new]
        out_info = [helper.make_tensor_value_info(outs[0], TensorProto.BOOL, [])]
        out_info += [helper.make_tensor_value_info(nm, onnx_dtype(s.dtype), None)
                     for nm, s in zip(outs[1:], x_specs)]
        body = helper.make_graph(sub.nodes, b.fresh("while_body"), in_info, out_info)
        finals = b.op("Loop", ["", cond0] + list(xs), n_out=n, body=body)
        finals = [finals] if isinstance(finals, str) else list(finals)
        return finals + [None] * (len(node.outs) - n)


def value_info(name: str, var, dynamic_prefix: str | None = None):
    """A graph input/output type: -1 dims become named (inputs) or unknown (outputs) dims."""
    from onnx import helper
    shape = [d if d >= 0 else (f"{dynamic_prefix}_d{i}" if dynamic_prefix else None)
             for i, d in enumerate(var.shape)]
    return helper.make_tensor_value_info(name, onnx_dtype(var.dtype), shape)
