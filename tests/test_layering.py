"""The rooms of ARCHITECTURE.md hold: no module imports a higher room, not even inside a
function, and no new import cycle appears between modules.

The room order below is the data of the rule; a module belongs to the room of the longest
prefix that names it.
"""
from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "sampan"

# lowest first; modules of one row are on the same level
ROOMS = [
    ["framework", "backend", "utils.unique_name"],
    ["ops"],
    ["autograd"],
    ["tensor", "sparse", "linalg", "fft", "signal", "device", "compat", "cuda"],
    ["initializer"],
    ["static"],
    ["jit"],
    ["nn", "regularizer", "sparse.nn"],
    # the Layer faces of static and jit (static.nn; TranslatedLayer and jit.load, which
    # returns one) and the package __init__s that re-export them
    ["static.nn", "static.nn_conv", "static.nn_norm", "static.nn_legacy", "static.nn_deform", "static.__init__", "jit.__init__",
     "jit.save_load", "jit.translated_layer"],
    ["optimizer"],
    ["io", "reader"],
    ["metric", "hapi", "callbacks", "vision", "text", "amp", "quantization", "profiler",
     "distribution", "incubate", "utils", "geometric"],
    ["inference", "onnx", "distributed"],
    ["serving"],
    # the public face: re-exports and compatibility layers over everything
    ["", "__main__", "_compat", "_paddle_shim", "base", "pir_utils", "utils.__init__",
     "sparse.__init__"],
]

LEVEL = {prefix: i for i, row in enumerate(ROOMS) for prefix in row}


def module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def level(mod: str) -> tuple[int, str]:
    if f"{mod}.__init__" in LEVEL:  # a package whose __init__ is a public face
        return LEVEL[f"{mod}.__init__"], f"{mod}.__init__"
    parts = mod.split(".") if mod else []
    for n in range(len(parts), -1, -1):
        prefix = ".".join(parts[:n])
        if prefix in LEVEL:
            return LEVEL[prefix], prefix
    raise AssertionError(f"module sampan.{mod} is in no room of tests/test_layering.py")


def _modules() -> dict:
    return {module_name(p): p for p in ROOT.rglob("*.py")}


def imports_of(mod: str, path: pathlib.Path, known: set) -> list:
    """(imported sampan module, line) for every import statement, function-level included."""
    tree = ast.parse(path.read_text(), str(path))
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "sampan" or alias.name.startswith("sampan."):
                    found.append((alias.name[7:], node.lineno))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and (node.module == "sampan" or node.module.startswith("sampan.")):
                target = node.module[7:]
            else:
                continue
            target = target.strip(".")
            subs = [f"{target}.{a.name}" if target else a.name for a in node.names]
            subs = [sub for sub in subs if sub in known]
            # `from . import nn` depends on the module sampan.nn; `from .x import y` on x
            found.extend((sub, node.lineno) for sub in subs)
            if len(subs) < len(node.names):
                found.append((target, node.lineno))
    return found


def _graph() -> dict:
    mods = _modules()
    known = set(mods)
    return {m: imports_of(m, p, known) for m, p in mods.items()}


def test_no_module_imports_a_higher_room():
    bad = []
    for mod, edges in _graph().items():
        mine, room = level(mod)
        for target, line in edges:
            theirs, other = level(target)
            if theirs > mine:
                bad.append(f"sampan/{mod.replace('.', '/')}:{line} ({room or 'sampan'}) imports "
                           f"sampan.{target} ({other})")
    assert not bad, "imports that reach a higher room:\n" + "\n".join(sorted(bad))


def _cycles(graph: dict) -> list:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        top = stack.pop()
                        on.discard(top)
                        comp.append(top)
                        if top == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_cycle_crosses_rooms():
    graph = {m: sorted({t for t, _ in edges if t != m}) for m, edges in _graph().items()}
    crossing = [c for c in _cycles(graph) if len({level(m)[0] for m in c}) > 1]
    assert not crossing, f"import cycles spanning rooms: {crossing}"


def test_import_sampan_loads_no_heavy_room():
    """`import sampan` stays fast: nn, static, jit, sparse and optional libraries load on use."""
    import subprocess
    import sys
    code = ("import sys, sampan; print(' '.join(m for m in ('sampan.nn', 'sampan.static', "
            "'sampan.jit', 'sampan.sparse', 'sampan.vision', 'sampan.onnx', 'onnx', 'PIL', "
            "'mpi4py', 'cupy', 'tensorboardX') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == ""
