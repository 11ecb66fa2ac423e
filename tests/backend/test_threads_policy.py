"""The kernel thread policy (backend/threads.py): the cap (paddle.base.core.set_num_threads,
SAMPAN_NUM_THREADS), one BLAS thread for small GEMMs, and the contention guard."""
import os
import subprocess
import sys

import numpy as np
import pytest

import sampan as paddle
from sampan.backend import numpy_ as xp
from sampan.backend import threads

needs_blas = pytest.mark.skipif(threads.blas_num_threads() is None,
                                reason="no OpenBLAS thread control in this NumPy build")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def policy():
    """Restore the cap, the policy switch and the guard's state after a test."""
    cap, auto, guard = threads.get_num_threads(), threads.AUTO, dict(threads._guard)
    threads._guard.update(next=float("inf"), free=None)  # no windows of the real host
    yield threads
    threads._guard.update(guard)
    threads.set_policy(auto)
    threads.set_num_threads(cap)


@needs_blas
def test_set_num_threads_caps_blas_and_pool(policy):
    paddle.base.core.set_num_threads(1)
    assert (threads.get_num_threads(), threads.blas_num_threads(), threads.num_workers()) \
        == (1, 1, 1)
    paddle.framework.core.set_num_threads(3)
    assert (threads.get_num_threads(), threads.blas_num_threads(), threads.num_workers()) \
        == (3, 3, 3)
    with threads.blas_threads(1):  # a pin inside restores the cap on exit
        assert threads.blas_num_threads() == 1
    assert threads.blas_num_threads() == 3


@pytest.mark.parametrize("bad,err", [(0, ValueError), (-2, ValueError), (2.0, TypeError),
                                     (True, TypeError), ("2", TypeError)])
def test_set_num_threads_rejects(policy, bad, err):
    with pytest.raises(err, match=r"set_num_threads: num_threads must be"):
        paddle.base.core.set_num_threads(bad)


