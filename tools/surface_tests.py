"""Which public names of the Paddle 2.6 surface have a test under tests/ that exercises them.

Issue #15: "done" means each public name has a test that could fail. This tool finds the names
that no test touches, grouped by module.

    PYTHONPATH=. python tools/surface_tests.py                      # static pass only
    PYTHONPATH=. python tools/surface_tests.py --json /tmp/cov.json  # also write the result
    PYTHONPATH=. python tools/surface_tests.py --trace /tmp/called.json -- tests/nn -q
    PYTHONPATH=. python tools/surface_tests.py --called /tmp/called.json   # static + dynamic

Static pass (stdlib `ast`, no import of the tests): every test file's imports are read, so
`import sampan.nn.functional as F` makes `F.relu` resolve to `paddle.nn.functional.relu`, and
`from sampan.linalg import norm` makes `norm` resolve to `paddle.linalg.norm`. A module-level
name counts as tested when some test refers to it under that dotted path, or to another dotted
path of sampan bound to the very same object (`paddle.linalg.norm` is `paddle.norm` when sampan
defines them once). A name of `paddle.Tensor` or of a class surface (`paddle.nn.Layer`, ...)
counts when a test reads `.name` on something that is not a sampan module (`x.abs()`,
`layer.train()`), or calls `getattr(obj, "name")`. String constants that parse as Python
(case snippets run with exec, as in tests/surface) are read like code, with `paddle` bound
to sampan. Names a test builds at run time (`f"paddle.{name}(x)"`, a computed
getattr over a list) are invisible here unless the file's string constants hold them.

Dynamic pass (optional, slow: a profile hook sees every Python call): `--trace OUT -- ARGS`
runs pytest ARGS with `sys.setprofile` / `threading.setprofile` and records which surface
functions and classes had their code run (a function's own code; for a class, the code of any
method the class itself defines). Code objects shared by several surface names (functions made
by one factory) are not credited, since a call cannot tell which name ran. `--called OUT` adds
that record to the static pass. Both passes credit a name whose code ran or that is referenced;
neither checks that the test asserts anything about it.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SURFACE = "/work/shared/api/paddle-2.6.2-api.json"
# Surfaces whose names are attributes of instances (methods, properties), not module members.
CLASS_KEYS = ("paddle.Tensor", "paddle.nn.Layer", "paddle.Model", "paddle.optimizer.Optimizer",
              "paddle.optimizer.lr.LRScheduler", "paddle.metric.Metric",
              "paddle.callbacks.Callback", "paddle.static.Executor", "paddle.static.Program")


def load_surface(path: str) -> dict:
    """{module key: [names]} from the surface JSON (keys starting with '__' are metadata)."""
    with open(path) as f:
        data = json.load(f)
    return {k: list(v) for k, v in data.items() if not k.startswith("__")}


def test_files(tests_dir: str) -> list:
    out = []
    for base, _dirs, files in os.walk(tests_dir):
        out.extend(os.path.join(base, f) for f in files if f.endswith(".py"))
    return sorted(out)


def _canon(dotted: str) -> str:
    """'sampan.nn.functional' and 'paddle.nn.functional' both become 'paddle.nn.functional'."""
    head, _, rest = dotted.partition(".")
    if head in ("sampan", "paddle"):
        return "paddle" + ("." + rest if rest else "")
    return ""


class _Refs(ast.NodeVisitor):
    """Collects dotted sampan paths and bare attribute names used in one test file."""

    def __init__(self):
        self.alias = {}          # local name -> canonical dotted path ("paddle.nn.functional")
        self.paths = set()       # canonical dotted paths referenced ("paddle.nn.functional.relu")
        self.attrs = set()       # attribute names read on non-sampan objects (".abs")
        self.strings = set()     # string constants (names in table-driven tests)
        self.dyn_bases = set()   # modules read with getattr(module, <computed name>)

    def visit_Import(self, node):
        for a in node.names:
            canon = _canon(a.name)
            if canon:
                self.alias[a.asname or a.name.split(".")[0]] = canon if a.asname else "paddle"
                self.paths.add(canon)

    def visit_ImportFrom(self, node):
        canon = _canon(node.module or "") if not node.level else ""
        for a in node.names:
            if canon:
                self.alias[a.asname or a.name] = canon + "." + a.name
                self.paths.add(canon + "." + a.name)

    def visit_Assign(self, node):
        full = self._resolve(node.value)
        if full and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.alias[node.targets[0].id] = full
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str) and node.value.isidentifier():
            self.strings.add(node.value)
        elif isinstance(node.value, str) and ("(" in node.value or "." in node.value):
            self._visit_snippet(node.value)

    def _visit_snippet(self, text: str) -> None:
        """A string holding code (a case snippet run with exec) is read like the file."""
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return
        self.alias.setdefault("paddle", "paddle")
        self.visit(tree)

    def _resolve(self, node):
        if isinstance(node, ast.Name):
            return self.alias.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value)
            return base + "." + node.attr if base else None
        return None

    def visit_Attribute(self, node):
        full = self._resolve(node)
        if full:
            self.paths.add(full)
        else:
            self.attrs.add(node.attr)
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        named = len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
        if (isinstance(f, ast.Name) and f.id in ("getattr", "hasattr") and named
                and isinstance(node.args[1].value, str)):
            base = self._resolve(node.args[0])
            name = node.args[1].value
            if base:
                self.paths.add(base + "." + name)
            else:
                self.attrs.add(name)
        elif isinstance(f, ast.Name) and f.id == "getattr" and len(node.args) >= 2:
            self.dyn_bases.add(self._resolve(node.args[0]) or "")
        self.generic_visit(node)

    def table_paths(self) -> set:
        """`getattr(paddle.nn, name)` with a computed name: each string constant of the file
        is taken as a name that may be read that way (table-driven tests); a computed
        getattr on a non-module object credits the strings as attribute names."""
        out = set()
        for base in self.dyn_bases:
            out |= {(base + "." if base else ".") + s for s in self.strings}
        return out


def scan_tests(files: list, tables: bool = True) -> tuple:
    """-> (paths, attrs): the union over files of `_Refs.paths` and `_Refs.attrs` (and, with
    `tables`, of the names table-driven files may read with a computed getattr)."""
    paths, attrs = set(), set()
    for fn in files:
        try:
            with open(fn, encoding="utf-8") as f:
                tree = ast.parse(f.read(), fn)
        except (SyntaxError, UnicodeDecodeError) as e:
            print(f"surface_tests: skipping {fn}: {e}", file=sys.stderr)
            continue
        refs = _Refs()
        refs.visit(tree)
        paths |= refs.paths
        attrs |= refs.attrs
        for p in refs.table_paths() if tables else ():
            if p.startswith("."):
                attrs.add(p[1:])
            else:
                paths.add(p)
    return paths, attrs


def _lookup(root, dotted: str):
    """The sampan object at canonical path 'paddle.a.b' (None when absent)."""
    obj = root
    for part in dotted.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except Exception:
            return None
    return obj


def _identity_key(obj):
    """id() for objects whose identity means 'the same API' (functions, classes), else None."""
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, type)):
        return id(obj)
    if callable(obj) and not isinstance(obj, types.ModuleType):
        return id(obj)
    return None


def static_covered(surface: dict, paths: set, attrs: set, root=None) -> dict:
    """{key: set(names)} of names the tests refer to (see the module docstring)."""
    ids = set()
    if root is not None:
        for p in paths:
            k = _identity_key(_lookup(root, p))
            if k is not None:
                ids.add(k)
    covered = {}
    for key, names in surface.items():
        hit = set()
        for n in names:
            if key in CLASS_KEYS:
                if n in attrs or f"{key}.{n}" in paths:
                    hit.add(n)
            elif f"{key}.{n}" in paths:
                hit.add(n)
            elif root is not None:
                k = _identity_key(_lookup(root, f"{key}.{n}"))
                if k is not None and k in ids:
                    hit.add(n)
        covered[key] = hit
    return covered


def _codes_of(obj) -> list:
    """Code objects whose running means `obj` was exercised."""
    while hasattr(obj, "__wrapped__") and not isinstance(obj, type):
        obj = obj.__wrapped__
    if isinstance(obj, property):
        return [c for f in (obj.fget, obj.fset) if f is not None for c in _codes_of(f)]
    if isinstance(obj, (staticmethod, classmethod)):
        return _codes_of(obj.__func__)
    if isinstance(obj, type):
        return [c for v in vars(obj).values()
                if isinstance(v, (types.FunctionType, property, staticmethod, classmethod))
                for c in _codes_of(v)]
    code = getattr(obj, "__code__", None)
    return [code] if isinstance(code, types.CodeType) else []


def surface_codes(surface: dict, root) -> dict:
    """{code object: 'key.name'} for codes that belong to exactly one surface name."""
    owners = {}
    for key, names in surface.items():
        holder = _lookup(root, key)
        for n in names:
            obj = None
            if isinstance(holder, type):
                obj = vars(holder).get(n)
                for klass in holder.__mro__ if obj is None else ():
                    obj = vars(klass).get(n, obj)
            if obj is None:
                obj = _lookup(root, f"{key}.{n}")
            for code in _codes_of(obj) if obj is not None else ():
                owners.setdefault(code, set()).add(f"{key}.{n}")
    return {c: next(iter(o)) for c, o in owners.items() if len(o) == 1}


def run_traced(out: str, pytest_args: list) -> int:
    """Run pytest with a profile hook; write the sorted 'key.name' list that ran to `out`."""
    import threading

    import pytest
    import sampan

    sys.modules.setdefault("paddle", sampan)
    codes = surface_codes(load_surface(ARGS.surface), sampan)
    seen = set()

    def hook(frame, event, _arg):
        if event == "call":
            name = codes.get(frame.f_code)
            if name is not None:
                seen.add(name)

    threading.setprofile(hook)
    sys.setprofile(hook)
    try:
        rc = pytest.main(pytest_args)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    with open(out, "w") as f:
        json.dump(sorted(seen), f, indent=0)
    print(f"surface_tests: {len(seen)} surface names ran; written to {out}", file=sys.stderr)
    return int(rc)


def report(surface: dict, covered: dict, verbose: bool = True) -> dict:
    """Print untested names grouped by module; return {key: [untested names]}."""
    untested = {}
    for key, names in surface.items():
        missing = sorted(set(names) - covered.get(key, set()))
        untested[key] = missing
        if verbose and missing:
            print(f"\n{key}: {len(missing)}/{len(names)} untested")
            print("  " + " ".join(missing))
    total = sum(len(v) for v in surface.values())
    left = sum(len(v) for v in untested.values())
    print(f"\nsurface_tests: {left} of {total} names have no test ({total - left} tested)")
    return untested


def main(argv=None) -> int:
    global ARGS
    argv = sys.argv[1:] if argv is None else argv
    rest = []
    if "--" in argv:
        i = argv.index("--")
        argv, rest = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--surface", default=DEFAULT_SURFACE)
    p.add_argument("--tests", default=os.path.join(ROOT, "tests"))
    p.add_argument("--no-import", action="store_true",
                   help="pure text pass: do not import sampan to match aliases by identity")
    p.add_argument("--called", action="append", default=[],
                   help="JSON list of 'key.name' from a --trace run (repeatable: union)")
    p.add_argument("--trace", help="run pytest (args after --) with the call tracer; write here")
    p.add_argument("--json", help="write {key: [untested names]} here")
    p.add_argument("--strict", action="store_true",
                   help="credit only names a test spells out (no table-driven getattr guesses, "
                        "no same-object aliases)")
    p.add_argument("-q", "--quiet", action="store_true", help="print counts only")
    ARGS = p.parse_args(argv)
    if ARGS.trace:
        return run_traced(ARGS.trace, rest or [ARGS.tests, "-q", "-p", "no:cacheprovider"])
    surface = load_surface(ARGS.surface)
    root = None
    if not (ARGS.no_import or ARGS.strict):
        import sampan
        sys.modules.setdefault("paddle", sampan)
        root = sampan
    paths, attrs = scan_tests(test_files(ARGS.tests), tables=not ARGS.strict)
    covered = static_covered(surface, paths, attrs, root)
    for called in ARGS.called:
        with open(called) as f:
            for full in json.load(f):
                key, _, name = full.rpartition(".")
                covered.setdefault(key, set()).add(name)
    untested = report(surface, covered, verbose=not ARGS.quiet)
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            json.dump(untested, f, indent=1)
    return 0


ARGS = None

if __name__ == "__main__":
    sys.exit(main())
