"""sampan.serving against the real server on loopback: health, metadata, predictions equal
the Predictor's (JSON and npy), 16 concurrent clients get their own rows, metrics."""
from __future__ import annotations

import io
import threading

import numpy as np
import pytest

import sampan as paddle

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("prometheus_client")

from tests.serving.server_util import Server, reference, save_mlp, save_two_inputs  # noqa: E402

NPY = "application/x-npy"


@pytest.fixture(scope="module")
def mlp(tmp_path_factory):
    path = save_mlp(tmp_path_factory.mktemp("serving_mlp"))
    with Server(path, "--batch-timeout-ms", "20", "--max-batch-size", "64") as server:
        yield path, server


def npy_bytes(arr) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def metric(text: str, name: str, labels: dict | None = None) -> float:
    from prometheus_client.parser import text_string_to_metric_families
    total = 0.0
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in (labels or {}).items()):
                total += s.value
    return total


def test_health_and_metadata(mlp):
    path, server = mlp
    r = httpx.get(server.url + "/health")
    assert r.status_code == 200 and r.json()["model"] == "mlp"
    meta = httpx.get(server.url + "/v1/models/mlp").json()
    assert meta["inputs"] == [{"name": "x", "shape": [-1, 4], "dtype": "float32"}]
    assert [(o["shape"], o["dtype"]) for o in meta["outputs"]] == [([-1, 3], "float32")]


def test_json_prediction_equals_predictor(mlp):
    path, server = mlp
    x = np.random.RandomState(0).randn(5, 4).astype("float32")
    r = httpx.post(server.url + "/v1/models/mlp:predict", json={"inputs": {"x": x.tolist()}})
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    (name, got), = r.json()["outputs"].items()
    want, = reference(path, x)
    np.testing.assert_array_equal(np.asarray(got, dtype="float32"), want)


def test_npy_body_and_answer(mlp):
    path, server = mlp
    x = np.random.RandomState(1).randn(3, 4).astype("float32")
    want, = reference(path, x)
    url = server.url + "/v1/models/mlp:predict"
    r = httpx.post(url, content=npy_bytes(x), headers={"Content-Type": NPY, "Accept": NPY})
    assert r.status_code == 200 and r.headers["content-type"] == NPY
    got = np.load(io.BytesIO(r.content), allow_pickle=False)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    # npy in, JSON out (no Accept); float64 npy is cast to the input's float32
    r = httpx.post(url, content=npy_bytes(x.astype("float64")), headers={"Content-Type": NPY})
    np.testing.assert_array_equal(np.asarray(list(r.json()["outputs"].values())[0],
                                             dtype="float32"), want)


