"""Expression-level transformers: and/or/not, chained comparisons, ternaries, calls,
`assert`, `.shape`, zero-argument `super()` and private-name mangling. Each rewrites one
construct into a call of a runtime converter (sampan/jit/convert.py).
"""
from __future__ import annotations

import ast

from .base import JST, call, const, is_generated, name, param_names, thunk


def _is_jst(node) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
        node.value.id == JST


class LogicalTransformer(ast.NodeTransformer):
    """`a and b` -> `_jst.convert_logical_and(lambda: a, lambda: b)` (short-circuit kept),
    `a or b` likewise, `not a` -> `_jst.convert_logical_not(a)`."""

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = "convert_logical_and" if isinstance(node.op, ast.And) else "convert_logical_or"
        expr = node.values[-1]
        for left in reversed(node.values[:-1]):
            expr = call(fn, thunk(left), thunk(expr))
        return ast.copy_location(expr, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(call("convert_logical_not", node.operand), node)
        return node


_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
        ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


class CompareTransformer(ast.NodeTransformer):
    """`a < b < c` -> `_jst.convert_compare(('<', '<'), lambda: a, lambda: b, lambda: c)`:
    each operand evaluated once and lazily, as in Python."""

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        ops = ast.Tuple(elts=[const(_CMP[type(o)]) for o in node.ops], ctx=ast.Load())
        thunks = [thunk(e) for e in [node.left] + node.comparators]
        return ast.copy_location(call("convert_compare", ops, *thunks), node)


class IfExpTransformer(ast.NodeTransformer):
    """`a if test else b` -> `_jst.convert_ifelse_expr(test, lambda: a, lambda: b)`."""

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.copy_location(call("convert_ifelse_expr", node.test, thunk(node.body),
                                      thunk(node.orelse)), node)


class CallTransformer(ast.NodeTransformer):
    """`f(args)` -> `_jst.convert_call(f)(args)`: user callees are converted recursively,
    builtins such as len/print/range/int map to converters, library calls run as they are."""

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if _is_jst(f) or (isinstance(f, ast.Name) and f.id == "super"):
            return node
        node.func = ast.copy_location(call("convert_call", f), f)
        return node


class AssertTransformer(ast.NodeTransformer):
    """`assert test, msg` -> `_jst.convert_assert(test, lambda: msg)`."""

    def visit_Assert(self, node):
        self.generic_visit(node)
        msg = thunk(node.msg) if node.msg is not None else const(None)
        return ast.copy_location(ast.Expr(value=call("convert_assert", node.test, msg)), node)


class ShapeTransformer(ast.NodeTransformer):
    """`x.shape` (read) -> `_jst.convert_shape(x)`: unknown (-1) dims of a static Variable
    read as tensors, so shape arithmetic stays right for any batch size."""

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "shape" and isinstance(node.ctx, ast.Load) and not _is_jst(node):
            return ast.copy_location(call("convert_shape", node.value), node)
        return node


class SuperTransformer(ast.NodeTransformer):
    """`super()` in a method -> `super(__class__, self)`: the zero-argument form finds its
    arguments in the calling frame, which a generated helper function does not have."""

    def __init__(self, has_class_cell: bool) -> None:
        self.ok = has_class_cell
        self.first: list = []

    def visit_FunctionDef(self, node):
        if not is_generated(node):
            params = param_names(node)
            self.first.append(params[0] if node.args.posonlyargs + node.args.args else None)
        self.generic_visit(node)
        if not is_generated(node):
            self.first.pop()
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if (self.ok and isinstance(f, ast.Name) and f.id == "super" and not node.args
                and self.first and self.first[-1]):
            node.args = [name("__class__"), name(self.first[-1])]
        return node


class MangleTransformer(ast.NodeTransformer):
    """`self.__x` written in class `C` is `self._C__x`: Python mangles private names when it
    compiles a class body; the converted function is compiled outside it, so do it here."""

    def __init__(self, class_name: str) -> None:
        self.prefix = "_" + class_name.lstrip("_")

    def _mangle(self, ident: str) -> str:
        if ident.startswith("__") and not ident.endswith("__") and "." not in ident:
            return self.prefix + ident
        return ident

    def visit_Attribute(self, node):
        self.generic_visit(node)
        node.attr = self._mangle(node.attr)
        return node

    def visit_Name(self, node):
        node.id = self._mangle(node.id)
        return node
