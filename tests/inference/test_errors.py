"""paddle.inference errors: missing/truncated/corrupt model files name the file; bad inputs
name the input, the expected and the given shape/dtype."""
from __future__ import annotations

import os

import numpy as np
import pytest

import sampan as paddle
from sampan.inference import Config, create_predictor

InputSpec = paddle.static.InputSpec


@pytest.fixture
def saved(tmp_path):
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU())
    prefix = str(tmp_path / "mlp")
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, 4], "float32", "x")])
    return prefix


def _copy_cut(src: str, dst: str, keep: int | None = None, data: bytes | None = None) -> str:
    with open(src, "rb") as f:
        raw = f.read()
    with open(dst, "wb") as f:
        f.write(data if data is not None else raw[:keep])
    return dst


def test_missing_files_are_named(saved, tmp_path):
    missing = str(tmp_path / "nope.pdmodel")
    with pytest.raises(FileNotFoundError, match="nope.pdmodel.*does not exist"):
        create_predictor(Config(missing, saved + ".pdiparams"))
    params = str(tmp_path / "nope.pdiparams")
    with pytest.raises(FileNotFoundError, match="nope.pdiparams.*does not exist"):
        create_predictor(Config(saved + ".pdmodel", params))
    with pytest.raises(FileNotFoundError, match="no model file for.*nothing"):
        create_predictor(Config(str(tmp_path / "nothing")))
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    with pytest.raises(FileNotFoundError, match="holds no model file"):
        create_predictor(Config(str(empty_dir)))
    with pytest.raises(ValueError, match="the Config has no model"):
        create_predictor(Config())


def test_truncated_params_never_run_on_garbage(saved, tmp_path):
    # Paddle 3.3.1 runs a params file missing its last byte on uninitialised memory
    size = os.path.getsize(saved + ".pdiparams")
    for keep in (size - 1, size // 2, 0):
        bad = _copy_cut(saved + ".pdiparams", str(tmp_path / f"cut{keep}.pdiparams"), keep)
        with pytest.raises(ValueError, match=f"cut{keep}.pdiparams.*truncated or corrupt"):
            create_predictor(Config(saved + ".pdmodel", bad))


def test_params_of_another_model_are_refused(saved, tmp_path):
    other = paddle.nn.Linear(5, 3)
    prefix = str(tmp_path / "other")
    paddle.jit.save(other, prefix, input_spec=[InputSpec([None, 5], "float32", "x")])
    with pytest.raises(ValueError, match="other.pdiparams.*has no value for"):
        create_predictor(Config(saved + ".pdmodel", prefix + ".pdiparams"))
    # the right names with a wrong shape
    with np.load(saved + ".pdiparams") as z:
        arrays = {k: z[k] for k in z.files}
    weight = next(k for k in arrays if k != "__names__" and arrays[k].shape == (4, 3))
    arrays[weight] = np.zeros([5, 3], "float32")
    np.savez(str(tmp_path / "reshaped.npz"), **arrays)
    os.replace(tmp_path / "reshaped.npz", tmp_path / "reshaped.pdiparams")
    with pytest.raises(ValueError, match="reshaped.pdiparams.*with shape \\[5, 3\\], the "
                                         "program expects \\[4, 3\\]"):
        create_predictor(Config(saved + ".pdmodel", str(tmp_path / "reshaped.pdiparams")))


def test_truncated_or_corrupt_model_file(saved, tmp_path):
    size = os.path.getsize(saved + ".pdmodel")
    cut = _copy_cut(saved + ".pdmodel", str(tmp_path / "cut.pdmodel"), size - 1)
    with pytest.raises(ValueError, match="cut.pdmodel.*truncated or corrupt"):
        create_predictor(Config(cut, saved + ".pdiparams"))
    junk = _copy_cut(saved + ".pdmodel", str(tmp_path / "junk.pdmodel"), data=b"\x08\x01junk")
    with pytest.raises(ValueError, match="junk.pdmodel.*is not a model file"):
        create_predictor(Config(junk, saved + ".pdiparams"))
    empty = _copy_cut(saved + ".pdmodel", str(tmp_path / "empty.pdmodel"), data=b"")
    with pytest.raises(ValueError, match="empty.pdmodel.*is empty"):
        create_predictor(Config(empty, saved + ".pdiparams"))


def test_bad_inputs_name_input_and_shapes(saved):
    predictor = create_predictor(Config(saved))
    x = predictor.get_input_handle("x")
    with pytest.raises(ValueError, match="input 'x' expects shape \\[-1, 4\\] .*got \\[2, 5\\]"):
        x.copy_from_cpu(np.zeros([2, 5], "float32"))
    with pytest.raises(ValueError, match="input 'x' expects shape \\[-1, 4\\] .*got \\[4\\]"):
        x.copy_from_cpu(np.zeros([4], "float32"))
    with pytest.raises(TypeError, match="input 'x' expects dtype float32, got float64"):
        x.copy_from_cpu(np.zeros([2, 4], "float64"))
    with pytest.raises(TypeError, match="expected a numpy.ndarray"):
        x.copy_from_cpu([[1.0, 2.0, 3.0, 4.0]])
    with pytest.raises(ValueError, match="input 'x' expects shape \\[-1, 4\\].*got \\[3, 3\\]"):
        x.reshape([3, 3])
    with pytest.raises(RuntimeError, match="no data for input\\(s\\) \\['x'\\]"):
        predictor.run()
    with pytest.raises(ValueError, match="has 1 input\\(s\\) \\['x'\\], got 2"):
        predictor.run([np.zeros([1, 4], "float32")] * 2)
    with pytest.raises(TypeError, match="input 'x' expects dtype float32, got int64"):
        predictor.run([np.zeros([1, 4], "int64")])
    with pytest.raises(ValueError, match="no input named 'y'; its inputs are \\['x'\\]"):
        predictor.get_input_handle("y")
    out = predictor.get_output_handle(predictor.get_output_names()[0])
    with pytest.raises(RuntimeError, match="holds no data; call predictor.run\\(\\) first"):
        out.copy_to_cpu()
    with pytest.raises(RuntimeError, match="is an output"):
        out.copy_from_cpu(np.zeros([1, 3], "float32"))
    # after the errors the predictor still works
    x.copy_from_cpu(np.ones([1, 4], "float32"))
    predictor.run()
    assert out.shape() == [1, 3]
