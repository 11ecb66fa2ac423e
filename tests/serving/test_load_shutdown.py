"""sampan.serving under load on the real server: a bounded load (16 clients) with zero errors;
backpressure (503 + Retry-After) at --max-concurrency; SIGTERM under load answers every
request the server received and exits 0. The 2,000-request run is bench/serving_load.py."""
from __future__ import annotations

import re
import threading
import time

import numpy as np
import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("prometheus_client")

from tests.serving.server_util import Server, reference, save_mlp  # noqa: E402


@pytest.fixture(scope="module")
def mlp_path(tmp_path_factory):
    return save_mlp(tmp_path_factory.mktemp("serving_load"))


def hammer(url: str, clients: int, total: int | None, stop: threading.Event | None = None):
    """`clients` threads posting single rows until `total` requests are sent (or `stop`);
    returns [(status or exception name, x, body, monotonic time of the answer)]."""
    results, lock, count = [], threading.Lock(), [0]

    def client(k: int) -> None:
        rng = np.random.RandomState(k)
        with httpx.Client(timeout=60) as c:
            while stop is None or not stop.is_set():
                with lock:
                    if total is not None and count[0] >= total:
                        return
                    count[0] += 1
                x = rng.randn(1, 4).astype("float32")
                try:
                    r = c.post(url, json={"inputs": {"x": x.tolist()}})
                    item = (r.status_code, x, r.json(), time.monotonic())
                except httpx.TransportError as e:
                    item = (type(e).__name__, x, None, time.monotonic())
                with lock:
                    results.append(item)
                if stop is not None and item[1] is not None and item[0] != 200:
                    return

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    return threads, results


def test_bounded_load_zero_errors(mlp_path):
    with Server(mlp_path, "--workers", "2") as server:
        threads, results = hammer(server.url + "/v1/models/mlp:predict", 16, 300)
        for t in threads:
            t.join(300)
        assert not any(t.is_alive() for t in threads)
        assert len(results) == 300
        assert [s for s, _, _, _ in results if s != 200] == []
        xs = np.concatenate([x for _, x, _, _ in results])
        want, = reference(mlp_path, xs)
        got = np.array([list(b["outputs"].values())[0][0] for _, _, b, _ in results], "float32")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_backpressure_503_with_retry_after(mlp_path):
    # batches wait 1.5 s to fill: two requests hold both slots, the third is refused at once
    with Server(mlp_path, "--max-concurrency", "2", "--batch-timeout-ms", "1500") as server:
        url = server.url + "/v1/models/mlp:predict"
        held = []
        threads = [threading.Thread(target=lambda: held.append(
            httpx.post(url, json={"inputs": {"x": [[0] * 4]}}, timeout=60)))
            for _ in range(2)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text = httpx.get(server.url + "/metrics").text
            if re.search(r"^sampan_serving_in_flight_requests 2\.0$", text, re.M):
                break
            time.sleep(0.02)
        t0 = time.monotonic()
        r = httpx.post(url, json={"inputs": {"x": [[0] * 4]}})
        assert r.status_code == 503 and time.monotonic() - t0 < 1.0
        assert r.headers["retry-after"] == "1"
        assert r.json()["error"]["code"] == "overloaded"
        assert "--max-concurrency" in r.json()["error"]["message"]
        for t in threads:
            t.join(60)
        assert [h.status_code for h in held] == [200, 200]
        assert 'sampan_serving_errors_total{code="503"} 1.0' in httpx.get(
            server.url + "/metrics").text


def test_sigterm_under_load_loses_no_accepted_request(mlp_path):
    # batches wait up to 100 ms: at SIGTERM, requests are waiting in the batcher
    with Server(mlp_path, "--batch-timeout-ms", "100") as server:
        stop = threading.Event()
        threads, results = hammer(server.url + "/v1/models/mlp:predict", 8, None, stop)
        deadline = time.monotonic() + 60
        while len(results) < 48 and time.monotonic() < deadline:
            time.sleep(0.01)
        t_term = time.monotonic()
        rc = server.terminate()
        stop.set()
        for t in threads:
            t.join(60)
        log = server.log()
        assert rc == 0, log
        found = re.search(r"answered (\d+) of (\d+) requests received", log)
        assert found, log
        answered, received = map(int, found.groups())
        statuses = [s for s, _, _, _ in results]
        ok = statuses.count(200)
        # every failure is a connection the server never read a request from
        assert all(s == 200 or s in ("ConnectError", "RemoteProtocolError", "ReadError")
                   for s in statuses), sorted(set(map(str, statuses)))
        assert ok >= 48
        drained = [s for s, _, _, t in results if s == 200 and t > t_term]
        assert drained, "no request was in flight at SIGTERM"
        health = 1   # the helper's startup /health request
        assert answered == received == ok + health, (answered, received, ok, statuses[-20:])
