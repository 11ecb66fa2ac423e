"""Control-flow transformers: the state analysis, `for` -> index-driven `while`, and `while` /
`if` -> converter calls over nested functions.

A converted statement hands the converter its pieces as functions sharing the enclosing
function's variables through `nonlocal` (get_args/set_args read and write the construct's
state: the names it binds). The converter runs them as Python for a Python condition, or
traces them into a `cond` / `while_loop` op for a tensor one (sampan/jit/convert.py).
"""
from __future__ import annotations

import ast

from .base import (MUTATORS, Counter, assign, bound_names, call, const, declared, funcdef,
                   is_generated, located, name, param_names, scope_walk)

_CONSTRUCTS = (ast.If, ast.While, ast.For)


def _locals(fn: ast.FunctionDef) -> set:
    return (set(param_names(fn)) | set(bound_names(fn.body))) - declared(fn, ast.Global)


class StateAnalysis:
    """Record on every if/while/for the ordered names it binds (`_sp_names`): its state."""

    def visit(self, tree):
        for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            local = _locals(fn)
            for node in scope_walk(fn.body):
                if isinstance(node, _CONSTRUCTS):
                    node._sp_names = _state(node, local)
        return tree


def _state(node, local: set) -> list:
    if isinstance(node, ast.If):
        return bound_names(node.body + node.orelse, local)
    names = bound_names(node.body, local)
    if isinstance(node, ast.For):
        names = [n for n in bound_names([ast.Assign(targets=[node.target], value=const(0))])
                 if n not in names] + names
    return names


class _ScopedTransformer(ast.NodeTransformer):
    """Tracks the user function being transformed (its globals and locals)."""

    def __init__(self, counter: Counter) -> None:
        self.counter = counter
        self.scopes: list = []

    def visit_FunctionDef(self, node):
        if is_generated(node):
            self.generic_visit(node)
            return node
        self.scopes.append((declared(node, ast.Global), _locals(node)))
        self.generic_visit(node)
        self.scopes.pop()
        return node

    def names_of(self, node) -> list:
        names = getattr(node, "_sp_names", None)
        if names is None:
            names = _state(node, self.scopes[-1][1] if self.scopes else set())
        return names

    def decl(self, names: list) -> list:
        glob = self.scopes[-1][0] if self.scopes else set()
        out = []
        for kind, group in ((ast.Global, [n for n in names if n in glob]),
                            (ast.Nonlocal, [n for n in names if n not in glob])):
            if group:
                out.append(kind(names=group))
        return out

    def state_fns(self, k: int, names: list) -> list:
        """get_args/set_args over `names` (None when there is no state)."""
        if not names:
            return [], const(None), const(None)
        tup = ast.Tuple(elts=[name(n) for n in names], ctx=ast.Load())
        get = funcdef(f"__get_args_{k}", [], [ast.Return(value=tup)])
        target = ast.Tuple(elts=[name(n, True) for n in names], ctx=ast.Store())
        put = funcdef(f"__set_args_{k}", ["__args"], self.decl(names) + [
            ast.Assign(targets=[target], value=name("__args"))])
        return [get, put], name(get.name), name(put.name)


def _names_tuple(names: list) -> ast.Tuple:
    return ast.Tuple(elts=[const(n) for n in names], ctx=ast.Load())


def _effects(stmts: list) -> list:
    """Python side effects in `stmts` that graph control flow cannot select at run time:
    attribute assignments (`self.n = ...`) and in-place calls on attributes
    (`self.cache.append(...)`), as source text."""
    out = []
    nodes = sorted((n for n in scope_walk(stmts) if hasattr(n, "lineno")),
                   key=lambda n: (n.lineno, n.col_offset))
    for node in nodes:
        target = None
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for t in getattr(node, "targets", None) or [node.target]:
                if isinstance(t, ast.Attribute):
                    target = t
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in MUTATORS and isinstance(node.func.value, ast.Attribute)):
            target = node.func.value
        if target is not None:
            text = ast.unparse(target)
            if text not in out:
                out.append(text)
    return out


def _with_effects(run: ast.Expr, stmts: list) -> ast.Expr:
    effects = _effects(stmts)
    if effects:
        run.value.keywords.append(ast.keyword(arg="effects", value=_names_tuple(effects)))
    return run


