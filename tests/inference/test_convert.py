"""paddle.inference.convert_to_mixed_precision over sampan's and Paddle's model files: params
stored in float16/bfloat16 except black-listed ops', casts at the precision borders, a
Predictor runs the result and matches float32 (Paddle 3.3.1's recorded outputs for Paddle's
files) within 16-bit tolerance; keep_io_types; errors; the TensorRT version queries."""
import os
import re

import numpy as np
import pytest

import sampan as paddle
from sampan.inference import (Config, PlaceType, PrecisionType, convert_to_mixed_precision,
                              create_predictor, get_trt_compile_version,
                              get_trt_runtime_version)
from sampan.inference.loader import load_program

FIX = os.path.join(os.path.dirname(__file__), "fixtures")


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(3, 8, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(8)
        self.fc = paddle.nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        y = paddle.nn.functional.relu(self.bn(self.conv(x)))
        return paddle.nn.functional.softmax(self.fc(y.flatten(1)))


@pytest.fixture
def saved(tmp_path):
    paddle.seed(0)
    net = Net()
    net.eval()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix,
                    input_spec=[paddle.static.InputSpec([None, 3, 8, 8], "float32", "x")])
    return prefix


def _predict(model, params, x):
    p = create_predictor(Config(model, params))
    p.get_input_handle(p.get_input_names()[0]).copy_from_cpu(x)
    p.run()
    return p, p.get_output_handle(p.get_output_names()[0]).copy_to_cpu()


def _param(params: dict, layer: str, kind: str = "w_0"):
    """The value of the `kind` parameter of the first layer named `layer` (conv2d_3, ...)."""
    return next(v for k, v in params.items() if re.fullmatch(rf"{layer}_\d+\.{kind}", k))


def _rel_err(out, ref) -> float:
    return float(np.abs(out.astype("float64") - ref).max() / np.abs(ref).max())


def _x():
    return np.random.RandomState(0).rand(2, 3, 8, 8).astype("float32")


def test_half_model_of_a_sampan_model(saved, tmp_path):
    out_model, out_params = str(tmp_path / "h" / "h.pdmodel"), str(tmp_path / "h" / "h.pdiparams")
    convert_to_mixed_precision(saved + ".pdmodel", saved + ".pdiparams", out_model, out_params,
                               PrecisionType.Half, PlaceType.GPU)
    program, feeds, fetches, params = load_program(out_model, out_params)
    assert _param(params, "conv2d").dtype == np.float16
    assert _param(params, "linear").dtype == np.float16
    assert _param(params, "batch_norm2d").dtype == np.float32  # normalization stays float32
    text = str(program)
    assert "cast(" in text and "float16" in text
    assert program.global_block().var(feeds[0]).dtype == paddle.float32  # keep_io_types
    p0, ref = _predict(saved + ".pdmodel", saved + ".pdiparams", _x())
    p1, out = _predict(out_model, out_params, _x())
    assert p1.get_output_names() == p0.get_output_names()
    assert out.dtype == np.float32 and out.shape == ref.shape
    assert _rel_err(out, ref) < 5e-3


def test_black_list_keeps_an_op_in_float32(saved, tmp_path):
    out_model, out_params = str(tmp_path / "b.pdmodel"), str(tmp_path / "b.pdiparams")
    convert_to_mixed_precision(saved + ".pdmodel", saved + ".pdiparams", out_model, out_params,
                               PrecisionType.Half, PlaceType.GPU, black_list={"conv2d"})
    program, _, _, params = load_program(out_model, out_params)
    assert _param(params, "conv2d").dtype == np.float32
    assert _param(params, "linear").dtype == np.float16
    conv = next(op for op in program.global_block().ops if op.type == "conv2d")
    assert program.global_block().var(conv.output_arg_names[0]).dtype == paddle.float32
    _, ref = _predict(saved + ".pdmodel", saved + ".pdiparams", _x())
    _, out = _predict(out_model, out_params, _x())
    assert _rel_err(out, ref) < 5e-3