def test_16_concurrent_clients_get_their_own_rows(mlp):
    path, server = mlp
    rng = np.random.RandomState(2)
    xs = [rng.randn(1 + i % 3, 4).astype("float32") for i in range(16 * 4)]
    wants = [reference(path, x)[0] for x in xs]
    before = metric(httpx.get(server.url + "/metrics").text, "sampan_serving_batch_size_count")
    got = [None] * len(xs)
    start = threading.Barrier(16)

    def client(k: int) -> None:
        with httpx.Client(base_url=server.url, timeout=60) as c:
            start.wait()
            for i in range(k, len(xs), 16):
                r = c.post("/v1/models/mlp:predict", json={"inputs": {"x": xs[i].tolist()}})
                got[i] = (r.status_code, r.json())

    threads = [threading.Thread(target=client, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for (status, body), want in zip(got, wants):
        assert status == 200, body
        out = np.asarray(list(body["outputs"].values())[0], dtype="float32")
        assert out.shape == want.shape
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    text = httpx.get(server.url + "/metrics").text
    batches = metric(text, "sampan_serving_batch_size_count") - before
    assert 0 < batches < len(xs), "concurrent requests were never merged into one run"


def test_metrics_prometheus_text(mlp):
    path, server = mlp
    url = server.url + "/v1/models/mlp:predict"
    before = httpx.get(server.url + "/metrics").text
    httpx.post(url, json={"inputs": {"x": [[1, 2, 3, 4]]}})
    httpx.post(url, json={"inputs": {"y": [[1, 2, 3, 4]]}})
    text = httpx.get(server.url + "/metrics").text
    assert text.count("# TYPE sampan_serving_request_duration_seconds histogram") == 1
    assert "# TYPE sampan_serving_batch_size histogram" in text

    def grew(name, labels):
        return metric(text, name, labels) - metric(before, name, labels)
    assert grew("sampan_serving_requests_total", {"endpoint": "predict", "code": "200"}) == 1
    assert grew("sampan_serving_requests_total", {"endpoint": "predict", "code": "400"}) == 1
    assert grew("sampan_serving_errors_total", {"code": "400"}) == 1
    assert grew("sampan_serving_batch_size_count", {}) == 1
    assert grew("sampan_serving_request_duration_seconds_count", {"endpoint": "predict"}) == 2


def test_two_inputs_two_outputs(tmp_path):
    path = save_two_inputs(tmp_path)
    ids = np.array([[1, 2, 3], [9, 0, 0]], dtype="int64")
    x = np.random.RandomState(4).randn(2, 4).astype("float32")
    wants = reference(path, ids, x)
    with Server(path) as server:
        meta = httpx.get(server.url + "/v1/models/two").json()
        assert [i["dtype"] for i in meta["inputs"]] == ["int64", "float32"]
        url = server.url + "/v1/models/two:predict"
        r = httpx.post(url, json={"inputs": {"ids": ids.tolist(), "x": x.tolist()}})
        outs = list(r.json()["outputs"].values())
        assert len(outs) == 2
        for got, want in zip(outs, wants):
            np.testing.assert_array_equal(np.asarray(got, dtype=want.dtype), want)
        r = httpx.post(url, json={"inputs": {"ids": ids.tolist(), "x": x.tolist()}},
                       headers={"Accept": NPY})
        assert r.status_code == 406 and "2 outputs" in r.json()["error"]["message"]
        r = httpx.post(url, content=npy_bytes(x), headers={"Content-Type": NPY})
        assert r.status_code == 400 and r.json()["error"]["code"] == "npy_needs_one_input"
        r = httpx.post(url, json={"inputs": {"ids": [[1, 2, 99]], "x": x[:1].tolist()}})
        assert r.status_code == 500 and r.json()["error"]["code"] == "model_run_failed"
        assert httpx.get(server.url + "/health").status_code == 200


def test_onnx_file_through_onnxruntime(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    paddle.seed(5)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 6), paddle.nn.Tanh())
    paddle.onnx.export(net, str(tmp_path / "tiny"),
                       input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
    onnx_path = str(tmp_path / "tiny.onnx")
    x = np.random.RandomState(6).randn(3, 4).astype("float32")
    session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    want, = session.run(None, {"x": x})
    with Server(onnx_path) as server:
        assert httpx.get(server.url + "/health").json()["model"] == "tiny"
        meta = httpx.get(server.url + "/v1/models/tiny").json()
        assert meta["inputs"] == [{"name": "x", "shape": [-1, 4], "dtype": "float32"}]
        r = httpx.post(server.url + "/v1/models/tiny:predict", content=npy_bytes(x),
                       headers={"Content-Type": NPY, "Accept": NPY})
        np.testing.assert_array_equal(np.load(io.BytesIO(r.content)), want)


def test_save_inference_model_and_hapi_outputs(tmp_path):
    from sampan import static
    from tests.static_util import static_guard
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        x = static.data("x", [-1, 4], "float32")
        out = static.nn.fc(x, 3, activation="tanh")
    exe, scope = static.Executor(), static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        static.save_inference_model(str(tmp_path / "static_net"), [x], [out], exe,
                                    program=main)
    paddle.seed(8)
    model = paddle.Model(paddle.nn.Sequential(paddle.nn.Linear(4, 2)),
                         inputs=[paddle.static.InputSpec([None, 4], "float32", "x")])
    model.prepare()
    model.save(str(tmp_path / "hapi_net"), training=False)
    feed = np.random.RandomState(9).randn(2, 4).astype("float32")
    for name in ("static_net", "hapi_net"):
        path = str(tmp_path / name)
        want, = reference(path, feed)
        with Server(path) as server:
            r = httpx.post(f"{server.url}/v1/models/{name}:predict",
                           json={"inputs": {"x": feed.tolist()}})
            assert r.status_code == 200, r.text
            got, = r.json()["outputs"].values()
            np.testing.assert_array_equal(np.asarray(got, "float32"), want)


class BatchSum(paddle.nn.Layer):
    """Its output mixes the rows (a sum over the batch): requests must never be merged."""

    def forward(self, x):
        return x.sum(axis=0, keepdim=True) * 2.0


def test_model_mixing_rows_is_never_batched(tmp_path):
    prefix = str(tmp_path / "batchsum")
    paddle.jit.save(BatchSum(), prefix,
                    input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
    xs = [np.full((2, 4), k, "float32") for k in range(8)]
    with Server(prefix, "--batch-timeout-ms", "50") as server:
        assert httpx.get(server.url + "/health").json()["batching"] is False
        got = [None] * len(xs)

        def post(k):
            got[k] = httpx.post(server.url + "/v1/models/batchsum:predict",
                                json={"inputs": {"x": xs[k].tolist()}}, timeout=60).json()
        threads = [threading.Thread(target=post, args=(k,)) for k in range(len(xs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        for k, body in enumerate(got):
            assert list(body["outputs"].values())[0] == [[4.0 * k] * 4]
