"""sampan.utils.LogWriter and paddle.callbacks.VisualDL: the event files are read back with
TensorBoard's own reader (EventAccumulator); skipped when tensorboardX or tensorboard is absent.
"""
import io
import sys

import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec
from sampan.utils import LogWriter
from tests.static_util import static_guard

pytest.importorskip("tensorboardX", reason="LogWriter writes through tensorboardX "
                    "(pip install tensorboardX)")
event_accumulator = pytest.importorskip(
    "tensorboard.backend.event_processing.event_accumulator",
    reason="the event files are read with TensorBoard's reader (pip install tensorboard)")


def _read(logdir):
    acc = event_accumulator.EventAccumulator(str(logdir), size_guidance={"tensors": 0,
                                                                          "scalars": 0})
    acc.Reload()
    return acc


def test_add_scalar_round_trip(tmp_path):
    with LogWriter(str(tmp_path)) as writer:
        writer.add_scalar("train/loss", 0.5, 0)
        writer.add_scalar("train/loss", paddle.to_tensor([0.25]), 1)
        writer.add_scalar(tag="train/loss", value=np.float64(0.125), step=2, walltime=100.0)
        writer.add_scalar("train/acc", 1, 2)
    acc = _read(tmp_path)
    assert sorted(acc.Tags()["scalars"]) == ["train/acc", "train/loss"]
    events = acc.Scalars("train/loss")
    assert [(e.step, e.value) for e in events] == [(0, 0.5), (1, 0.25), (2, 0.125)]
    assert events[2].wall_time == 100.0
    assert [(e.step, e.value) for e in acc.Scalars("train/acc")] == [(2, 1.0)]


def test_add_scalars_one_run_per_key(tmp_path):
    with LogWriter(str(tmp_path)) as writer:
        for step in range(2):
            writer.add_scalars("loss", {"train": 1.0 + step, "eval": 2.0 * step}, step)
    train, ev = _read(tmp_path / "loss" / "train"), _read(tmp_path / "loss" / "eval")
    assert [(e.step, e.value) for e in train.Scalars("loss")] == [(0, 1.0), (1, 2.0)]
    assert [(e.step, e.value) for e in ev.Scalars("loss")] == [(0, 0.0), (1, 2.0)]


def _pixels(image_event):
    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(image_event.encoded_image_string)))


def test_add_image_layouts(tmp_path):
    hwc = np.arange(24, dtype="uint8").reshape(2, 4, 3) * 10
    chw = np.array([[[0.0, 0.5], [1.0, 2.0]]], "float32")   # 2.0 is clipped to 1
    with LogWriter(str(tmp_path)) as writer:
        writer.add_image("rgb", hwc, step=3)
        writer.add_image("gray", paddle.to_tensor(chw), step=4, dataformats="CHW")
    acc = _read(tmp_path)
    rgb, gray = acc.Images("rgb")[0], acc.Images("gray")[0]
    assert (rgb.step, rgb.width, rgb.height) == (3, 4, 2)
    np.testing.assert_array_equal(_pixels(rgb), hwc)
    assert gray.step == 4
    # one channel is stored as gray RGB
    np.testing.assert_array_equal(_pixels(gray), np.repeat([[[0], [127]], [[255], [255]]], 3,
                                                           axis=2))


def test_add_histogram_buckets(tmp_path):
    values = np.random.default_rng(0).normal(size=500)
    with LogWriter(str(tmp_path)) as writer:
        writer.add_histogram("weights", paddle.to_tensor(values.astype("float32")), 7,
                             buckets=6)
    hist = _read(tmp_path).Histograms("weights")[0]
    counts, edges = np.histogram(values.astype("float32").astype("float64"), bins=6)
    assert hist.step == 7
    h = hist.histogram_value
    assert h.num == 500 and h.bucket == counts.tolist()
    np.testing.assert_allclose(h.bucket_limit, edges[1:])
    np.testing.assert_allclose([h.min, h.max], [values.min(), values.max()], rtol=1e-6)


