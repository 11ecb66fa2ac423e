"""paddle.inference Predictor over sampan's saved models: jit.save (MLP, CNN with BN, LSTM),
static.save_inference_model, Model.save(training=False); run() through handles and with a
list; inference passes at load; clones across threads."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.inference import Config, create_predictor
from tests.static_util import static_guard

InputSpec = paddle.static.InputSpec


class _CNN(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(3, 4, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(4)
        self.fc = paddle.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        y = paddle.nn.functional.relu(self.bn(self.conv(x)))
        return self.fc(paddle.flatten(y, 1))


class _LSTM(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.rnn = paddle.nn.LSTM(4, 8, num_layers=2)
        self.head = paddle.nn.Linear(8, 3)

    def forward(self, x):
        out, (h, c) = self.rnn(x)
        return self.head(out[:, -1]), h


def _trained_bn_cnn():
    paddle.seed(1)
    net = _CNN()
    # non-trivial running statistics, so that conv+bn folding has something to fold
    net.bn._mean.set_value(np.linspace(-0.5, 0.5, 4).astype("float32"))
    net.bn._variance.set_value(np.linspace(0.5, 2.0, 4).astype("float32"))
    net.eval()
    return net


def _save(net, tmp_path, specs, name="model"):
    prefix = str(tmp_path / name)
    paddle.jit.save(net, prefix, input_spec=specs)
    return prefix


def _run_handles(predictor, arrays):
    for name, arr in zip(predictor.get_input_names(), arrays):
        handle = predictor.get_input_handle(name)
        handle.reshape(list(arr.shape))
        handle.copy_from_cpu(arr)
    assert predictor.run() is None
    return [predictor.get_output_handle(n).copy_to_cpu() for n in predictor.get_output_names()]


def test_mlp_jit_save_matches_layer(tmp_path):
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(6, 16), paddle.nn.ReLU(),
                               paddle.nn.Linear(16, 3), paddle.nn.Sigmoid())
    net.eval()
    prefix = _save(net, tmp_path, [InputSpec([None, 6], "float32", "x")])
    predictor = create_predictor(Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    assert predictor.get_input_names() == ["x"]
    assert len(predictor.get_output_names()) == 1
    x = np.random.default_rng(0).standard_normal((5, 6)).astype("float32")
    want = net(paddle.to_tensor(x)).numpy()
    got, = _run_handles(predictor, [x])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    out = predictor.get_output_handle(predictor.get_output_names()[0])
    assert out.shape() == [5, 3] and out.type() == paddle.inference.DataType.FLOAT32
    assert out.lod() == []
    # run(list) returns sampan Tensors; a batch of another size works (dim -1)
    x2 = x[:2]
    res = predictor.run([paddle.to_tensor(x2)])
    assert isinstance(res[0], paddle.Tensor)
    np.testing.assert_allclose(res[0].numpy(), want[:2], rtol=1e-6, atol=1e-6)


def test_cnn_with_bn_is_folded_and_matches(tmp_path):
    net = _trained_bn_cnn()
    prefix = _save(net, tmp_path, [InputSpec([None, 3, 6, 6], "float32", "x")])
    x = np.random.default_rng(1).standard_normal((3, 3, 6, 6)).astype("float32")
    want = net(paddle.to_tensor(x)).numpy()
    predictor = create_predictor(Config(prefix))
    types = [op.type for op in predictor._model.program.global_block().ops]
    assert "batch_norm" not in types and "conv2d" in types  # folded at load
    got, = _run_handles(predictor, [x])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # the folded batch_norm's parameters are not kept in memory
    assert not any("batch_norm" in n for n in predictor._model.params)

    off = Config(prefix)
    off.switch_ir_optim(False)
    p_off = create_predictor(off)
    assert "batch_norm" in [op.type for op in p_off._model.program.global_block().ops]
    np.testing.assert_allclose(_run_handles(p_off, [x])[0], want, rtol=1e-5, atol=1e-5)

    deleted = Config(prefix)
    deleted.delete_pass("conv_bn_fuse_pass")  # Paddle's name of the pass
    assert "fuse_conv_bn" not in deleted.pass_builder().all_passes()
    p_del = create_predictor(deleted)
    assert "batch_norm" in [op.type for op in p_del._model.program.global_block().ops]
    np.testing.assert_allclose(p_del.run([x])[0].numpy(), want, rtol=1e-5, atol=1e-5)


def test_unfolded_batch_norm_does_not_change_shared_statistics(tmp_path):
    # BatchNorm1D after a Linear is not folded: its op writes the (unchanged) statistics
    # back each run; the shared, read-only parameters must stay intact across runs/clones
    paddle.seed(2)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 6), paddle.nn.BatchNorm1D(6))
    net[1]._mean.set_value(np.full([6], 0.3, "float32"))
    net.eval()
    prefix = _save(net, tmp_path, [InputSpec([None, 4], "float32", "x")])
    x = np.random.default_rng(2).standard_normal((4, 4)).astype("float32")
    want = net(paddle.to_tensor(x)).numpy()
    predictor = create_predictor(Config(prefix))
    before = {k: v.copy() for k, v in predictor._model.params.items()}
    for _ in range(3):
        np.testing.assert_allclose(predictor.run([x])[0].numpy(), want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(predictor.clone().run([x])[0].numpy(), want, rtol=1e-5,
                                   atol=1e-5)
    for k, v in predictor._model.params.items():
        np.testing.assert_array_equal(v, before[k])


def test_lstm_two_outputs(tmp_path):
    paddle.seed(3)
    net = _LSTM()
    net.eval()
    prefix = _save(net, tmp_path, [InputSpec([None, 7, 4], "float32", "x")])
    x = np.random.default_rng(3).standard_normal((2, 7, 4)).astype("float32")
    want = [t.numpy() for t in net(paddle.to_tensor(x))]
    predictor = create_predictor(Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    assert len(predictor.get_output_names()) == 2
    got = _run_handles(predictor, [x])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_save_inference_model_output(tmp_path):
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        x = static.data("x", [-1, 4], "float32")
        ids = static.data("ids", [-1], "int64")
        h = static.nn.fc(x, 8, activation="tanh")
        out = h * paddle.cast(ids, "float32").unsqueeze(1)
    exe = static.Executor()
    scope = static.Scope()
    rng = np.random.default_rng(4)
    feed = {"x": rng.standard_normal((3, 4)).astype("float32"),
            "ids": np.array([1, 2, 3], "int64")}
    with static.scope_guard(scope):
        exe.run(startup)
        want = exe.run(main, feed=feed, fetch_list=[out])[0]
        static.save_inference_model(str(tmp_path / "m" / "net"), [x, ids], [out], exe,
                                    program=main)
    predictor = create_predictor(Config(str(tmp_path / "m")))  # a directory with one model
    assert predictor.get_input_names() == ["x", "ids"]
    assert predictor.get_input_handle("ids").type() == paddle.inference.DataType.INT64
    got, = _run_handles(predictor, [feed["x"], feed["ids"]])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_hapi_model_save_for_inference(tmp_path):
    paddle.seed(5)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 2))
    model = paddle.Model(net, inputs=[InputSpec([None, 4], "float32", "x")])
    model.prepare()
    model.save(str(tmp_path / "hapi" / "inference"), training=False)
    config = Config(str(tmp_path / "hapi"), "inference")  # Paddle 3.x (model_dir, prefix)
    predictor = create_predictor(config)
    x = np.random.default_rng(5).standard_normal((3, 4)).astype("float32")
    net.eval()
    np.testing.assert_allclose(predictor.run([x])[0].numpy(), net(paddle.to_tensor(x)).numpy(),
                               rtol=1e-6, atol=1e-6)


def test_clones_run_concurrently_in_threads(tmp_path):
    net = _trained_bn_cnn()
    prefix = _save(net, tmp_path, [InputSpec([None, 3, 6, 6], "float32", "x")])
    main = create_predictor(Config(prefix))
    rng = np.random.default_rng(6)
    inputs = [rng.standard_normal((k + 1, 3, 6, 6)).astype("float32") for k in range(4)]
    wants = [net(paddle.to_tensor(x)).numpy() for x in inputs]
    clones = [main.clone() for _ in inputs]
    assert all(c._model is main._model for c in clones)  # weights shared, not copied
    errors, barrier = [], threading.Barrier(len(inputs))

    def work(k):
        try:
            barrier.wait()
            for _ in range(15):
                got, = _run_handles(clones[k], [inputs[k]])
                np.testing.assert_allclose(got, wants[k], rtol=1e-5, atol=1e-5)
        except Exception as e:  # reported in the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.parametrize("model", ["cnn", "lstm"])
def test_onnxruntime_route_matches_layer(tmp_path, model):
    pytest.importorskip("onnxruntime", reason="the onnxruntime route needs onnxruntime")
    pytest.importorskip("onnx", reason="the onnxruntime route needs onnx")
    paddle.seed(8)
    net = _trained_bn_cnn() if model == "cnn" else _LSTM()
    net.eval()
    shape = [2, 3, 6, 6] if model == "cnn" else [2, 7, 4]
    prefix = _save(net, tmp_path, [InputSpec(shape, "float32", "x")])
    x = np.random.default_rng(8).standard_normal(shape).astype("float32")
    outs = net(paddle.to_tensor(x))
    want = [outs.numpy()] if model == "cnn" else [t.numpy() for t in outs]
    config = Config(prefix)
    config.enable_onnxruntime()
    predictor = create_predictor(config)
    assert predictor._model.session is not None
    for g, w in zip(_run_handles(predictor.clone(), [x]), want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_predictor_pool_and_predictor_from_other_thread_mode(tmp_path):
    paddle.seed(7)
    net = paddle.nn.Linear(3, 2)
    prefix = _save(net, tmp_path, [InputSpec([None, 3], "float32", "x")])
    pool = paddle.inference.PredictorPool(Config(prefix), 3)
    x = np.ones([2, 3], "float32")
    want = net(paddle.to_tensor(x)).numpy()
    for i in range(3):
        np.testing.assert_allclose(pool.retrive(i).run([x])[0].numpy(), want, rtol=1e-6)
    with pytest.raises(IndexError, match="idx must be in"):
        pool.retrive(3)
    # a predictor runs the same while this thread is in static mode
    with static_guard(static.Program()):
        got = pool.retrive(0).run([x])[0].numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
