"""tools/run_paddle_tests.py: per-test outcomes of unittest files run with paddle -> sampan,
the baseline filter and the grouping of failures."""
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "run_paddle_tests.py")

GOOD = textwrap.dedent("""
    import unittest
    import numpy as np
    import paddle
    from paddle.pir_utils import test_with_pir_api

    class TestAdd(unittest.TestCase):
        @test_with_pir_api
        def test_add(self):
            out = paddle.to_tensor([1.0, 2.0]) + 1
            np.testing.assert_allclose(out.numpy(), [2.0, 3.0])

        def test_missing(self):
            paddle.no_such_function_3()

        def test_missing_too(self):
            paddle.no_such_function_4()

        @unittest.skip("not here")
        def test_skipped(self):
            pass
""")


def _run(tmp_path, *extra):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_good.py").write_text(GOOD)
    (tmp_path / "tests" / "test_broken.py").write_text("import paddle.no_such_room\n")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = tmp_path / "out.json"
    res = subprocess.run([sys.executable, TOOL, str(tmp_path / "tests"), "--json", str(out),
                          "--jobs", "1", *extra], env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    return res.stdout, json.loads(out.read_text())


def test_outcomes_per_test_and_summary(tmp_path):
    stdout, data = _run(tmp_path)
    by_file = {r["file"]: r for r in data["results"]}
    tests = by_file["test_good.py"]["tests"]
    assert tests["test_good.TestAdd.test_add"] == ["pass", ""]
    assert tests["test_good.TestAdd.test_missing"][0] == "error"
    assert "no_such_function_3" in tests["test_good.TestAdd.test_missing"][1]
    assert tests["test_good.TestAdd.test_skipped"] == ["skip", "not here"]
    assert "No module named 'paddle.no_such_room'" in by_file["test_broken.py"]["import_error"]
    assert "1 of 4 tests pass (25.0%) in 2 files" in stdout
    # the two missing functions differ only in a digit: one group of 2
    assert "    2  AttributeError: module 'sampan' has no attribute 'no_such_function_N'" in stdout


def test_baseline_counts_only_its_passes(tmp_path):
    baseline = tmp_path / "base.json"
    baseline.write_text(json.dumps({"results": [
        {"file": "test_good.py", "import_error": "", "tests": {
            "test_good.TestAdd.test_add": ["pass", ""],
            "test_good.TestAdd.test_missing": ["pass", ""],
            "test_good.TestAdd.test_skipped": ["skip", ""]}},
        {"file": "test_broken.py", "import_error": "", "tests": {
            "test_broken.TestX.test_y": ["pass", ""]}}]}))
    stdout, _ = _run(tmp_path, "--baseline", str(baseline))
    assert "1 of 3 tests pass (33.3%) in 2 files" in stdout
    assert "No module named 'paddle.no_such_room'" in stdout
