"""Jump transformers: `return` and `break`/`continue` become flag assignments, and the
statements a jump would skip are guarded by `if not flag:`. The guards are ordinary `if`s, so
the if/while transformers that run later turn them into converter calls: a Python flag keeps
Python control flow, a tensor flag (a jump under a tensor condition) becomes graph control
flow. This is what lets an early `return` or a `break` live inside tensor loops.
"""
from __future__ import annotations

import ast

from .base import Counter, assign, call, const, contains, is_generated, name, scope_walk

_LOOPS = (ast.For, ast.While)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _not(*flags: str) -> ast.expr:
    operand = name(flags[0]) if len(flags) == 1 else \
        ast.BoolOp(op=ast.Or(), values=[name(f) for f in flags])
    return ast.UnaryOp(op=ast.Not(), operand=operand)


def _bodies(stmt) -> list:
    """The statement-list fields of a compound statement that share its loop level."""
    if isinstance(stmt, (ast.If, ast.With, ast.AsyncWith)):
        return ["body", "orelse"] if isinstance(stmt, ast.If) else ["body"]
    if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
        return ["body", "orelse", "finalbody"]
    return []


def _clauses(stmt) -> list:
    """except handlers of a try, cases of a match: nodes with their own `body`."""
    return list(getattr(stmt, "handlers", [])) + list(getattr(stmt, "cases", []))


class ReturnTransformer:
    """`return e` -> `__return_N = True; __return_value_N = e` (+ `break` inside loops); the
    rest of each block is guarded; the function ends in one `return`."""

    def __init__(self, counter: Counter) -> None:
        self.counter = counter

    def visit(self, tree):
        for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                   and not is_generated(n)]:
            self._function(fn)
        return tree

    def _function(self, fn: ast.FunctionDef) -> None:
        returns = [n for n in scope_walk(fn.body) if isinstance(n, ast.Return)]
        if not returns or (len(returns) == 1 and fn.body[-1] is returns[0]):
            return
        k = self.counter.next()
        self.flag, self.value = f"__return_{k}", f"__return_value_{k}"
        head = [assign(self.flag, const(False)),
                assign(self.value, call("UndefinedVar", const(self.value)))]
        body = self._block(fn.body, in_loop=False)
        tail = ast.Return(value=call("return_value", name(self.value)))
        fn.body = _docstring(fn.body) + head + body[len(_docstring(fn.body)):] + [tail]
        for n in head + [tail]:
            ast.copy_location(n, fn)

    def _replace(self, node: ast.Return, in_loop: bool) -> list:
        value = node.value if node.value is not None else const(None)
        out = [assign(self.flag, const(True)), assign(self.value, value)]
        if in_loop:
            out.append(ast.Break())
        return [ast.copy_location(n, node) for n in out]

    def _block(self, stmts: list, in_loop: bool) -> list:
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, ast.Return):
                return out + self._replace(s, in_loop)
            had = contains([s], ast.Return)
            self._children(s, in_loop)
            out.append(s)
            rest = stmts[i + 1:]
            if not had:
                continue
            if in_loop:
                if _return_in_inner_loop(s):
                    out.append(ast.copy_location(ast.If(test=name(self.flag), body=[
                        ast.Break()], orelse=[]), s))
                continue
            if rest:
                guard = ast.If(test=_not(self.flag), body=self._block(rest, in_loop),
                               orelse=[])
                out.append(ast.copy_location(guard, rest[0]))
            return out
        return out

    def _children(self, s, in_loop: bool) -> None:
        if isinstance(s, _LOOPS):
            s.body = self._block(s.body, True)
            s.orelse = self._block(s.orelse, in_loop)
            return
        for field in _bodies(s):
            setattr(s, field, self._block(getattr(s, field), in_loop))
        for h in _clauses(s):
            h.body = self._block(h.body, in_loop)


def _return_in_inner_loop(stmt) -> bool:
    for node in scope_walk([stmt]):
        if isinstance(node, _LOOPS) and contains(node.body, ast.Return):
            return True
    return False


def _docstring(body: list) -> list:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[:1]
    return []


class BreakContinueTransformer(ast.NodeTransformer):
    """`break` -> `__break_N = True`, `continue` -> `__continue_N = True`; the rest of the
    loop body is guarded; a while loop's test becomes `not __break_N and test`, a for loop is
    marked (`_sp_break`) for the for transformer; `else:` runs under `if not __break_N`."""

    def __init__(self, counter: Counter) -> None:
        self.counter = counter

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        return node

    def _loop(self, node):
        self.generic_visit(node)
        has_b = contains(node.body, ast.Break, stop=_LOOPS)
        has_c = contains(node.body, ast.Continue, stop=_LOOPS)
        if not (has_b or has_c):
            return node
        k = self.counter.next()
        self.brk = f"__break_{k}" if has_b else None
        self.cont = f"__continue_{k}" if has_c else None
        node.body = self._block(node.body)
        flags = [f for f in (self.brk, self.cont) if f]
        pre = [ast.copy_location(assign(f, const(False), private=True), node) for f in flags]
        if self.cont:
            node.body.insert(0, ast.copy_location(assign(self.cont, const(False)), node))
        node._sp_private = set(flags)
        post = []
        if self.brk:
            if isinstance(node, ast.While):
                node.test = ast.BoolOp(op=ast.And(), values=[_not(self.brk), node.test])
            else:
                node._sp_break = self.brk
            if node.orelse:
                post = [ast.copy_location(ast.If(test=_not(self.brk), body=node.orelse,
                                                 orelse=[]), node.orelse[0])]
                node.orelse = []
        return pre + [node] + post

    visit_For = visit_While = _loop

    def _block(self, stmts: list) -> list:
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, (ast.Break, ast.Continue)):
                flag = self.brk if isinstance(s, ast.Break) else self.cont
                return out + [ast.copy_location(assign(flag, const(True)), s)]
            jumps = [f for f, kind in ((self.brk, ast.Break), (self.cont, ast.Continue))
                     if f and contains([s], kind, stop=_LOOPS)]
            if not isinstance(s, _LOOPS + _DEFS):
                for field in _bodies(s):
                    setattr(s, field, self._block(getattr(s, field)))
                for h in _clauses(s):
                    h.body = self._block(h.body)
            out.append(s)
            rest = stmts[i + 1:]
            if jumps and rest:
                out.append(ast.copy_location(ast.If(test=_not(*jumps),
                                                    body=self._block(rest), orelse=[]),
                                             rest[0]))
                return out
        return out
