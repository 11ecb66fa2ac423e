"""The initializer room holds: `framework`, `tensor` and `static` (outside the static face
of layers, paddle.static.nn) never import `sampan.nn`, and `sampan.initializer` imports
only the rooms below it. Imports inside functions count."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2] / "sampan"
# paddle.static.nn and paddle.static's __init__ (which re-exports it) sit above nn
STATIC_FACE = {"static/nn.py", "static/nn_conv.py", "static/nn_norm.py", "static/__init__.py"}
INITIALIZER_MAY_IMPORT = ("framework", "ops", "autograd", "tensor", "utils.unique_name",
                          "initializer")


def sampan_imports(path: pathlib.Path) -> list:
    """(dotted name under sampan, line) of every import in the file, at any depth; for
    `from M import a` the name is `M.a` (a may be a module)."""
    package = list(path.relative_to(ROOT).parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name[7:], node.lineno) for a in node.names
                      if a.name.startswith("sampan.")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("sampan"):
                module = node.module[7:]
            else:
                continue
            found += [(f"{module}.{a.name}" if module else a.name, node.lineno)
                      for a in node.names]
    return found


def _files(room: str) -> list:
    return sorted(p for p in (ROOT / room).rglob("*.py")
                  if str(p.relative_to(ROOT)) not in STATIC_FACE)


def _is_under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@pytest.mark.parametrize("room", ["framework", "tensor", "static", "initializer"])
def test_lower_rooms_never_import_nn(room):
    bad = [f"{p.relative_to(ROOT)}:{line} imports sampan.{mod}"
           for p in _files(room) for mod, line in sampan_imports(p) if _is_under(mod, "nn")]
    assert not bad, "\n".join(bad)


def test_initializer_room_imports_only_lower_rooms():
    bad = [f"{p.relative_to(ROOT)}:{line} imports sampan.{mod}"
           for p in _files("initializer") for mod, line in sampan_imports(p)
           if not any(_is_under(mod, ok) for ok in INITIALIZER_MAY_IMPORT)]
    assert not bad, "\n".join(bad)


def test_param_attr_is_plain_data():
    assert sampan_imports(ROOT / "framework" / "param_attr.py") == []


def test_the_check_sees_function_level_and_relative_imports():
    probe = ROOT / "static" / "input.py"
    mods = {m for m, _ in sampan_imports(probe)}
    assert "initializer.Initializer" in mods and "static.builder.build_into" in mods
    assert any(_is_under(m, "nn") for m, _ in sampan_imports(ROOT / "static" / "nn.py"))