class ForTransformer(_ScopedTransformer):
    """`for t in it: body` -> an index-driven while loop:
    `__for_it_N = _jst.convert_iter(it)`; `while _jst.for_has_next(__for_it_N, __for_i_N):
    t = _jst.for_item(__for_it_N, __for_i_N); __for_i_N += 1; body`. A tensor-length
    iterable (range over a tensor, a tensor with an unknown first dim) then gives a tensor
    condition, i.e. a `while_loop` op; anything else iterates in Python."""

    def visit_For(self, node):
        names = self.names_of(node)
        self.generic_visit(node)
        k = self.counter.next()
        it, idx = f"__for_it_{k}", f"__for_i_{k}"
        brk = getattr(node, "_sp_break", None)
        extra = [name(brk)] if brk else []
        body = node.body
        if brk:
            guard = ast.If(test=call("for_guard", name(it), name(brk)), body=body, orelse=[])
            guard._sp_names = [n for n in names if n not in bound_names([node.target])]
            body = [located([guard], node)[0]]
        head = [ast.Assign(targets=[node.target], value=call("for_item", name(it), name(idx))),
                ast.AugAssign(target=name(idx, True), op=ast.Add(), value=const(1))]
        loop = ast.While(test=call("for_has_next", name(it), name(idx), *extra),
                         body=head + body, orelse=node.orelse)
        loop._sp_names = names + [idx]
        pre = [assign(it, call("convert_iter", node.iter), private=True),
               assign(idx, const(0), private=True)]
        return located(pre + [loop], node)


class WhileTransformer(_ScopedTransformer):
    """`while test: body` -> `_jst.convert_while_loop(cond_fn, body_fn, get_args, set_args,
    names)`."""

    def visit_While(self, node):
        names = self.names_of(node)
        self.generic_visit(node)
        k = self.counter.next()
        cond = funcdef(f"__while_cond_{k}", [], [ast.Return(value=node.test)])
        body = funcdef(f"__while_body_{k}", [], self.decl(names) + node.body)
        fns, get, put = self.state_fns(k, names)
        run = _with_effects(ast.Expr(value=call(
            "convert_while_loop", name(cond.name), name(body.name), get, put,
            _names_tuple(names))), node.body)
        return located([cond, body] + fns + [run], node) + node.orelse


class IfTransformer(_ScopedTransformer):
    """`if test: a else: b` -> `_jst.convert_ifelse(test, true_fn, false_fn, get_args,
    set_args, names)`."""

    def visit_If(self, node):
        names = self.names_of(node)
        self.generic_visit(node)
        k = self.counter.next()
        true_fn = funcdef(f"__true_fn_{k}", [], self.decl(names) + node.body)
        false_fn = funcdef(f"__false_fn_{k}", [], self.decl(names) + node.orelse)
        fns, get, put = self.state_fns(k, names)
        run = _with_effects(ast.Expr(value=call(
            "convert_ifelse", node.test, name(true_fn.name), name(false_fn.name), get, put,
            _names_tuple(names))), node.body + node.orelse)
        return located([true_fn, false_fn] + fns + [run], node)


class DeclareTransformer(ast.NodeTransformer):
    """Bind, at the top of each user function, every name its generated helpers declare
    `nonlocal` (as `_jst.UndefinedVar(name)`), so `nonlocal` always finds a binding and a
    name first assigned in one branch reads as 'undefined' rather than crashing."""

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        if is_generated(node):
            return node
        own = set(param_names(node)) | declared(node, ast.Global) | \
            declared(node, ast.Nonlocal) | _assigned_first(node.body)
        wanted = []
        for helper in _helpers(node):
            for st in helper.body:
                if isinstance(st, ast.Nonlocal):
                    wanted.extend(n for n in st.names if n not in own and n not in wanted)
        if wanted:
            inits = [assign(n, call("UndefinedVar", const(n))) for n in wanted]
            doc = 1 if (node.body and isinstance(node.body[0], ast.Expr) and
                        isinstance(node.body[0].value, ast.Constant) and
                        isinstance(node.body[0].value.value, str)) else 0
            node.body[doc:doc] = located(inits, node)
        return node


def _assigned_first(body: list) -> set:
    """Names bound by plain top-level assignments before the first generated helper."""
    out = set()
    for st in body:
        if isinstance(st, ast.FunctionDef) and is_generated(st):
            break
        if isinstance(st, ast.Assign) and all(isinstance(t, ast.Name) for t in st.targets):
            out.update(t.id for t in st.targets)
        elif not isinstance(st, ast.Expr):
            break
    return out


def _helpers(fn: ast.FunctionDef) -> list:
    """Generated helper functions nested in fn, not entering nested user functions."""
    out, todo = [], list(fn.body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.FunctionDef):
            if not is_generated(n):
                continue
            out.append(n)
        todo.extend(ast.iter_child_nodes(n))
    return out


__all__ = ["StateAnalysis", "ForTransformer", "WhileTransformer", "IfTransformer",
           "DeclareTransformer"]
