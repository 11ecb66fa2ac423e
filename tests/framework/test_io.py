"""paddle.save / paddle.load: round trips, PaddlePaddle's file layout, safety, atomicity."""
import collections
import io
import os
import pickle

import numpy as np
import pytest

import sampan as paddle
from sampan.framework import io as sio


def _listing(folder):
    return sorted(os.listdir(folder))


# ------------------------------------------------------------------ round trips
def test_state_dict_round_trip_keeps_names_and_dtypes(tmp_path):
    state = collections.OrderedDict(
        weight=paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3)),
        bias=paddle.to_tensor(np.array([1.5, -2.0])),
        step=paddle.to_tensor([3]))
    state["weight"].name = "linear_0.w_0"
    path = tmp_path / "m.pdparams"
    paddle.save(state, str(path))
    out = paddle.load(str(path))
    assert list(out) == ["weight", "bias", "step"]
    for key, value in state.items():
        assert isinstance(out[key], paddle.Tensor)
        assert out[key].dtype == value.dtype
        np.testing.assert_array_equal(out[key].numpy(), value.numpy())
    assert out["weight"].name == "linear_0.w_0"
    raw = paddle.load(str(path), return_numpy=True)
    assert isinstance(raw["weight"], np.ndarray) and raw["weight"].dtype == np.float32
    kept = paddle.load(str(path), keep_name_table=True)
    assert kept["StructuredToParameterName@@"]["weight"] == "linear_0.w_0"


def test_layer_and_optimizer_style_state_dicts(tmp_path):
    opt_state = {"w_moment1_0": paddle.ones([2, 2]), "w_beta1_pow_acc_0": paddle.to_tensor([0.9]),
                 "LR_Scheduler": {"last_epoch": 3, "last_lr": 0.1}}
    paddle.save(opt_state, tmp_path / "o.pdopt")
    out = paddle.load(tmp_path / "o.pdopt")
    assert out["LR_Scheduler"] == {"last_epoch": 3, "last_lr": 0.1}
    np.testing.assert_array_equal(out["w_moment1_0"].numpy(), np.ones((2, 2), np.float32))


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_nested_containers_and_scalars(tmp_path, protocol):
    obj = {"a": [paddle.to_tensor([1, 2]), (3, "x")], "n": 1.5, "s": "text",
           "arr": np.array([1.0, 2.0]), "t": (paddle.to_tensor(2.0), None), "b": True}
    paddle.save(obj, tmp_path / "n.pd", protocol=protocol)
    out = paddle.load(tmp_path / "n.pd")
    assert isinstance(out["a"][0], paddle.Tensor) and out["a"][0].tolist() == [1, 2]
    assert out["a"][1] == (3, "x") and out["n"] == 1.5 and out["s"] == "text"
    assert out["b"] is True and out["t"][1] is None and out["t"][0].shape == []
    # Paddle: when Tensors were saved, plain ndarrays stay ndarrays.
    assert isinstance(out["arr"], np.ndarray)
    raw = paddle.load(tmp_path / "n.pd", return_numpy=True)
    assert isinstance(raw["a"][0], np.ndarray)


def test_single_tensor_and_array_come_back_as_tensors(tmp_path):
    t = paddle.to_tensor([1.0, 2.0])
    paddle.save(t, tmp_path / "t.pd")
    out = paddle.load(tmp_path / "t.pd")
    assert isinstance(out, paddle.Tensor) and out.name == t.name
    np.testing.assert_array_equal(out.numpy(), t.numpy())
    paddle.save(np.arange(3.0), tmp_path / "a.pd")
    assert isinstance(paddle.load(tmp_path / "a.pd"), paddle.Tensor)
    assert isinstance(paddle.load(tmp_path / "a.pd", return_numpy=True), np.ndarray)
    paddle.save(7, tmp_path / "i.pd")
    assert paddle.load(tmp_path / "i.pd") == 7


def test_bfloat16_is_stored_as_uint16_bits(tmp_path):
    t = paddle.to_tensor([1.0, -2.0], dtype="bfloat16")
    paddle.save({"w": t}, tmp_path / "bf.pd")
    raw = pickle.loads((tmp_path / "bf.pd").read_bytes())
    assert raw["w"].dtype == np.uint16 and raw["w"].tolist() == [16256, 49152]
    out = paddle.load(tmp_path / "bf.pd")
    assert out["w"].dtype == paddle.bfloat16 and out["w"].astype("float32").tolist() == [1, -2]


def test_file_like_objects():
    buf = io.BytesIO()
    paddle.save({"w": paddle.ones([2])}, buf)
    buf.seek(0)
    assert paddle.load(buf)["w"].tolist() == [1.0, 1.0]


