"""Paddle's own inference files (made by PaddlePaddle 3.3.1, see fixtures/make_fixtures.py)
run through sampan.inference.paddle_format and give Paddle's outputs."""
import json
import os

import numpy as np
import pytest

from sampan.inference.paddle_format import Unsupported, load_paddle_model, read_paddle_program
from sampan.inference.paddle_format import wire
from sampan.static.executor import Executor, Scope, scope_guard

FIX = os.path.join(os.path.dirname(__file__), "fixtures")
MODELS = ["mlp", "lenet", "tiny_resnet18", "mobilenet_v2_x0_25", "lstm",
          "transformer_encoder", "op_zoo", "gru_rnn", "tiny_bert"]
CASES = [(fmt, name) for fmt, ext in (("legacy", ".pdmodel"), ("pir", ".json"))
         for name in MODELS if os.path.exists(os.path.join(FIX, fmt, name + ext))]


def files(fmt: str, name: str) -> tuple:
    model = os.path.join(FIX, fmt, name + (".pdmodel" if fmt == "legacy" else ".json"))
    params = os.path.join(FIX, fmt, name + ".pdiparams")
    if not os.path.exists(params):  # the same bytes as the legacy file (make_fixtures._dedupe)
        params = os.path.join(FIX, "legacy", name + ".pdiparams")
    return model, params


def run(model_file, params_file, x):
    program, feeds, fetches, params = load_paddle_model(model_file, params_file)
    scope = Scope()
    for k, v in params.items():
        scope.set(k, v)
    with scope_guard(scope):
        return Executor().run(program, feed={feeds[0]: x}, fetch_list=fetches)


def expected(fmt, name):
    outs, k = [], 0
    while os.path.exists(os.path.join(FIX, fmt, f"{name}.output{k}.npy")):
        outs.append(np.load(os.path.join(FIX, fmt, f"{name}.output{k}.npy")))
        k += 1
    return outs


def test_every_target_has_a_fixture():
    assert len(CASES) == 16  # legacy transformers: Paddle 3.3.1 cannot write them


@pytest.mark.parametrize("fmt,name", CASES)
def test_matches_paddle(fmt, name):
    x = np.load(os.path.join(FIX, name + ".input.npy"))
    outs = run(*files(fmt, name), x)
    refs = expected(fmt, name)
    assert len(outs) == len(refs)
    for out, ref in zip(outs, refs):
        assert out.shape == ref.shape and out.dtype == ref.dtype
        # 1e-5 relative to the output's magnitude (float32 sums in another order)
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * float(np.abs(ref).max()))


