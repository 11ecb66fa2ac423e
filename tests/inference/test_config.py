"""paddle.inference Config options, PassBuilder, enums (Paddle 3.3.1 values), get_version,
the ONNX-runtime switch and the load_program format hook."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import sampan as paddle
from sampan import inference
from sampan.inference import Config, create_predictor, loader

InputSpec = paddle.static.InputSpec


@pytest.fixture
def saved(tmp_path):
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.Tanh())
    prefix = str(tmp_path / "inference")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    x = np.random.default_rng(0).standard_normal((2, 4)).astype("float32")
    return prefix, x, net(paddle.to_tensor(x)).numpy()


def test_enums_match_paddle():
    # values read from PaddlePaddle 3.3.1
    assert {m.name: int(m) for m in inference.PrecisionType} == \
        {"Float32": 0, "Int8": 1, "Half": 2, "Bfloat16": 3}
    assert {m.name: int(m) for m in inference.PlaceType} == \
        {"UNK": -1, "CPU": 0, "GPU": 1, "XPU": 2, "CUSTOM": 4}
    assert {m.name: int(m) for m in inference.DataType} == \
        {"FLOAT32": 0, "INT64": 1, "INT32": 2, "UINT8": 3, "INT8": 4, "FLOAT16": 5,
         "BOOL": 6, "FLOAT64": 7, "BFLOAT16": 8}
    assert inference.get_num_bytes_of_data_type(inference.DataType.FLOAT64) == 8
    assert inference.get_num_bytes_of_data_type(inference.DataType.BOOL) == 1
    with pytest.raises(TypeError, match="must be a paddle.inference.DataType"):
        inference.get_num_bytes_of_data_type("float32")
    assert inference.get_version().startswith(f"version: {paddle.__version__}\n")


def test_model_locations(saved, tmp_path):
    prefix, x, want = saved
    folder = str(tmp_path)
    for config in (Config(prefix + ".pdmodel", prefix + ".pdiparams"), Config(prefix),
                   Config(folder), Config(folder, "inference")):
        assert config.prog_file() == prefix + ".pdmodel"
        assert config.params_file() == prefix + ".pdiparams"
        np.testing.assert_allclose(create_predictor(config).run([x])[0].numpy(), want,
                                   rtol=1e-6)
    late = Config()
    assert late.prog_file() == "" and late.model_dir() == ""
    late.set_model(prefix + ".pdmodel", prefix + ".pdiparams")
    copy = Config(late)
    np.testing.assert_allclose(create_predictor(copy).run([x])[0].numpy(), want, rtol=1e-6)
    # inference.* is preferred in a directory; other names must be unambiguous
    for name in ("a", "b"):
        paddle.jit.save(paddle.nn.Linear(4, 1), str(tmp_path / "two" / name),
                        input_spec=[InputSpec([None, 4], "float32", "x")])
    with pytest.raises(ValueError, match="holds several model files.*a.pdmodel"):
        create_predictor(Config(str(tmp_path / "two")))
    assert Config(folder).prog_file() == prefix + ".pdmodel"
    with pytest.raises(TypeError, match="expected \\(\\), \\(model_file, params_file\\)"):
        Config("a", "b", "c")
    with pytest.raises(TypeError, match="create_predictor: config must be"):
        create_predictor(prefix)


def test_options_and_summary(saved):
    prefix, x, want = saved
    config = Config(prefix)
    assert config.ir_optim() and not config.use_gpu()
    with pytest.warns(UserWarning, match="enable_use_gpu: this sampan build has no GPU"):
        config.enable_use_gpu(100, 0)
    assert not config.use_gpu()
    config.disable_gpu()
    config.set_cpu_math_library_num_threads(4)
    assert config.cpu_math_library_num_threads() == 4
    with pytest.raises(ValueError, match="cpu_math_library_num_threads must be an int >= 1"):
        config.set_cpu_math_library_num_threads(0)
    config.switch_ir_optim(False)
    config.enable_memory_optim()
    config.disable_glog_info()
    text = config.summary()
    assert "| ir_optim " in text and "| false" in text and "| cpu_math_thread | 4" in text
    assert "| passes          | inplace" in text and prefix + ".pdmodel" in text
    predictor = create_predictor(config)
    np.testing.assert_allclose(predictor.run([x])[0].numpy(), want, rtol=1e-6)


def test_pass_builder(saved):
    prefix, x, want = saved
    config = Config(prefix)
    builder = config.pass_builder()
    assert builder.all_passes() == list(inference.config.INFERENCE_PASSES)
    builder.delete_pass("fc_fuse_pass")          # Paddle's name
    builder.delete_pass("no_such_pass")          # ignored, as in Paddle
    assert "fuse_linear" not in builder.all_passes()
    builder.append_pass("common_subexpression_elimination")
    with pytest.raises(ValueError, match="no pass named 'bogus_pass'"):
        builder.append_pass("bogus_pass")
    builder.set_passes(["fuse_elementwise"])
    assert builder.all_passes() == ["fuse_elementwise"]
    predictor = create_predictor(config)
    types = [op.type for op in predictor._model.program.global_block().ops]
    assert "fused_linear" not in types
    np.testing.assert_allclose(predictor.run([x])[0].numpy(), want, rtol=1e-6)
    default = create_predictor(Config(prefix))   # linear + tanh become one fused_linear
    assert [op.type for op in default._model.program.global_block().ops] == ["fused_linear"]
    np.testing.assert_allclose(default.run([x])[0].numpy(), want, rtol=1e-6)


def test_onnxruntime_switch(saved, monkeypatch):
    prefix, x, want = saved
    config = Config(prefix)
    config.enable_onnxruntime()
    assert config.onnxruntime_enabled()
    assert "| use_onnxruntime | true" in config.summary()
    config.disable_onnxruntime()
    assert not config.onnxruntime_enabled()
    config.enable_onnxruntime()
    try:
        import onnxruntime  # noqa: F401
        export = importlib.import_module("sampan.onnx.export")  # the module, not the function
    except ImportError:
        with pytest.warns(UserWarning, match="ONNX route is not available.*Executor"):
            predictor = create_predictor(config)
        assert predictor._model.session is None
        np.testing.assert_allclose(predictor.run([x])[0].numpy(), want, rtol=1e-6)
        return
    predictor = create_predictor(config)
    assert predictor._model.session is not None
    np.testing.assert_allclose(predictor.run([x])[0].numpy(), want, rtol=1e-5, atol=1e-6)

    def refuse(*args, **kwargs):
        raise export.ExportError("paddle.onnx.export: no lowering for 'tanh'", [])
    monkeypatch.setattr(export, "program_to_onnx", refuse)
    with pytest.warns(UserWarning, match="cannot be exported to ONNX.*Executor.*no lowering"):
        fallback = create_predictor(config)
    assert fallback._model.session is None
    np.testing.assert_allclose(fallback.run([x])[0].numpy(), want, rtol=1e-6)


def test_registered_format_reader(saved, tmp_path, monkeypatch):
    prefix, x, want = saved
    calls = []

    def detect(model_file, head):
        return head.startswith(b"FAKE")

    def load(model_file, params_file):
        calls.append((model_file, params_file))
        program, feeds, fetch, params = loader.load_program(prefix + ".pdmodel",
                                                           prefix + ".pdiparams")
        return program, feeds, [v.name for v in fetch], params   # names are accepted too

    monkeypatch.setattr(loader, "_FORMATS", dict(loader._FORMATS))
    loader.register_format("fake", detect, load)
    fake = tmp_path / "fake.pdmodel"
    fake.write_bytes(b"FAKE model")
    predictor = create_predictor(Config(str(fake), str(tmp_path / "fake.pdiparams")))
    assert calls == [(str(fake), str(tmp_path / "fake.pdiparams"))]
    np.testing.assert_allclose(predictor.run([x])[0].numpy(), want, rtol=1e-6)
    with pytest.raises(TypeError, match="detect and load must be callables"):
        loader.register_format("bad", None, load)
