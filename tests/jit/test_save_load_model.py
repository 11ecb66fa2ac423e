"""paddle.Model(..., inputs=InputSpec) + Model.save(path, training=False): an inference model
written through paddle.jit.save, loadable with paddle.jit.load and static.load_inference_model."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec


def _net():
    paddle.seed(0)
    return paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.BatchNorm1D(8),
                                paddle.nn.ReLU(), paddle.nn.Dropout(0.5),
                                paddle.nn.Linear(8, 3))


def _data():
    rng = np.random.RandomState(0)
    x = rng.randn(16, 4).astype("float32")
    y = rng.randint(0, 3, (16, 1)).astype("int64")
    return paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])


def _fit(model):
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss())
    model.fit(_data(), batch_size=8, epochs=1, verbose=0)


def _check(model, path):
    x = paddle.to_tensor(np.random.RandomState(1).randn(5, 4).astype("float32"))
    model.network.eval()
    ref = model.network(x).numpy()
    loaded = paddle.jit.load(path).eval()
    np.testing.assert_allclose(loaded(x).numpy(), ref, rtol=1e-5, atol=1e-6)
    exe = paddle.static.Executor()
    program, feeds, fetches = paddle.static.load_inference_model(path, exe)
    out = exe.run(program, feed={feeds[0]: x.numpy()}, fetch_list=fetches)[0]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    return feeds


def test_model_save_inference_with_input_spec(tmp_path):
    model = paddle.Model(_net(), inputs=[InputSpec([None, 4], "float32", "image")])
    _fit(model)
    model.save(str(tmp_path / "infer"), training=False)
    assert _check(model, str(tmp_path / "infer")) == ["image"]


def test_model_save_inference_from_seen_inputs(tmp_path):
    model = paddle.Model(_net())
    with pytest.raises(RuntimeError, match="input shapes are unknown"):  # as Paddle
        model.save(str(tmp_path / "early"), training=False)
    _fit(model)
    model.save(str(tmp_path / "infer"), training=False)
    _check(model, str(tmp_path / "infer"))
