"""sampan.serving refuses every malformed request with a JSON 4xx naming the problem, and
stays up: each class on the real server, then /health and a good prediction still work."""
from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("prometheus_client")

from tests.serving.server_util import ROOT, Server, save_mlp, save_two_inputs  # noqa: E402

NPY = {"Content-Type": "application/x-npy"}
JSON = {"Content-Type": "application/json"}


def npy_bytes(arr) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serving_errors")
    mlp, two = save_mlp(folder), save_two_inputs(folder)
    with Server(mlp, "--max-body-mb", "0.01", "--max-batch-size", "8") as a, \
            Server(two) as b:
        yield a, b


# (model, method, path, body bytes or json, headers, status, code, words in the message)
CASES = {
    "unknown input": ("mlp", {"inputs": {"x": [[1, 2, 3, 4]], "z": [1]}}, None, 400,
                      "unknown_input", ["'z'", "['x']"]),
    "missing input": ("two", {"inputs": {"ids": [[1, 2, 3]]}}, None, 400, "missing_input",
                      ["'x'", "[-1, 4]"]),
    "wrong rank": ("mlp", {"inputs": {"x": [1, 2, 3, 4]}}, None, 400, "wrong_rank",
                   ["rank 2", "[-1, 4]", "rank 1", "[4]"]),
    "wrong shape": ("mlp", {"inputs": {"x": [[1, 2, 3]]}}, None, 400, "wrong_shape",
                    ["[-1, 4]", "[1, 3]"]),
    "ragged list": ("mlp", {"inputs": {"x": [[1, 2, 3, 4], [1]]}}, None, 400, "wrong_shape",
                    ["ragged"]),
    "batch dims disagree": ("two", {"inputs": {"ids": [[1, 2, 3]], "x": [[0] * 4] * 2}}, None,
                            400, "wrong_shape", ["'ids': 1", "'x': 2"]),
    "floats for int64": ("two", {"inputs": {"ids": [[1.5, 2, 3]], "x": [[0] * 4]}}, None, 400,
                         "wrong_dtype", ["'ids'", "int64"]),
    "booleans for float32": ("mlp", {"inputs": {"x": [[True, False, True, True]]}}, None, 400,
                             "wrong_dtype", ["float32", "booleans"]),
    "int out of range": ("two", {"inputs": {"ids": [[2 ** 63 - 1, 2, 3]], "x": [[0] * 4]}},
                         None, 200, None, []),
    "npy of strings": ("mlp", npy_bytes(np.array([["a"] * 4])), NPY, 400, "wrong_dtype",
                       ["float32", "<U1"]),
    "non-numeric value": ("mlp", {"inputs": {"x": [[1, "two", 3, 4]]}}, None, 400,
                          "non_numeric", ["'x'"]),
    "huge integer": ("two", b'{"inputs": {"ids": [[1e2, 2, 3]], "x": [[0, 0, 0, 0]]}}'
                     .replace(b"1e2", b"1" + b"0" * 30), JSON, 400, "wrong_dtype",
                     ["'ids'", "too large"]),
    "deeply nested json": ("mlp", b'{"inputs": {"x": ' + b"[" * 4000 + b"]" * 4000 + b"}}",
                           JSON, 400, "malformed_json", ["nested too deeply"]),
    "null value": ("mlp", {"inputs": {"x": [[1, None, 3, 4]]}}, None, 400, "null_value",
                   ["'x'", "null"]),
    "malformed json": ("mlp", b'{"inputs": {"x": [[1, 2', JSON, 400, "malformed_json",
                       ["not valid JSON"]),
    "json not an object": ("mlp", b"[1, 2]", JSON, 400, "malformed_json", ["an array"]),
    "empty body": ("mlp", b"", JSON, 400, "empty_body", ["empty"]),
    "empty npy body": ("mlp", b"", NPY, 400, "empty_body", ["empty"]),
    "undecodable npy": ("mlp", b"\x93NUMPY garbage", NPY, 400, "undecodable_npy", [".npy"]),
    "unsupported content type": ("mlp", b"x", {"Content-Type": "image/png"}, 415,
                                 "unsupported_media_type", ["image/png"]),
    "too many rows": ("mlp", {"inputs": {"x": [[0] * 4] * 9}}, None, 400, "batch_too_large",
                      ["9 rows", "8"]),
    "zero rows": ("mlp", {"inputs": {"x": np.zeros((0, 4)).tolist()}}, None, 400,
                  "wrong_rank", []),
}


