"""`python -m sampan` and `sampan.install_as_paddle()`: Paddle programs run unchanged, with
`paddle.*` the same module objects as `sampan.*`, in DataLoader workers and child
interpreters too; a real (here: fake) paddle is never shadowed unless asked."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = textwrap.dedent("""
    import multiprocessing, subprocess, sys
    import numpy as np
    import paddle
    import paddle.nn.functional as F
    import paddle.base as base
    from paddle.io import DataLoader, Dataset
    from paddle.nn.utils import clip_grad_norm_
    import sampan

    def report(q):
        q.put(f"{paddle.__name__} {sys.modules['paddle'] is sys.modules['sampan']}")

    class Squares(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            return np.array([i], "float32"), np.array([i * i], "float32")

    if __name__ == "__main__":
        print("same", paddle is sampan, F is sampan.nn.functional,
              sys.modules["paddle.nn"] is sampan.nn, base.core is sampan.base.core)
        print("clip", type(clip_grad_norm_).__name__)
        loader = DataLoader(Squares(), batch_size=4, num_workers=2)
        print("loader", [b[1].numpy().ravel().tolist() for b in loader])
        print("relu", F.relu(paddle.to_tensor([-1.0, 2.0])).numpy().tolist())
        child = subprocess.run([sys.executable, "-c", "import paddle; print(paddle.__name__)"],
                               capture_output=True, text=True)
        print("child", child.stdout.strip(), child.returncode)
        ctx = multiprocessing.get_context("spawn")
        q = ctx.Queue()
        proc = ctx.Process(target=report, args=(q,))
        proc.start()
        print("spawned", q.get(timeout=60))
        proc.join()
        print("argv", sys.argv[1:])
""")


def _run(args, tmp_path, env_extra=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra or {})
    return subprocess.run([sys.executable, *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def _fake_paddle(tmp_path):
    """A stand-in for a real PaddlePaddle install: a package named paddle on the path."""
    pkg = tmp_path / "site" / "paddle"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("REAL = True\n")
    return str(tmp_path / "site")


def test_python_m_sampan_runs_program_unchanged(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(PROGRAM)
    res = _run(["-m", "sampan", str(script), "--epochs", "1"], tmp_path)
    assert res.returncode == 0, res.stderr
    lines = dict(line.split(" ", 1) for line in res.stdout.splitlines())
    assert lines["same"] == "True True True True"
    assert lines["clip"] == "function"
    assert lines["loader"] == "[[0.0, 1.0, 4.0, 9.0], [16.0, 25.0, 36.0, 49.0]]"
    assert lines["relu"] == "[0.0, 2.0]"
    assert lines["child"] == "sampan 0"  # a fresh interpreter started by the program
    assert lines["spawned"] == "sampan True"  # multiprocessing's spawn re-runs the script
    assert lines["argv"] == "['--epochs', '1']"


def test_python_m_sampan_shadows_installed_paddle_when_asked(tmp_path):
    site = _fake_paddle(tmp_path)
    code = "import paddle; print(paddle.__name__, hasattr(paddle, 'REAL'))"
    res = _run(["-m", "sampan", "-c", code], tmp_path, {"PYTHONPATH": ROOT + os.pathsep + site})
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["sampan", "False"]


def test_import_sampan_never_shadows_paddle(tmp_path):
    site = _fake_paddle(tmp_path)
    code = "import sampan, sys; import paddle; print('paddle' in sys.modules, paddle.REAL)"
    res = _run(["-c", code], tmp_path, {"PYTHONPATH": ROOT + os.pathsep + site})
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["True", "True"]


def test_install_as_paddle_opt_in_and_idempotent(tmp_path):
    code = ("import sys, sampan; assert 'paddle' not in sys.modules; "
            "sampan.install_as_paddle(); sampan.install_as_paddle(); "
            "import paddle.static as S; from paddle.base import dygraph; "
            "print(S is sampan.static, dygraph is sampan.base.dygraph, "
            "sum(type(f).__name__ == 'PaddleAliasFinder' for f in sys.meta_path))")
    res = _run(["-c", code], tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["True", "True", "1"]


def test_install_after_real_paddle_import_raises(tmp_path):
    site = _fake_paddle(tmp_path)
    code = ("import paddle, sampan\ntry:\n    sampan.install_as_paddle()\n"
            "except RuntimeError as e:\n    print('error:', e)\n")
    res = _run(["-c", code], tmp_path, {"PYTHONPATH": ROOT + os.pathsep + site})
    assert "error: install_as_paddle: a real paddle is already imported" in res.stdout


def test_missing_module_names_paddle_path(tmp_path):
    res = _run(["-m", "sampan", "-c", "import paddle.no_such_room"], tmp_path)
    assert res.returncode == 1
    assert "No module named 'paddle.no_such_room'" in res.stderr


@pytest.mark.parametrize("args, code", [([], 2), (["--bogus"], 2), (["missing.py"], 2)])
def test_usage_errors(tmp_path, args, code):
    res = _run(["-m", "sampan", *args], tmp_path)
    assert res.returncode == code
    assert "python -m sampan" in res.stderr


def test_run_module_under_paddle_name(tmp_path):
    # `-m paddle.x` runs sampan.x as __main__ (the alias loader has no code of its own)
    res = _run(["-m", "sampan", "-m", "paddle.reader"], tmp_path)
    assert res.returncode == 0, res.stderr
    res = _run(["-m", "sampan", "-m", "paddle.utils"], tmp_path)
    assert "No module named sampan.utils.__main__" in res.stderr
