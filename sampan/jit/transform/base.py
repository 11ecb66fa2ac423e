"""Shared pieces of the dy2static AST transformers: node builders, generated-name counters,
the marks transformers leave on nodes, and name analysis (which local names a statement binds).

Marks (plain attributes on AST nodes, read by later passes):
  `_sp_generated` on a FunctionDef: a helper made by a transformer (not user code);
  `_sp_private` on an Assign: a loop-private initialisation (iterator, flags) that enclosing
  constructs must not carry as state; on a loop: the names private to that loop;
  `_sp_names` on If/While/For: the ordered names the construct binds (its state);
  `_sp_break` on a For: the name of its break flag.
Imports nothing from sampan.
"""
from __future__ import annotations

import ast
import itertools

JST = "_jst"  # the name under which converted code sees sampan.jit.convert

# container methods that mutate their receiver in place: `x.append(v)` makes `x` state
MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update",
                      "setdefault", "popitem", "sort", "reverse", "add", "discard"})


class Counter:
    """Per-conversion counter so generated names are unique within one function."""

    def __init__(self) -> None:
        self._it = itertools.count()

    def next(self) -> int:
        return next(self._it)


def jst(attr: str) -> ast.expr:
    return ast.Attribute(value=ast.Name(JST, ast.Load()), attr=attr, ctx=ast.Load())


def call(func, *args) -> ast.Call:
    if isinstance(func, str):
        func = jst(func)
    return ast.Call(func=func, args=list(args), keywords=[])


def name(n: str, store: bool = False) -> ast.Name:
    return ast.Name(n, ast.Store() if store else ast.Load())


def const(v) -> ast.Constant:
    return ast.Constant(v)


def assign(target: str, value: ast.expr, private: bool = False) -> ast.Assign:
    node = ast.Assign(targets=[name(target, True)], value=value, lineno=0)
    if private:
        node._sp_private = True
    return node


def thunk(expr: ast.expr) -> ast.Lambda:
    """`lambda: expr` (lazy operand of and/or, ternaries, chained comparisons)."""
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    return ast.Lambda(args=args, body=expr)


def funcdef(fname: str, params: list, body: list) -> ast.FunctionDef:
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    node = ast.FunctionDef(name=fname, args=args, body=body or [ast.Pass()],
                           decorator_list=[], returns=None, type_comment=None)
    node._sp_generated = True
    return node


def is_generated(node) -> bool:
    return getattr(node, "_sp_generated", False)


def located(nodes: list, origin: ast.AST) -> list:
    """Give every node without a position the position of `origin` (the user's statement),
    so tracebacks through generated code point at the user's line."""
    for n in nodes:
        for sub in ast.walk(n):
            if "lineno" in sub._attributes and getattr(sub, "lineno", None) in (None, 0):
                # one-line span: 3.11 reports a method call at its callee's *end* line
                sub.lineno = sub.end_lineno = origin.lineno
                sub.col_offset = sub.end_col_offset = origin.col_offset
    return nodes


# --- name analysis ---------------------------------------------------------------------------

_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Binds(ast.NodeVisitor):
    """Ordered names bound by statements, not entering nested scopes; with `mutated`, also
    names whose container is changed in place (`x[k] = v`, `x.append(v)`)."""

    def __init__(self, locals_: set | None = None) -> None:
        self.names: list = []
        self.locals = locals_

    def add(self, n: str) -> None:
        if n not in self.names:
            self.names.append(n)

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.add(node.id)

    def visit_FunctionDef(self, node):
        for d in node.decorator_list:
            self.visit(d)
        if not is_generated(node):
            self.add(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.add(node.name)

    def visit_Import(self, node):
        for a in node.names:
            self.add(a.asname or a.name.split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_MatchAs(self, node):
        if node.name:
            self.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        if node.name:
            self.add(node.name)

    def visit_MatchMapping(self, node):
        if node.rest:
            self.add(node.rest)
        self.generic_visit(node)

    def visit_Assign(self, node):
        if not getattr(node, "_sp_private", False):
            self.generic_visit(node)

    def _loop(self, node):
        inner = _Binds(self.locals)
        inner.generic_visit(node)
        private = getattr(node, "_sp_private", ())
        for n in inner.names:
            if n not in private:
                self.add(n)

    visit_For = visit_While = _loop

    def visit_Subscript(self, node):
        if isinstance(node.ctx, ast.Store) and self.locals is not None:
            root = node.value
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            if isinstance(root, ast.Name) and root.id in self.locals:
                self.add(root.id)
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        if (self.locals is not None and isinstance(f, ast.Attribute) and f.attr in MUTATORS
                and isinstance(f.value, ast.Name) and f.value.id in self.locals):
            self.add(f.value.id)
        self.generic_visit(node)


for _scope in _SCOPES:
    setattr(_Binds, "visit_" + _scope.__name__, lambda self, node: None)


def bound_names(stmts, locals_: set | None = None) -> list:
    b = _Binds(locals_)
    for s in stmts:
        b.visit(s)
    return b.names


def param_names(fn: ast.FunctionDef) -> list:
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return names


def declared(fn: ast.FunctionDef, kind) -> set:
    """Names declared `global` (kind=ast.Global) or `nonlocal` directly in fn's scope."""
    out = set()
    for node in scope_walk(fn.body):
        if isinstance(node, kind):
            out.update(node.names)
    return out


def scope_walk(stmts):
    """Every node of `stmts` without entering nested function/class/lambda scopes."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) + _SCOPES):
            continue
        todo.extend(ast.iter_child_nodes(node))


def contains(stmts, kinds, stop=()) -> bool:
    """Whether `stmts` hold a node of `kinds`, not entering nested scopes or `stop` nodes."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) + _SCOPES
                      + tuple(stop)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False


def user_functions(tree) -> list:
    """Every user (not generated) function definition in `tree`, outermost first."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and not is_generated(n)]