def test_add_text(tmp_path):
    with LogWriter(str(tmp_path)) as writer:
        writer.add_text("notes", "lr **0.1**", step=5)
    event = _read(tmp_path).Tensors("notes/text_summary")[0]
    assert event.step == 5 and event.tensor_proto.string_val == [b"lr **0.1**"]


def test_add_hparams_for_the_hparams_tab(tmp_path):
    plugin_data_pb2 = pytest.importorskip("tensorboard.plugins.hparams.plugin_data_pb2")
    with LogWriter(str(tmp_path)) as writer:
        writer.add_hparams({"lr": 0.1, "opt": "adam", "bn": True, "bs": 32},
                           ["hparam/accuracy"])
        writer.add_scalar("hparam/accuracy", 0.9, 1)
    content = _read(tmp_path).PluginTagToContent("hparams")
    exp = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/experiment"])
    assert [m.name.tag for m in exp.experiment.metric_infos] == ["hparam/accuracy"]
    start = plugin_data_pb2.HParamsPluginData.FromString(
        content["_hparams_/session_start_info"]).session_start_info
    assert start.hparams["lr"].number_value == 0.1
    assert start.hparams["opt"].string_value == "adam"
    assert start.hparams["bn"].bool_value is True
    assert start.hparams["bs"].number_value == 32


def _graph(logdir):
    graph = _read(logdir).Graph()
    return {n.name: (n.op, list(n.input)) for n in graph.node}, graph


def test_add_graph_of_a_static_program(tmp_path):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        with paddle.static.name_scope("head"):
            y = paddle.nn.functional.relu(paddle.static.nn.fc(x, 3))
        paddle.mean(y)
    with LogWriter(str(tmp_path)) as writer:
        writer.add_graph(main)
    nodes, graph = _graph(tmp_path)
    ops = [op.type for op in main.global_block().ops]
    assert len([n for n, (kind, _) in nodes.items() if kind in ops]) == len(ops)
    assert nodes["x"] == ("Data", [])
    params = [p.name for p in main.all_parameters()]
    assert params and all(nodes[p][0] == "Parameter" for p in params)
    relu = [n for n, (kind, _) in nodes.items() if kind == "relu"]
    assert len(relu) == 1 and relu[0].startswith("head/")
    mean = [n for n, (kind, _) in nodes.items() if kind == "mean"]
    assert nodes[mean[0]][1] == relu
    shapes = {n.name: n.attr["_output_shapes"].list.shape[0] for n in graph.node}
    assert [d.size for d in shapes["x"].dim] == [-1, 4]
    assert [d.size for d in shapes[relu[0]].dim] == [-1, 3]


def test_add_graph_of_a_layer(tmp_path, capsys):
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU())
    forward = net.forward
    with LogWriter(str(tmp_path)) as writer:
        writer.add_graph(net, [InputSpec([None, 4], "float32", "x")], verbose=True)
    assert "relu" in capsys.readouterr().out
    nodes, _ = _graph(tmp_path)
    linear = [n for n, (kind, _) in nodes.items() if kind == "linear"]
    assert len(linear) == 1 and nodes[linear[0]][1][0] == "x"
    assert [kind for kind, _ in nodes.values()].count("Parameter") == 2
    assert net.forward == forward   # the Layer itself is not converted
    out = net(paddle.ones([2, 4]))
    assert out.shape == [2, 3]


def test_default_logdir_and_dry_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with LogWriter(comment="exp1") as writer:
        writer.add_scalar("a", 1.0, 0)
    runs = list((tmp_path / "runs").iterdir())
    assert len(runs) == 1 and runs[0].name.endswith(".exp1")
    assert writer.logdir == str(runs[0].relative_to(tmp_path))
    with LogWriter(str(tmp_path / "dry"), write_to_disk=False) as writer:
        writer.add_scalar("a", 1.0, 0)
    assert not (tmp_path / "dry").exists()


