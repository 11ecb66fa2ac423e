"""paddle.distributed: alltoall_single, gather, scatter_object_list, get_backend,
is_available, ParallelMode, gloo_*, io.save/load_persistables and save/load_state_dict, on
one process and (worker_more.py) on two ranks."""
import os

import numpy as np
import pytest

import sampan as paddle
import sampan.distributed as dist
from tests.distributed.util import launch
from tests.static_util import static_guard


def test_the_new_names_on_two_ranks(tmp_path):
    code, out = launch("worker_more.py", str(tmp_path))
    assert code == 0, out
    assert "rank 0: more ok" in out and "rank 1: more ok" in out, out
    assert sorted(os.listdir(tmp_path)) == ["0_0.distcp", "1_0.distcp"]


def test_single_process_semantics():
    out = paddle.zeros([3, 2])
    x = paddle.to_tensor(np.arange(6.0, dtype="float32").reshape(3, 2))
    dist.alltoall_single(out, x, [3], [3])
    np.testing.assert_array_equal(out.numpy(), x.numpy())
    got = []
    dist.gather(paddle.to_tensor([7, 8]), got)
    assert [t.numpy().tolist() for t in got] == [[7, 8]]
    objs = ["old"]
    dist.scatter_object_list(objs, [{"a": [1, 2]}])
    assert objs == [{"a": [1, 2]}]
    assert dist.is_available() is True
    modes = dist.ParallelMode
    assert (modes.DATA_PARALLEL, modes.TENSOR_PARALLEL, modes.PIPELINE_PARALLEL,
            modes.SHARDING_PARALLEL, modes.SEGMENT_PARALLEL) == (0, 1, 2, 3, 4)
    assert dist.launch.main is not None and dist.io.save_persistables is not None


def test_bad_arguments_name_the_api():
    x = paddle.ones([4])
    with pytest.raises(ValueError, match=r"alltoall_single: in_split_sizes must be 1 "):
        dist.alltoall_single(paddle.zeros([4]), x, [2, 2])
    with pytest.raises(ValueError, match="alltoall_single: out_split_sizes must be"):
        dist.alltoall_single(paddle.zeros([4]), x, [4], [3])
    with pytest.raises(TypeError, match="alltoall_single: out_tensor must be a Tensor"):
        dist.alltoall_single([], x)
    with pytest.raises(TypeError, match="gather: gather_list must be a list"):
        dist.gather(x, None)
    with pytest.raises(ValueError, match="gather: dst=2 is not a rank"):
        dist.gather(x, [], dst=2)
    with pytest.raises(ValueError, match="scatter_object_list: in_object_list must hold"):
        dist.scatter_object_list([], [1, 2])
    with pytest.raises(TypeError, match="scatter_object_list: out_object_list must be"):
        dist.scatter_object_list((), [1])


def test_get_backend_and_gloo_follow_init():
    dist.destroy_process_group()
    with pytest.raises(RuntimeError, match="get_backend: the global group is not init"):
        dist.get_backend()
    dist.gloo_release()
    with pytest.raises(RuntimeError, match="gloo_barrier: call gloo_init_parallel_env"):
        dist.gloo_barrier()
    with pytest.raises(ValueError, match="gloo_init_parallel_env: rank_id \\(1\\) must be <"):
        dist.gloo_init_parallel_env(1, 1, "127.0.0.1:1")
    with pytest.raises(ValueError, match="server_endpoint must be 'ip:port'"):
        dist.gloo_init_parallel_env(0, 1, "localhost")
    with pytest.raises(ValueError, match="do not match this process"):
        dist.gloo_init_parallel_env(0, 2, "127.0.0.1:1")
    dist.gloo_init_parallel_env(0, 1, "127.0.0.1:1")
    dist.gloo_barrier()
    assert dist.get_backend() == "MPI" and dist.get_backend(dist.get_group()) == "MPI"
    dist.gloo_release()


def test_state_dict_round_trip_and_errors(tmp_path):
    paddle.seed(3)
    layer = paddle.nn.Linear(3, 2)
    want = {k: v.numpy().copy() for k, v in layer.state_dict().items()}
    dist.save_state_dict(layer.state_dict(), str(tmp_path), unique_id=4)
    assert os.listdir(tmp_path) == ["0_4.distcp"]
    other = paddle.nn.Linear(3, 2)
    dist.load_state_dict(other.state_dict(), str(tmp_path), unique_id=4)
    for k, v in other.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), want[k])
    with pytest.raises(FileNotFoundError, match="load_state_dict: no checkpoint"):
        dist.load_state_dict(other.state_dict(), str(tmp_path))
    with pytest.raises(KeyError, match="'extra' is not in the checkpoint"):
        dist.load_state_dict({"extra": paddle.ones([1])}, str(tmp_path), unique_id=4)
    with pytest.raises(ValueError, match=r"'weight' has shape \[3, 2\] in the checkpoint"):
        dist.load_state_dict({"weight": paddle.ones([2])}, str(tmp_path), unique_id=4)
    with pytest.raises(TypeError, match="save_state_dict: state_dict must be a dict"):
        dist.save_state_dict([1], str(tmp_path))
    with pytest.raises(ValueError, match="save_state_dict: unique_id must be"):
        dist.save_state_dict({}, str(tmp_path), unique_id=-1)


def _program():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [None, 3], "float32")
        y = paddle.static.nn.fc(x, 2)
    return main, startup, y


def test_io_persistables_round_trip(tmp_path):
    paddle.seed(5)
    main, startup, y = _program()
    exe = paddle.static.Executor()
    feed = {"x": np.ones((1, 3), "float32")}
    with static_guard(main, startup):
        exe.run(startup)
        before = exe.run(main, feed=feed, fetch_list=[y])[0]
        dist.io.save_persistables(exe, str(tmp_path), main, filename="p.npz")
        scope = paddle.static.global_scope()
        for v in main.list_vars():
            if v.persistable:
                scope.set(v.name, np.zeros_like(scope.get(v.name)))
        assert not np.allclose(exe.run(main, feed=feed, fetch_list=[y])[0], before)
        dist.io.load_persistables(exe, str(tmp_path), main, filename="p.npz")
        np.testing.assert_allclose(exe.run(main, feed=feed, fetch_list=[y])[0], before)
        with pytest.raises(FileNotFoundError, match="load_persistables: no file"):
            dist.io.load_persistables(exe, str(tmp_path), main)
        with pytest.raises(TypeError, match="save_persistables: main_program must be"):
            dist.io.save_persistables(exe, str(tmp_path), "prog")
    with pytest.raises(RuntimeError, match="save_persistables: only supported in static"):
        dist.io.save_persistables(exe, str(tmp_path), main)