@needs_blas
def test_env_caps_blas_at_import():
    code = ("import sampan; from sampan.backend import threads as t; "
            "print(t.get_num_threads(), t.blas_num_threads(), t.num_workers())")
    env = dict(os.environ, SAMPAN_NUM_THREADS="1", OPENBLAS_NUM_THREADS="2",
               OMP_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out == ["1", "1", "1"]


def test_gemm_threads_by_size(policy):
    threads.set_num_threads(2)
    assert threads.gemm_threads(threads.SERIAL_GEMM_FLOPS / 2) == 1
    assert threads.gemm_threads(threads.SERIAL_GEMM_FLOPS * 2) == 2
    threads.set_policy(False)
    assert threads.gemm_threads(1.0) == 2


class _Spy:
    """Stands in for numpy inside threads.matmul and records the BLAS count of each call."""

    def __init__(self):
        self.seen = []

    def matmul(self, a, b, out=None):
        self.seen.append(threads.blas_num_threads())
        return np.matmul(a, b) if out is None else np.matmul(a, b, out=out)


@needs_blas
def test_mid_size_gemm_runs_on_one_thread(policy, monkeypatch):
    threads.set_num_threads(2)
    spy = _Spy()
    monkeypatch.setattr(threads, "np", spy)
    rng = np.random.default_rng(0)
    small = rng.standard_normal((96, 96)).astype("float32")    # 1.8 MFLOP: OpenBLAS splits it
    big = rng.standard_normal((256, 256)).astype("float32")    # 34 MFLOP
    tiny = rng.standard_normal((8, 8)).astype("float32")
    np.testing.assert_allclose(xp.matmul(small, small), small @ small, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(xp.matmul(big, big), big @ big, rtol=1e-5, atol=1e-3)
    out = np.empty((8, 8), "float32")
    assert xp.matmul(tiny, tiny, out) is out
    np.testing.assert_allclose(out, tiny @ tiny, rtol=1e-6)
    assert spy.seen == [1, 2, 2]  # mid pinned; big on the cap; tiny left to OpenBLAS (serial)
    assert threads.blas_num_threads() == 2
    threads.set_policy(False)
    xp.matmul(small, small)
    assert spy.seen[-1] == 2


def test_matmul_shapes_match_numpy(policy):
    rng = np.random.default_rng(1)
    cases = [((3, 100, 120), (120, 90)), ((120,), (120, 100)), ((100, 120), (120,)),
             ((2, 1, 100, 80), (3, 80, 100)), ((120,), (120,))]
    for sa, sb in cases:
        a = rng.standard_normal(sa).astype("float32")
        b = rng.standard_normal(sb).astype("float32")
        np.testing.assert_allclose(xp.matmul(a, b), np.matmul(a, b), rtol=1e-5, atol=1e-4)
    with pytest.raises(ValueError):
        xp.matmul(np.ones((2, 3), "float32"), np.ones((4, 2), "float32"))


def _sample(t, cpu_s, busy, total, ncpu=2):
    return (t, cpu_s, busy, total, ncpu)


def test_free_cores_windows():
    base = _sample(0.0, 0.0, 0, 0)
    # 1 s on 2 CPUs (200 jiffies): we used 1 core and the CPUs were fully busy -> 1 free
    assert threads._free_cores(base, _sample(1.0, 1.0, 200, 200)) == 1
    # we used 2 cores (BLAS workers included), fully busy: nobody else -> 2 free
    assert threads._free_cores(base, _sample(1.0, 2.0, 200, 200)) == 2
    # others used 0.3 of a core: rounds to 2 free
    assert threads._free_cores(base, _sample(1.0, 1.0, 130, 200)) == 2
    # others used 1.8 cores: at least 1
    assert threads._free_cores(base, _sample(1.0, 0.2, 200, 200)) == 1
    assert threads._free_cores(base, _sample(1.0, 0.0, 40, 200, ncpu=4)) == 3  # 4 - 0.8
    assert threads._free_cores(base, _sample(0.05, 0.0, 10, 10)) is None  # too short


@needs_blas
def test_guard_drops_to_free_cores_and_back(policy, monkeypatch):
    threads.set_num_threads(2)
    samples = iter([_sample(0.0, 0.0, 0, 0), _sample(1.0, 1.0, 200, 200),
                    _sample(2.0, 2.0, 300, 400)])
    monkeypatch.setattr(threads, "_sample", lambda: next(samples))
    threads._guard.update(next=0.0, free=None, last=None)
    threads.poll()  # the first window opens
    threads._guard["next"] = 0.0
    threads.poll()  # another process took a core: contended
    threads._guard["next"] = float("inf")  # no further windows until the test says
    assert threads.contended() and threads.blas_num_threads() == 2  # left alone outside
    assert threads.gemm_threads(1e12) == 1
    spy = _Spy()
    monkeypatch.setattr(threads, "np", spy)
    big = np.ones((256, 256), "float32")
    xp.matmul(big, big)
    assert spy.seen == [1] and threads.blas_num_threads() == 2  # pinned for the call
    names = threads.run_parts(lambda i: __import__("threading").current_thread().name,
                              range(4))
    assert len(set(names)) == 1  # the pool stays out while contended
    threads._guard["next"] = 0.0
    threads.poll()  # the others went away (ours: 1 core of the 1.0 busy): back to the cap
    threads._guard["next"] = float("inf")
    assert not threads.contended()
    xp.matmul(big, big)
    assert spy.seen == [1, 2]


def test_guard_off_without_proc(policy, monkeypatch):
    monkeypatch.setattr(threads, "_sample", lambda: None)
    threads._guard.update(next=0.0, free=None)
    threads.set_num_threads(2)
    threads.poll()
    assert threads._guard["next"] == float("inf") and not threads.contended()


def test_linear_and_matmul_ops_unchanged_by_policy(policy):
    rng = np.random.default_rng(2)
    x = paddle.to_tensor(rng.standard_normal((64, 400)).astype("float32"))
    w = paddle.to_tensor(rng.standard_normal((400, 120)).astype("float32"))
    b = paddle.to_tensor(rng.standard_normal((120,)).astype("float32"))
    got = []
    for auto in (True, False):
        threads.set_policy(auto)
        got.append((paddle.nn.functional.linear(x, w, b).numpy(), paddle.matmul(x, w).numpy()))
    for a, c in zip(*got):
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got[0][1], x.numpy() @ w.numpy(), rtol=1e-5, atol=1e-4)