def test_errors_name_the_api_and_argument(tmp_path):
    with LogWriter(str(tmp_path)) as writer:
        with pytest.raises(TypeError, match="add_scalar: tag must be a non-empty str"):
            writer.add_scalar("", 1.0, 0)
        with pytest.raises(ValueError, match=r"add_scalar: value must be one number.*\[3\]"):
            writer.add_scalar("a", np.ones(3), 0)
        with pytest.raises(TypeError, match="add_scalar: value must be numeric"):
            writer.add_scalar("a", "high", 0)
        with pytest.raises(TypeError, match="add_scalar: step must be an int"):
            writer.add_scalar("a", 1.0, 1.5)
        with pytest.raises(TypeError, match="add_scalars: tag_scalar_dict"):
            writer.add_scalars("a", {}, 0)
        with pytest.raises(ValueError, match=r"add_image: img of shape \[2, 2\] does not "
                                             r"match dataformats 'HWC'"):
            writer.add_image("img", np.zeros((2, 2)), 0)
        with pytest.raises(ValueError, match="add_image: .*5 channels"):
            writer.add_image("img", np.zeros((2, 2, 5)), 0)
        with pytest.raises(ValueError, match="add_image: dataformats"):
            writer.add_image("img", np.zeros((2, 2, 3)), 0, dataformats="NHWC")
        with pytest.raises(ValueError, match="add_histogram: values must be non-empty and "
                                             "finite"):
            writer.add_histogram("h", [1.0, np.nan], 0)
        with pytest.raises(ValueError, match="add_histogram: buckets"):
            writer.add_histogram("h", [1.0], 0, buckets=0)
        with pytest.raises(TypeError, match="add_text: text_string must be a str"):
            writer.add_text("t", 3)
        with pytest.raises(TypeError, match="add_hparams: hparams_dict must be a dict"):
            writer.add_hparams([("lr", 0.1)], ["acc"])
        with pytest.raises(TypeError, match="add_hparams: metrics_list must be a list"):
            writer.add_hparams({"lr": 0.1}, "acc")
        with pytest.raises(TypeError, match=r"add_hparams: hparams_dict\['lr'\]"):
            writer.add_hparams({"lr": [0.1]}, ["acc"])
        with pytest.raises(TypeError, match="add_graph: model must be"):
            writer.add_graph("net")
        with pytest.raises(ValueError, match="add_graph: a Layer needs input_spec"):
            writer.add_graph(paddle.nn.Linear(2, 2))


def test_without_tensorboardx_the_error_names_the_package(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    with pytest.raises(ImportError, match="pip install tensorboardX"):
        LogWriter(str(tmp_path))


class _Blobs(paddle.io.Dataset):
    def __init__(self, n, seed):
        rng = np.random.RandomState(seed)
        self.x = rng.randn(n, 4).astype("float32")
        self.y = (self.x.sum(1, keepdims=True) > 0).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def test_visualdl_callback_writes_tensorboard_events(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "visualdl", None)   # as when visualdl is not installed
    paddle.seed(0)
    model = paddle.Model(paddle.nn.Sequential(paddle.nn.Linear(4, 2)))
    model.prepare(paddle.optimizer.SGD(0.05, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    model.fit(_Blobs(8, 0), _Blobs(4, 1), batch_size=4, epochs=2, verbose=0,
              callbacks=[paddle.callbacks.VisualDL(str(tmp_path))])
    assert not (tmp_path / "scalars.jsonl").exists()
    acc = _read(tmp_path)
    assert sorted(acc.Tags()["scalars"]) == ["eval/acc", "eval/loss", "train/acc",
                                             "train/loss"]
    assert [e.step for e in acc.Scalars("train/loss")] == [1, 2, 3, 4]
    assert [e.step for e in acc.Scalars("eval/acc")] == [0, 1]
    evaluated = model.evaluate(_Blobs(4, 1), batch_size=4, verbose=0)
    assert acc.Scalars("eval/acc")[-1].value == pytest.approx(evaluated["acc"])
    assert acc.Scalars("eval/loss")[-1].value == pytest.approx(evaluated["loss"][0], rel=1e-6)
