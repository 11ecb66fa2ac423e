"""Helpers for the sampan.serving tests: save small models, start the real server on
127.0.0.1 (a free port, --port 0) in a subprocess with a bounded startup wait, stop it."""
from __future__ import annotations

import os
import pathlib
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

import sampan as paddle

ROOT = pathlib.Path(__file__).resolve().parents[2]
STARTUP_S = 90


def save_mlp(folder) -> str:
    """A float32 MLP [-1, 4] -> [-1, 3], saved with jit.save; returns the path prefix."""
    paddle.seed(7)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 16), paddle.nn.ReLU(),
                               paddle.nn.Linear(16, 3))
    prefix = os.path.join(str(folder), "mlp")
    paddle.jit.save(net, prefix,
                    input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
    return prefix


class TwoInputs(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = paddle.nn.Embedding(10, 4)
        self.lin = paddle.nn.Linear(4, 2)

    def forward(self, ids, x):
        h = self.emb(ids).sum(axis=1) + x
        return self.lin(h), h.mean(axis=1, keepdim=True)


def save_two_inputs(folder) -> str:
    """int64 ids [-1, 3] and float32 x [-1, 4] -> two outputs; returns the path prefix."""
    paddle.seed(3)
    prefix = os.path.join(str(folder), "two")
    paddle.jit.save(TwoInputs(), prefix, input_spec=[
        paddle.static.InputSpec([None, 3], "int64", "ids"),
        paddle.static.InputSpec([None, 4], "float32", "x")])
    return prefix


def predictor(path: str):
    from sampan.inference import Config, create_predictor
    return create_predictor(Config(path))


def reference(path: str, *arrays) -> list:
    """The Predictor's outputs (numpy) for `arrays`, run alone."""
    return [o.numpy() for o in predictor(path).run([np.asarray(a) for a in arrays])]


class Server:
    """`python -m sampan.serving --model PATH --port 0 ARGS...` on 127.0.0.1."""

    def __init__(self, model: str, *args: str) -> None:
        self.stderr = tempfile.TemporaryFile()
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get(
            "PYTHONPATH", ""))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sampan.serving", "--model", model, "--port", "0", *args],
            cwd=str(ROOT), env=env, stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        self.url = self._wait_ready()

    def _wait_ready(self) -> str:
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: lines.put(self.proc.stdout.readline()),
                         daemon=True).start()
        try:
            line = lines.get(timeout=STARTUP_S)
        except queue.Empty:
            self.kill()
            raise AssertionError(f"server did not start in {STARTUP_S} s: {self.log()}")
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if not found:
            self.kill()
            raise AssertionError(f"server failed to start: {line!r} {self.log()}")
        url = f"http://127.0.0.1:{found.group(1)}"
        import httpx
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/health", timeout=5).status_code == 200:
                    return url
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        self.kill()
        raise AssertionError(f"/health never answered 200: {self.log()}")

    def log(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def terminate(self, timeout: float = 60) -> int:
        """SIGTERM, then the exit status (bounded wait)."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"server did not exit {timeout} s after SIGTERM: "
                                 f"{self.log()}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.kill()
        self.stderr.close()
