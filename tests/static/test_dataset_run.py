"""Executor.train_from_dataset / infer_from_dataset over InMemoryDataset / QueueDataset
slot files, against a run of Paddle 3.3.1 (FLAGS_enable_pir_api=0) on the same files."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.distributed.fleet_dataset import InMemoryDataset, QueueDataset
from tests.static_util import static_guard

LOSSES = {"InMemoryDataset": [19.1398, 2.58634, 0.616555],
          "QueueDataset": [0.755487, 0.989739, 0.0610393]}
PARAMS = {"InMemoryDataset": ([1.254196286201477, -0.5600622296333313, 0.6018869876861572],
                              0.47585877776145935),
          "QueueDataset": ([1.1829169988632202, -0.7892303466796875, 0.5444267988204956],
                           0.34447258710861206)}


def _files(tmp_path):
    r = np.random.RandomState(0)
    paths = []
    for k in range(2):
        lines = []
        for _ in range(5):
            x = np.round(r.randn(3), 3)
            y = round(float(x @ [1., -2., 0.5] + 0.3), 3)
            lines.append(f"3 {x[0]} {x[1]} {x[2]} 1 {y} 1 {int(r.randint(0, 4))}\n")
        path = tmp_path / f"part{k}.txt"
        path.write_text("".join(lines))
        paths.append(str(path))
    assert open(paths[0]).readline() == "3 1.764 0.4 0.979 1 1.754 1 1\n"
    return paths


def _program():
    main, start = static.Program(), static.Program()
    with static_guard(main, start):
        x = static.data("x", [-1, 3], "float32")
        y = static.data("y", [-1, 1], "float32")
        lab = static.data("lab", [-1, 1], "int64")
        pred = static.nn.fc(x, 1, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Assign(np.array([[.1], [.2], [-.3]], "float32"))),
            bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.05)))
        loss = paddle.mean((pred - y) ** 2) + paddle.mean(paddle.cast(lab, "float32")) * 0
        paddle.optimizer.SGD(0.1).minimize(loss)
    return main, start, [x, y, lab], loss


def test_train_from_dataset_matches_paddle(tmp_path, capsys):
    files = _files(tmp_path)
    main, start, use_var, loss = _program()
    exe = static.Executor()
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(start)
        for cls in (InMemoryDataset, QueueDataset):
            ds = cls()
            ds.init(batch_size=4, thread_num=1, pipe_command="cat", use_var=use_var)
            ds.set_filelist(files)
            if cls is InMemoryDataset:
                ds.load_into_memory()
                assert ds.get_memory_data_size() == 10
            exe.train_from_dataset(main, ds, fetch_list=[loss], fetch_info=["loss"],
                                   print_period=1)
            out = capsys.readouterr().out.splitlines()
            got = [float(line.split("loss[1]:[")[1].rstrip("]")) for line in out]
            np.testing.assert_allclose(got, LOSSES[cls.__name__], rtol=1e-4)
            w, b = (scope.find_var(p.name).get_tensor().numpy()
                    for p in main.global_block().all_parameters())
            np.testing.assert_allclose(w.ravel(), PARAMS[cls.__name__][0], rtol=1e-5)
            np.testing.assert_allclose(b, [PARAMS[cls.__name__][1]], rtol=1e-5)


def test_infer_from_dataset_pipe_command_and_fetch_handler(tmp_path):
    files = _files(tmp_path)
    main, start, use_var, loss = _program()
    exe = static.Executor()
    exe.run(start)
    ds = QueueDataset()
    # a pipe_command filters each file: keep the first two lines
    ds.init(batch_size=1, use_var=use_var, pipe_command="head -n 2")
    ds.set_filelist(files)

    class Handler:
        var_dict = {"loss": loss}
        seen = []

        def handler(self, res):
            self.seen.append(float(res["loss"]))

    h = Handler()
    exe.infer_from_dataset(main.clone(for_test=True), ds, fetch_handler=h, print_period=1)
    assert len(h.seen) == 4                     # two files x two lines, batch 1


def test_in_memory_shuffle_and_errors(tmp_path):
    files = _files(tmp_path)
    _, _, use_var, _ = _program()
    ds = InMemoryDataset()
    ds.init(batch_size=3, use_var=use_var)
    ds.set_filelist(files)
    ds.load_into_memory()
    before = [s[1].item() for s in ds._memory]
    paddle.seed(1)
    ds.local_shuffle()
    after = [s[1].item() for s in ds._memory]
    assert sorted(before) == sorted(after) and before != after
    assert ds.get_shuffle_data_size() == 10
    assert [len(b["x"]) for b in ds._batches()] == [3, 3, 3, 1]
    ds.release_memory()
    assert ds.get_memory_data_size() == 0
    with pytest.raises(ValueError, match="InMemoryDataset.init: unknown setting 'batchsize'"):
        ds.init(batchsize=3)
    with pytest.raises(FileNotFoundError, match="set_filelist: no such file"):
        ds.set_filelist([str(tmp_path / "nope.txt")])
    bad = tmp_path / "bad.txt"
    bad.write_text("2 1.0 2.0 1 3.0 1 1\n")
    ds.set_filelist([str(bad)])
    with pytest.raises(ValueError, match=r"bad.txt:1: slot 'x' has 2 values"):
        ds.load_into_memory()
    with pytest.raises(TypeError, match="train_from_dataset: dataset must be"):
        static.Executor().train_from_dataset(static.Program(), dataset=[1, 2])