def test_big_arrays_are_sliced_for_old_protocols(tmp_path, monkeypatch):
    monkeypatch.setattr(sio, "_MAX_SLICE_BYTES", 16)
    w = paddle.arange(10, dtype="float32").reshape([2, 5])
    paddle.save({"w": w}, tmp_path / "s.pd", protocol=2)
    raw = pickle.loads((tmp_path / "s.pd").read_bytes())
    assert raw["UnpackBigParamInfor@@"]["w"]["slices"] == ["w@@.0", "w@@.1", "w@@.2"]
    out = paddle.load(tmp_path / "s.pd")
    assert set(out) == {"w"} and out["w"].numpy().tolist() == w.numpy().tolist()


def test_layer_state_dict_round_trip(tmp_path):
    if not hasattr(paddle.nn, "Linear"):
        pytest.skip("paddle.nn.Linear is not available yet")
    lin = paddle.nn.Linear(3, 2)
    paddle.save(lin.state_dict(), tmp_path / "lin.pdparams")
    other = paddle.nn.Linear(3, 2)
    other.set_state_dict(paddle.load(tmp_path / "lin.pdparams"))
    np.testing.assert_array_equal(other.weight.numpy(), lin.weight.numpy())
    np.testing.assert_array_equal(other.bias.numpy(), lin.bias.numpy())


# ------------------------------------------------------------------ Paddle's layout
def test_loads_paddle_layer_state_dict_layout(tmp_path):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.full(3, -0.001, np.float32)
    data = {"weight": w, "bias": b,
            "StructuredToParameterName@@": {"weight": "linear_0.w_0", "bias": "linear_0.b_0"}}
    for protocol in (2, 4):
        (tmp_path / "p.pdparams").write_bytes(pickle.dumps(data, protocol=protocol))
        out = paddle.load(tmp_path / "p.pdparams")
        assert set(out) == {"weight", "bias"}
        assert out["weight"].name == "linear_0.w_0" and out["bias"].name == "linear_0.b_0"
        np.testing.assert_array_equal(out["weight"].numpy(), w)


def test_loads_paddle_adam_state_dict_layout(tmp_path):
    keys = ["linear_0.w_0_moment1_0", "linear_0.w_0_moment2_0",
            "linear_0.w_0_beta1_pow_acc_0", "linear_0.w_0_beta2_pow_acc_0"]
    data = {k: np.full([2, 3] if "moment" in k else [1], 0.5, np.float32) for k in keys}
    data["LR_Scheduler"] = {"last_epoch": 1, "last_lr": 0.001}
    data["StructuredToParameterName@@"] = {k: k for k in keys}
    (tmp_path / "a.pdopt").write_bytes(pickle.dumps(data, protocol=4))
    out = paddle.load(tmp_path / "a.pdopt")
    assert set(out) == set(keys) | {"LR_Scheduler"}
    assert out["linear_0.w_0_beta1_pow_acc_0"].shape == [1]
    assert out["LR_Scheduler"]["last_lr"] == 0.001


def test_loads_paddle_tensor_tuple_layout(tmp_path):
    # Paddle pickles a Tensor outside a state dict as tuple((name, ndarray)).
    data = {"a": [("generated_tensor_1", np.array([1, 2])), (3, "x")], "n": 1.5}
    (tmp_path / "t.pd").write_bytes(pickle.dumps(data, protocol=4))
    out = paddle.load(tmp_path / "t.pd")
    assert isinstance(out["a"][0], paddle.Tensor) and out["a"][0].name == "generated_tensor_1"
    assert out["a"][1] == (3, "x")


def test_written_layout_matches_paddle(tmp_path):
    t = paddle.to_tensor([1.0, 2.0])
    t.name = "w0"
    paddle.save({"w": t}, tmp_path / "sd.pd")
    raw = pickle.loads((tmp_path / "sd.pd").read_bytes())
    assert set(raw) == {"w", "StructuredToParameterName@@"}
    assert raw["StructuredToParameterName@@"] == {"w": "w0"}
    assert isinstance(raw["w"], np.ndarray)
    paddle.save([t, 1], tmp_path / "l.pd")
    raw = pickle.loads((tmp_path / "l.pd").read_bytes())
    assert raw[0][0] == "w0" and isinstance(raw[0][1], np.ndarray) and raw[1] == 1
    assert b"sampan" not in (tmp_path / "l.pd").read_bytes()