@pytest.mark.parametrize("case", list(CASES))
def test_malformed_request(servers, case):
    model, body, headers, status, code, words = CASES[case]
    server = servers[0] if model == "mlp" else servers[1]
    url = f"{server.url}/v1/models/{model}:predict"
    if isinstance(body, bytes):
        r = httpx.post(url, content=body, headers=headers)
    else:
        r = httpx.post(url, json=body)
    if case == "int out of range":   # in int64 range: reaches the model, whose gather fails
        assert r.status_code == 500 and r.json()["error"]["code"] == "model_run_failed"
        return
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json"
    err = r.json()["error"]
    assert err["status"] == status
    if case != "zero rows":
        assert err["code"] == code
    for word in words:
        assert word in err["message"], (word, err["message"])


def test_body_too_large(servers):
    server = servers[0]
    url = server.url + "/v1/models/mlp:predict"
    big = npy_bytes(np.zeros((1000, 4), "float32"))   # 16 KB > 0.01 MiB
    r = httpx.post(url, content=big, headers=NPY)
    assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
    assert "--max-body-mb 0.01 MiB (10485 bytes)" in r.json()["error"]["message"]

    def chunks():   # no Content-Length: refused while streaming
        for _ in range(8):
            yield b" " * 4096
    r = httpx.post(url, content=chunks(), headers=JSON)
    assert r.status_code == 413


@pytest.mark.parametrize("method,path,status,code", [
    ("GET", "/v1/models/nope", 404, "unknown_model"),
    ("POST", "/v1/models/nope:predict", 404, "unknown_model"),
    ("POST", "/v1/models/mlp:explain", 404, "unknown_verb"),
    ("GET", "/nowhere", 404, "not_found"),
    ("GET", "/v1/models/mlp:predict", 405, "method_not_allowed"),
    ("PUT", "/v1/models/mlp:predict", 405, "method_not_allowed"),
    ("POST", "/v1/models/mlp", 405, "method_not_allowed"),
    ("POST", "/health", 405, "method_not_allowed"),
])
def test_routing_errors(servers, method, path, status, code):
    r = httpx.request(method, servers[0].url + path)
    assert r.status_code == status
    assert r.headers["content-type"] == "application/json"
    assert r.json()["error"]["code"] == code
    if status == 405:
        assert r.headers["allow"]


def test_server_survives_and_counts_errors(servers):
    server = servers[0]
    assert httpx.get(server.url + "/health").status_code == 200
    r = httpx.post(server.url + "/v1/models/mlp:predict", json={"inputs": {"x": [[0] * 4]}})
    assert r.status_code == 200
    text = httpx.get(server.url + "/metrics").text
    assert 'sampan_serving_errors_total{code="400"}' in text
    assert 'sampan_serving_errors_total{code="413"}' in text or "413" not in text
    assert server.proc.poll() is None


def test_bad_command_lines():
    run = [sys.executable, "-m", "sampan.serving"]
    p = subprocess.run(run + ["--model", "/no/such/model"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode != 0 and "/no/such/model" in p.stderr and "Traceback" not in p.stderr
    p = subprocess.run(run + ["--model", "m", "--max-batch-size", "0"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "--max-batch-size must be > 0" in p.stderr


def test_port_in_use(tmp_path):
    import socket
    path = save_mlp(tmp_path)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        p = subprocess.run([sys.executable, "-m", "sampan.serving", "--model", path,
                            "--port", str(port)], cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
    assert p.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in p.stderr
