"""paddle.distributed collectives: 2 ranks against NumPy (worker_collectives.py), and the
single-process semantics and argument errors."""
import numpy as np
import pytest

import sampan as paddle
import sampan.distributed as dist
from tests.distributed.util import launch


def test_every_collective_on_two_ranks_matches_numpy():
    code, out = launch("worker_collectives.py")
    assert code == 0, out
    assert "rank 0: collectives ok" in out and "rank 1: collectives ok" in out, out


def test_single_process_collectives_keep_values():
    x = paddle.to_tensor([1.0, -2.0])
    dist.all_reduce(x, op=dist.ReduceOp.PROD)
    got = []
    dist.all_gather(got, x)
    objs = []
    dist.all_gather_object(objs, {"a": 1})
    assert x.numpy().tolist() == [1.0, -2.0] and len(got) == 1 and objs == [{"a": 1}]
    assert dist.get_rank() == 0 and dist.get_world_size() == 1


def test_bad_arguments_name_the_api():
    x = paddle.to_tensor([1.0])
    with pytest.raises(ValueError, match="all_reduce: op must be"):
        dist.all_reduce(x, op=7)
    with pytest.raises(ValueError, match="broadcast: src=3 is not a rank"):
        dist.broadcast(x, src=3)
    with pytest.raises(TypeError, match="all_reduce: tensor must be a Tensor"):
        dist.all_reduce(np.ones(2))
    with pytest.raises(ValueError, match="scatter: the tensor list must hold one tensor"):
        dist.scatter(x, [x, x], src=0)
    with pytest.raises(ValueError, match="new_group: ranks must be distinct"):
        dist.new_group([0, 5])


def test_parallel_env_reads_the_launcher_variables(monkeypatch):
    dist.destroy_process_group()   # a doctest may have run init_parallel_env
    monkeypatch.setenv("PADDLE_TRAINER_ID", "3")
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "4")
    monkeypatch.setenv("PADDLE_TRAINER_ENDPOINTS", "127.0.0.1:1,127.0.0.1:2")
    env = dist.ParallelEnv()
    assert (env.rank, env.world_size, env.nranks) == (3, 4, 4)
    assert env.trainer_endpoints == ["127.0.0.1:1", "127.0.0.1:2"]
    assert dist.get_rank() == 3 and dist.get_world_size() == 4   # before init


def test_all_reduce_builds_an_op_in_a_static_program():
    from sampan.static import Executor, Program, program_guard
    from sampan.static.builder import building
    main, startup = Program(), Program()
    with program_guard(main, startup), building():
        x = paddle.static.data("x", [2], "float32")
        dist.all_reduce(x, op=dist.ReduceOp.MAX)
        y = x + 1.0
    assert "all_reduce" in str(main)
    got = Executor().run(main, feed={"x": np.array([1, 2], "float32")}, fetch_list=[y])[0]
    np.testing.assert_allclose(got, [2.0, 3.0])


def test_eager_all_reduce_writes_into_the_tensor_and_records_grads_when_needed():
    x = paddle.to_tensor([1.0, 2.0])
    ptr, version = _address(x), x._version
    dist.all_reduce(x, op=dist.ReduceOp.AVG)
    assert _address(x) == ptr and x._version == version + 1   # in place, as in Paddle
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = w * 3.0
    dist.all_reduce(y)
    assert y._node is not None   # dispatched: on the tape
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 3.0])


def _address(t):
    return t._data.__array_interface__["data"][0]


def test_a_buffer_that_others_see_is_not_written_in_place():
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    b = paddle.to_tensor([3.0, 4.0], stop_gradient=False)
    (a + b).sum().backward()
    shared = b.grad._data
    dist.all_reduce(a.grad)   # a.grad and b.grad may hold one array: a gets a new one
    assert a.grad._data is not shared and b.grad._data is shared
    x = paddle.to_tensor([1.0, 2.0])
    handle = x.numpy()
    dist.broadcast(x, src=0)
    assert x._data is not handle
    view = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])[0]
    dist.all_reduce(view)   # a view (not owning its memory) is not written either
    np.testing.assert_allclose(view.numpy(), [1.0, 2.0])


def test_in_place_form_is_skipped_under_a_dispatch_wrapper():
    from sampan.framework.flags import dispatch_wrapper
    seen = []

    def record(op, inputs, attrs, nxt):
        seen.append(op.name)
        return nxt(op, inputs, attrs)
    x = paddle.to_tensor([1.0, 2.0])
    with dispatch_wrapper(record):
        dist.all_reduce(x)
        dist.broadcast(x, src=0)
    assert seen == ["all_reduce", "broadcast"] and x.numpy().tolist() == [1.0, 2.0]