@pytest.mark.parametrize("fmt", ["legacy", "pir"])
def test_batch_dim_stays_dynamic(fmt):
    x = np.load(os.path.join(FIX, "lstm.input.npy"))
    out, h = run(*files(fmt, "lstm"), x[:1])
    ref, ref_h = expected(fmt, "lstm")
    np.testing.assert_allclose(out, ref[:1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h, ref_h[:, :1], rtol=1e-5, atol=1e-6)


def test_predictor_runs_paddle_files():
    inference = pytest.importorskip("sampan.inference")
    if not hasattr(inference, "create_predictor"):
        pytest.skip("sampan.inference has no Predictor yet")
    model, params = files("pir", "transformer_encoder")
    predictor = inference.create_predictor(inference.Config(model, params))
    x = np.load(os.path.join(FIX, "transformer_encoder.input.npy"))
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.copy_from_cpu(x)
    predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(out, expected("pir", "transformer_encoder")[0], rtol=1e-5,
                               atol=1e-5)


def test_reads_feeds_fetches_and_params():
    m = read_paddle_program(files("legacy", "mlp")[0])
    assert m.feeds == ["x"] and len(m.fetches) == 1
    assert sorted(m.params) == ["linear_0.b_0", "linear_0.w_0", "linear_1.b_0", "linear_1.w_0"]
    p = read_paddle_program(files("pir", "mlp")[0])
    assert p.feeds == m.feeds and sorted(p.params) == sorted(m.params)
    program, feeds, fetches, params = load_paddle_model(*files("legacy", "mlp"))
    assert params["linear_0.w_0"].shape == (8, 16) and params["linear_0.w_0"].dtype == "float32"
    assert fetches == m.fetches  # outputs keep Paddle's names


def test_truncated_params_names_the_file(tmp_path):
    model, params = files("legacy", "lenet")
    cut = tmp_path / "lenet.pdiparams"
    cut.write_bytes(open(params, "rb").read()[:-1])
    with pytest.raises(ValueError, match="lenet.pdiparams.*truncated"):
        load_paddle_model(model, str(cut))


def test_params_of_another_model(tmp_path):
    with pytest.raises(ValueError, match="mlp.pdiparams"):
        load_paddle_model(files("legacy", "lenet")[0], files("legacy", "mlp")[1])
    padded = tmp_path / "x.pdiparams"
    padded.write_bytes(open(files("legacy", "mlp")[1], "rb").read() + b"\0")
    with pytest.raises(ValueError, match="1 bytes after"):
        load_paddle_model(files("legacy", "mlp")[0], str(padded))


def test_missing_params_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothere.pdiparams"):
        load_paddle_model(files("legacy", "mlp")[0], str(tmp_path / "nothere.pdiparams"))


@pytest.mark.parametrize("fmt", ["legacy", "pir"])
def test_corrupt_model_names_the_file(tmp_path, fmt):
    model = files(fmt, "mlp")[0]
    bad = tmp_path / os.path.basename(model)
    bad.write_bytes(open(model, "rb").read()[:-7])
    with pytest.raises(ValueError, match=os.path.basename(model) + ".*truncated or corrupt"):
        load_paddle_model(str(bad), files(fmt, "mlp")[1])


def test_every_unmapped_op_in_one_error(tmp_path):
    d = json.load(open(files("pir", "mlp")[0]))
    for op in d["program"]["regions"][0]["blocks"][0]["ops"]:
        op["#"] = {"1.relu": "1.frobnicate", "1.softmax": "1.warp_drive"}.get(op["#"], op["#"])
    path = tmp_path / "mlp.json"
    path.write_text(json.dumps(d))
    with pytest.raises(Unsupported) as e:
        load_paddle_model(str(path), files("pir", "mlp")[1])
    msg = str(e.value)
    assert "2 Paddle op type(s)" in msg and "frobnicate" in msg and "warp_drive" in msg


def test_wire_varints():
    assert wire.varint(bytes([0xAC, 0x02]), 0) == (300, 2)
    neg = bytes([0xFF] * 9 + [0x01])  # -1 as a 10-byte int64 varint
    assert wire.packed_varints(wire.varint(neg, 0)[0]) == [-1]
    assert wire.packed_varints(bytes([3, 0xAC, 0x02])) == [3, 300]
    with pytest.raises(wire.WireError):
        wire.fields(bytes([0x0A, 0x05, 0x01]))  # a 5-byte field with 1 byte left


def test_detect():
    from sampan.inference.paddle_format import detect
    for fmt in ("legacy", "pir"):
        path = files(fmt, "mlp")[0]
        assert detect(path, open(path, "rb").read(64))
    assert not detect("m.pdmodel", b'{"format": "sampan.program"')


def test_static_load_inference_model(tmp_path):
    from sampan.inference.paddle_format import load_inference_model
    model, params = files("legacy", "tiny_resnet18")
    prefix = tmp_path / "tiny"
    (tmp_path / "tiny.pdmodel").write_bytes(open(model, "rb").read())
    (tmp_path / "tiny.pdiparams").write_bytes(open(params, "rb").read())
    scope = Scope()
    program, feeds, fetch_vars = load_inference_model(str(prefix), Executor(), scope=scope)
    x = np.load(os.path.join(FIX, "tiny_resnet18.input.npy"))
    with scope_guard(scope):
        out, = Executor().run(program, feed={feeds[0]: x}, fetch_list=fetch_vars)
    ref = expected("legacy", "tiny_resnet18")[0]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * float(np.abs(ref).max()))


@pytest.mark.parametrize("fmt", ["legacy", "pir"])
def test_predictor_from_a_model_directory(tmp_path, fmt):
    inference = pytest.importorskip("sampan.inference")
    if not hasattr(inference, "create_predictor"):
        pytest.skip("sampan.inference has no Predictor yet")
    model, params = files(fmt, "lenet")
    ext = os.path.splitext(model)[1]
    (tmp_path / ("inference" + ext)).write_bytes(open(model, "rb").read())
    (tmp_path / "inference.pdiparams").write_bytes(open(params, "rb").read())
    predictor = inference.create_predictor(inference.Config(str(tmp_path)))
    x = np.load(os.path.join(FIX, "lenet.input.npy"))
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.reshape(list(x.shape))
    handle.copy_from_cpu(x)
    predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    ref = expected(fmt, "lenet")[0]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * float(np.abs(ref).max()))
