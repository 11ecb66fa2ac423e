"""`import sampan` loads no heavy module until it is used (issue #16: import under 0.12 s).

Timing is measured by bench tools, never asserted here; this holds the structural part: the
modules below stay out of sys.modules after `import sampan` and a few eager ops.
"""
import json
import subprocess
import sys

HEAVY = ("numpy.random", "scipy", "cupy", "PIL", "onnx", "onnxruntime", "mpi4py", "torch",
         "paddle", "matplotlib", "pandas", "numba")


def _loaded_after(code: str) -> dict:
    probe = (f"import sys, json\n{code}\n"
             f"print(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_and_plain_ops_load_no_heavy_module():
    loaded = _loaded_after("import sampan\nx = sampan.ones([2, 3])\n(x + 1).sum().numpy()")
    assert [m for m, yes in loaded.items() if yes] == []


def test_random_ops_load_numpy_random_on_first_use():
    loaded = _loaded_after("import sampan\nsampan.seed(1)\nsampan.rand([2]).numpy()")
    assert loaded["numpy.random"]
