"""tools/surface_tests.py: the static pass credits exactly the names a test refers to."""
import importlib.util
from pathlib import Path

import sampan

TOOL = Path(__file__).resolve().parents[2] / "tools" / "surface_tests.py"
spec = importlib.util.spec_from_file_location("surface_tests", TOOL)
st = importlib.util.module_from_spec(spec)
spec.loader.exec_module(st)

SURFACE = {
    "paddle": ["abs", "qr", "exp", "erf", "never_used"],
    "paddle.linalg": ["qr", "det"],
    "paddle.nn.functional": ["relu", "gelu", "silu"],
    "paddle.Tensor": ["abs_", "sum", "mean"],
    "paddle.optimizer.lr": ["StepDecay"],
}

TEST_A = '''
import sampan as paddle
import sampan.nn.functional as F
from sampan.linalg import det
L = paddle.optimizer.lr

def test_a():
    x = paddle.abs(paddle.to_tensor([1.0]))
    F.relu(x).sum()
    det(x)
    L.StepDecay(0.1, 2)
    getattr(x, "abs_")()
'''

TEST_B = '''
import sampan as paddle
NAMES = ["gelu", "silu"]
CASES = {"erf": "out = paddle.erf(x).mean()"}

def test_b(name):
    getattr(paddle.nn.functional, name)
'''


def _covered(tmp_path, root=None, tables=True):
    (tmp_path / "test_a.py").write_text(TEST_A)
    (tmp_path / "test_b.py").write_text(TEST_B)
    paths, attrs = st.scan_tests(st.test_files(str(tmp_path)), tables=tables)
    return st.static_covered(SURFACE, paths, attrs, root)


def test_imports_aliases_snippets_and_tables_are_resolved(tmp_path):
    got = _covered(tmp_path)
    assert got["paddle"] == {"abs", "erf"}
    assert got["paddle.linalg"] == {"det"}
    assert got["paddle.nn.functional"] == {"relu", "gelu", "silu"}
    assert got["paddle.Tensor"] == {"abs_", "sum", "mean"}
    assert got["paddle.optimizer.lr"] == {"StepDecay"}


def test_strict_drops_table_guesses_and_identity_adds_aliases(tmp_path):
    assert _covered(tmp_path, tables=False)["paddle.nn.functional"] == {"relu"}
    (tmp_path / "test_c.py").write_text("import sampan as paddle\npaddle.linalg.qr\n")
    got = _covered(tmp_path, root=sampan)
    assert sampan.qr is sampan.linalg.qr       # one object under two paths: both credited
    assert "qr" in got["paddle"] and "qr" in got["paddle.linalg"]
    assert "never_used" not in got["paddle"]


def test_report_lists_untested_names_by_module(tmp_path, capsys):
    untested = st.report(SURFACE, _covered(tmp_path))
    out = capsys.readouterr().out
    assert untested["paddle"] == ["exp", "never_used", "qr"]
    assert "paddle: 3/5 untested" in out
    assert "paddle.linalg: 1/2 untested" in out
    assert "4 of 14 names have no test (10 tested)" in out