# ------------------------------------------------------------------ safety
class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_malicious_pickle_is_refused_and_not_executed(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pdparams"
    path.write_bytes(pickle.dumps({"w": _Evil(marker)}, protocol=2))
    with pytest.raises(pickle.UnpicklingError, match=r"(posix|os|nt)\.system.*not allowed"):
        paddle.load(path)
    assert not marker.exists()
    buf = io.BytesIO(pickle.dumps([eval], protocol=4))
    with pytest.raises(pickle.UnpicklingError, match="builtins.eval"):
        paddle.load(buf)


def test_codecs_encode_only_with_latin1():
    payload = (b"\x80\x02c_codecs\nencode\nq\x00X\x01\x00\x00\x00aX\x05\x00\x00\x00rot13"
               b"\x86R.")
    with pytest.raises(pickle.UnpicklingError, match="rot13"):
        paddle.load(io.BytesIO(payload))


def test_trusted_load_allows_other_objects(tmp_path):
    path = tmp_path / "od.pd"
    path.write_bytes(pickle.dumps({"d": collections.Counter("aab")}))
    with pytest.raises(pickle.UnpicklingError, match="collections.Counter"):
        paddle.load(path)
    assert paddle.load(path, trusted=True)["d"]["a"] == 2


# ------------------------------------------------------------------ atomic writes, errors
@pytest.mark.parametrize("where", ["pickling", "fsync"])
def test_crash_mid_write_keeps_old_file_and_leaves_no_temp(tmp_path, monkeypatch, where):
    path = tmp_path / "m.pdparams"
    paddle.save({"w": paddle.ones([2])}, path)
    before = path.read_bytes()

    def crash(*args):
        raise OSError("disk full")

    if where == "pickling":
        monkeypatch.setattr(sio._Pickler, "dump", crash)
    else:  # the whole payload reached the temp file, then the sync failed
        monkeypatch.setattr(sio.os, "fsync", crash)
    with pytest.raises(OSError, match="disk full"):
        paddle.save({"w": paddle.zeros([2])}, path)
    assert path.read_bytes() == before
    assert _listing(tmp_path) == ["m.pdparams"]


def test_save_creates_folders_and_replaces(tmp_path):
    path = tmp_path / "a" / "b" / "m.pd"
    paddle.save({"w": paddle.ones([1])}, str(path))
    paddle.save({"w": paddle.zeros([1])}, str(path))
    assert paddle.load(str(path))["w"].tolist() == [0.0]
    assert _listing(path.parent) == ["m.pd"]


def test_missing_file(tmp_path):
    missing = str(tmp_path / "nope.pdparams")
    with pytest.raises(FileNotFoundError, match="nope.pdparams.*does not exist"):
        paddle.load(missing)
    with pytest.raises(ValueError):  # Paddle raises ValueError here; we are both
        paddle.load(missing)
    with pytest.raises(FileNotFoundError, match="folder"):
        paddle.load(str(tmp_path))


@pytest.mark.parametrize("cut", [0, 1, 40, -2])
def test_truncated_file(tmp_path, cut):
    path = tmp_path / "m.pdparams"
    paddle.save({"w": paddle.ones([4])}, path)
    data = path.read_bytes()
    path.write_bytes(data[:cut] if cut >= 0 else data[:cut])
    with pytest.raises(ValueError, match="truncated, corrupted or not a file written by"):
        paddle.load(path)
    with pytest.raises(pickle.UnpicklingError):
        paddle.load(path)


def test_garbage_file(tmp_path):
    path = tmp_path / "g.pd"
    path.write_bytes(b"this is not a pickle at all")
    with pytest.raises(ValueError, match="can not parse"):
        paddle.load(path)


def test_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="protocol=5"):
        paddle.save({"w": paddle.ones([1])}, tmp_path / "x.pd", protocol=5)
    with pytest.raises(ValueError, match="protocol"):
        paddle.save({"w": paddle.ones([1])}, tmp_path / "x.pd", protocol="4")
    with pytest.raises(TypeError, match="path must be"):
        paddle.save({"w": paddle.ones([1])}, 3)
    with pytest.raises(TypeError, match="path must be"):
        paddle.load(3)
    with pytest.raises(ValueError, match="filename is empty"):
        paddle.save({"w": paddle.ones([1])}, str(tmp_path) + os.sep)
    with pytest.raises(ValueError, match="config 'bogus'"):
        paddle.load(tmp_path / "x.pd", bogus=1)
    with pytest.raises(ValueError, match="config 'bogus'"):
        paddle.save(1, tmp_path / "x.pd", bogus=1)
    with pytest.raises(ValueError, match="Layer"):
        paddle.save(paddle.nn.Layer(), tmp_path / "x.pd")
    with pytest.raises(ValueError, match="Layer"):
        paddle.save({"model": [paddle.nn.Sequential()]}, tmp_path / "x.pd")
    assert not (tmp_path / "x.pd").exists()
