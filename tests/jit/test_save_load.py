"""paddle.jit.save / paddle.jit.load / TranslatedLayer: round trips (in this process, in a
fresh one, through static.load_inference_model), specs and structures, output_spec, the
format's versions and its errors, fine-tuning a loaded model."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sampan as paddle
from sampan import nn
from sampan.static import InputSpec


class _Two(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 6)
        self.bn = nn.BatchNorm1D(6)
        self.drop = nn.Dropout(0.5)
        self.b = nn.Linear(6, 2)

    def forward(self, x, y):
        h = self.drop(nn.functional.relu(self.bn(self.a(x))))
        return {"out": self.b(h) + y, "parts": (h, [y * 2.0])}


def _data(seed=0):
    rng = np.random.RandomState(seed)
    return (paddle.to_tensor(rng.randn(5, 4).astype("float32")),
            paddle.to_tensor(rng.randn(5, 2).astype("float32")))


def _specs():
    return [InputSpec([None, 4], "float32", "x"), InputSpec([None, 2], "float32", "y")]


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def test_round_trip_structure_and_inference_model(tmp_path):
    paddle.seed(0)
    net = _Two()
    net.eval()
    x, y = _data()
    ref = net(x, y)
    path = str(tmp_path / "m" / "two")
    paddle.jit.save(net, path, input_spec=_specs())
    assert sorted(os.listdir(tmp_path / "m")) == ["two.pdiparams", "two.pdmodel"]
    loaded = paddle.jit.load(path)
    assert isinstance(loaded, paddle.jit.TranslatedLayer) and isinstance(loaded, nn.Layer)
    loaded.eval()
    got = loaded(x, y)
    _close(got["out"].numpy(), ref["out"].numpy())
    assert isinstance(got["parts"], tuple) and isinstance(got["parts"][1], list)
    _close(got["parts"][1][0].numpy(), ref["parts"][1][0].numpy())
    assert sorted(loaded.state_dict()) == sorted(net.state_dict())
    assert loaded.program().global_block().var("x").shape == [-1, 4]
    exe = paddle.static.Executor()
    program, feeds, fetches = paddle.static.load_inference_model(path, exe)
    assert feeds == ["x", "y"]
    out = exe.run(program, feed={"x": x.numpy(), "y": y.numpy()}, fetch_list=fetches)
    _close(out[0], ref["out"].numpy())


def test_saved_file_records_specs_names_and_op_versions(tmp_path):
    net = _Two()
    path = str(tmp_path / "two")
    paddle.jit.save(net, path, input_spec=_specs())
    with open(path + ".pdmodel") as f:
        d = json.load(f)
    jit = d["jit"]
    assert [s["name"] for s in jit["inputs"]] == ["x", "y"]
    assert jit["inputs"][0]["shape"] == [-1, 4]
    assert set(jit["ops"]) >= {"linear", "batch_norm", "relu"}
    assert all(v == 1 for v in jit["ops"].values())
    assert jit["params"]["linear_0.w_0" if "linear_0.w_0" in jit["params"] else
                         next(iter(jit["params"]))]["structured"] in net.state_dict()
    kinds = {tuple(sorted(a)) for _, _, a in jit["train_attrs"]}   # dropout/bn train attrs
    assert ("training",) in kinds and ("use_global_stats",) in kinds
    with open(path + ".pdiparams", "rb") as f:
        assert f.read(2) == b"PK"   # .npz (zip), no pickle


def test_output_spec_pruning_by_tensor_and_index(tmp_path):
    paddle.seed(1)
    net = paddle.jit.to_static(_Two())
    net.eval()
    x, y = _data()
    ref = net(x, y)
    path = str(tmp_path / "pruned")
    paddle.jit.save(net, path, output_spec=[ref["out"]])   # no input_spec: the last call
    loaded = paddle.jit.load(path).eval()
    _close(loaded(x, y).numpy(), ref["out"].numpy())
    ops = {op.type for op in loaded.program().global_block().ops}
    paddle.jit.save(net, path + "2", output_spec=[2, 0])
    both = paddle.jit.load(path + "2").eval()(x, y)
    _close(both[0].numpy(), ref["parts"][1][0].numpy())
    _close(both[1].numpy(), ref["out"].numpy())
    assert "batch_norm" in ops
    with pytest.raises(ValueError, match="out of range"):
        paddle.jit.save(net, path, output_spec=[7])


def _plain(a, b):
    return paddle.maximum(a, b) * 2.0, a - b


def test_save_plain_function_and_static_function(tmp_path):
    a, b = _data()[0], _data(1)[0]
    for i, fn in enumerate((_plain, paddle.jit.to_static(_plain))):
        path = str(tmp_path / f"f{i}")
        paddle.jit.save(fn, path, input_spec=[InputSpec([None, 4], "float32", "a"),
                                              InputSpec([None, 4], "float32", "b")])
        got = paddle.jit.load(path)(a, b)
        _close(got[0].numpy(), np.maximum(a.numpy(), b.numpy()) * 2)
        _close(got[1].numpy(), a.numpy() - b.numpy())


def _unconvertible(x):
    return x * float(np.sum(x))  # a numpy function on a static tensor


def test_save_errors_write_nothing(tmp_path):
    path = str(tmp_path / "bad")
    with pytest.raises(Exception, match=r"(?s)test_save_load\.py.*\d+.*np\.sum\(x\)"):
        paddle.jit.save(_unconvertible, path, input_spec=[InputSpec([2], "float32")])
    assert not os.listdir(tmp_path)
    with pytest.raises(ValueError, match="has not been run under to_static"):
        paddle.jit.save(_Two(), path)
    with pytest.raises(ValueError, match=r"additional config \(bogus\)"):
        paddle.jit.save(_Two(), path, input_spec=_specs(), bogus=1)
    with pytest.raises(ValueError, match="dirname/file_prefix"):
        paddle.jit.save(_Two(), str(tmp_path) + "/", input_spec=_specs())
    assert not os.listdir(tmp_path)


def _saved(tmp_path):
    path = str(tmp_path / "lin")
    paddle.jit.save(nn.Linear(3, 2), path, input_spec=[InputSpec([None, 3], "float32", "x")])
    return path


def _rewrite(path, edit):
    with open(path + ".pdmodel") as f:
        d = json.load(f)
    edit(d)
    with open(path + ".pdmodel", "w") as f:
        json.dump(d, f)


def test_load_errors_name_the_file(tmp_path):
    path = _saved(tmp_path)
    with open(path + ".pdmodel", "rb") as f:
        text = f.read()
    with open(path + ".pdmodel", "wb") as f:
        f.write(text[: len(text) // 2])
    with pytest.raises(ValueError, match=r"lin\.pdmodel.*truncated or corrupt"):
        paddle.jit.load(path)
    path = _saved(tmp_path)
    with open(path + ".pdiparams", "rb") as f:
        raw = f.read()
    with open(path + ".pdiparams", "wb") as f:
        f.write(raw[:40])
    with pytest.raises(ValueError, match=r"lin\.pdiparams.*truncated or corrupt"):
        paddle.jit.load(path)
    path = _saved(tmp_path)
    _rewrite(path, lambda d: d.update(version=99))
    with pytest.raises(ValueError, match=r"lin\.pdmodel.*format version 99"):
        paddle.jit.load(path)
    path = _saved(tmp_path)
    _rewrite(path, lambda d: d["jit"]["ops"].update(linear=7))
    with pytest.raises(ValueError, match=r"operator 'linear' version 7; this sampan has "
                                         r"version 1"):
        paddle.jit.load(path)
    path = _saved(tmp_path)
    _rewrite(path, lambda d: d["blocks"][0]["ops"][0].update(type="fused_future_op"))
    with pytest.raises(ValueError, match="operator 'fused_future_op'"):
        paddle.jit.load(path)
    with pytest.raises(FileNotFoundError, match=r"nothing\.pdmodel"):
        paddle.jit.load(str(tmp_path / "nothing"))


def test_fine_tune_loaded_model_reduces_loss(tmp_path):
    paddle.seed(4)
    path = str(tmp_path / "two")
    paddle.jit.save(_Two(), path, input_spec=_specs())
    loaded = paddle.jit.load(path)
    loaded.train()
    opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=loaded.parameters())
    x, y = _data(2)
    target = paddle.to_tensor(np.random.RandomState(3).randn(5, 2).astype("float32"))
    losses = []
    for _ in range(15):
        loss = ((loaded(x, y)["out"] - target) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]
    mean = dict(loaded.named_buffers()).get("bn._mean")
    mean = mean if mean is not None else dict(loaded.named_parameters())["bn._mean"]
    assert np.abs(mean.numpy()).sum() > 0        # training mode updated the statistics
    loaded.eval()
    a = loaded(x, y)["out"].numpy()
    _close(loaded(x, y)["out"].numpy(), a)       # eval: dropout off, deterministic


def test_load_in_fresh_process(tmp_path):
    paddle.seed(5)
    net = _Two()
    net.eval()
    x, y = _data()
    path = str(tmp_path / "fresh")
    paddle.jit.save(net, path, input_spec=_specs())
    np.save(tmp_path / "x.npy", x.numpy())
    np.save(tmp_path / "y.npy", y.numpy())
    script = textwrap.dedent(f"""
        import sys, numpy as np
        sys.modules["tests"] = None     # the saving module cannot be imported
        import sampan as paddle
        m = paddle.jit.load({path!r}).eval()
        out = m(paddle.to_tensor(np.load({str(tmp_path / 'x.npy')!r})),
                paddle.to_tensor(np.load({str(tmp_path / 'y.npy')!r})))
        np.save({str(tmp_path / 'out.npy')!r}, out["out"].numpy())
    """)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    subprocess.run([sys.executable, "-c", script], check=True, cwd=str(tmp_path),
                   env={**os.environ, "PYTHONPATH": root})
    _close(np.load(tmp_path / "out.npy"), net(x, y)["out"].numpy())