def test_low_precision_io_and_bfloat16(saved, tmp_path):
    out_model, out_params = str(tmp_path / "io.pdmodel"), str(tmp_path / "io.pdiparams")
    convert_to_mixed_precision(saved + ".pdmodel", saved + ".pdiparams", out_model, out_params,
                               PrecisionType.Bfloat16, PlaceType.CPU, keep_io_types=False,
                               white_list={"softmax"})
    program, feeds, fetches, params = load_program(out_model, out_params)
    assert _param(params, "linear").dtype.name == "bfloat16"  # bfloat16 survives the file
    assert program.global_block().var(feeds[0]).dtype == paddle.bfloat16
    assert fetches[0].dtype == paddle.bfloat16  # softmax white-listed: low-precision output
    _, ref = _predict(saved + ".pdmodel", saved + ".pdiparams", _x())
    bf16 = paddle.to_tensor(_x()).astype("bfloat16").numpy()
    _, out = _predict(out_model, out_params, bf16)
    assert out.dtype.name == "bfloat16" and _rel_err(out, ref) < 5e-2


@pytest.mark.parametrize("fmt,ext", [("legacy", ".pdmodel"), ("pir", ".json")])
@pytest.mark.parametrize("name,tol", [("lenet", 5e-3), ("tiny_resnet18", 2e-2),
                                      ("mobilenet_v2_x0_25", 3e-2)])
def test_paddle_files_match_paddle_outputs(tmp_path, fmt, ext, name, tol):
    model = os.path.join(FIX, fmt, name + ext)
    params = os.path.join(FIX, fmt, name + ".pdiparams")
    if not os.path.exists(params):  # shared with the legacy file (make_fixtures._dedupe)
        params = os.path.join(FIX, "legacy", name + ".pdiparams")
    x = np.load(os.path.join(FIX, name + ".input.npy"))
    ref = np.load(os.path.join(FIX, fmt, name + ".output0.npy"))  # Paddle 3.3.1, float32
    out_model, out_params = str(tmp_path / "h.pdmodel"), str(tmp_path / "h.pdiparams")
    convert_to_mixed_precision(model, params, out_model, out_params, PrecisionType.Half,
                               PlaceType.GPU)
    _, _, _, values = load_program(out_model, out_params)
    assert any(v.dtype == np.float16 for v in values.values())
    _, out = _predict(out_model, out_params, x)
    assert out.dtype == np.float32 and out.shape == ref.shape
    assert _rel_err(out, ref) < tol


def test_errors(saved, tmp_path):
    args = (saved + ".pdmodel", saved + ".pdiparams", str(tmp_path / "e.pdmodel"),
            str(tmp_path / "e.pdiparams"))
    with pytest.raises(ValueError, match="mixed_precision must be PrecisionType.Half"):
        convert_to_mixed_precision(*args, PrecisionType.Float32, PlaceType.GPU)
    with pytest.raises(TypeError, match="backend must be a paddle.inference.PlaceType"):
        convert_to_mixed_precision(*args, PrecisionType.Half, "gpu")
    with pytest.raises(ValueError, match=r"both contain \['conv2d'\]"):
        convert_to_mixed_precision(*args, PrecisionType.Half, PlaceType.GPU,
                                   black_list={"conv2d"}, white_list={"conv2d"})
    with pytest.raises(TypeError, match="black_list must be a set of op type names"):
        convert_to_mixed_precision(*args, PrecisionType.Half, PlaceType.GPU, black_list="conv2d")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        convert_to_mixed_precision(str(tmp_path / "none.pdmodel"), *args[1:],
                                   PrecisionType.Half, PlaceType.GPU)
    assert not os.path.exists(args[2])


def test_trt_versions():
    assert get_trt_compile_version() == (0, 0, 0)  # Paddle 3.3.1 without TensorRT
    assert get_trt_runtime_version() == (0, 0, 0)


def test_bfloat16_parameters_survive_the_params_file(tmp_path):
    """.npy has no bfloat16: the .pdiparams writer keeps the bits and the dtype."""
    net = paddle.nn.Linear(2, 2)
    net.to(dtype="bfloat16")
    prefix = str(tmp_path / "bf")
    paddle.jit.save(net, prefix,
                    input_spec=[paddle.static.InputSpec([None, 2], "bfloat16", "x")])
    loaded = paddle.jit.load(prefix)
    x = paddle.ones([1, 2], dtype="bfloat16")
    np.testing.assert_array_equal(loaded(x).astype("float32").numpy(),
                                  net(x).astype("float32").numpy())
