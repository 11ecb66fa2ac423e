"""Run by the launcher on 2+ ranks (tests/distributed/test_collectives.py): every collective
against NumPy, groups, object collectives, p2p, and all_reduce inside a static Program and
to_static. Any mismatch raises, which makes the launcher exit non-zero."""
import numpy as np

import sampan as paddle
import sampan.distributed as dist
from sampan.static import Executor, Program, program_guard
from sampan.static.builder import building


def data(rank, shape=(3, 4), dtype="float64"):
    return (np.random.RandomState(10 + rank).standard_normal(shape) * 3).astype(dtype)


def check(got, want, what):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    np.testing.assert_allclose(got.astype("float64"), np.asarray(want, "float64"),
                               rtol=1e-6, atol=1e-6, err_msg=what)


def reductions(r, n):
    every = [data(k) for k in range(n)]
    refs = {dist.ReduceOp.SUM: np.sum, dist.ReduceOp.MAX: np.max, dist.ReduceOp.MIN: np.min,
            dist.ReduceOp.PROD: np.prod, dist.ReduceOp.AVG: np.mean}
    for op, ref in refs.items():
        x = paddle.to_tensor(data(r))
        dist.all_reduce(x, op=op)
        check(x, ref(every, axis=0), f"all_reduce op={op}")
        y = paddle.to_tensor(data(r))
        dist.reduce(y, dst=1, op=op)
        check(y, ref(every, axis=0) if r == 1 else data(r), f"reduce op={op}")
    for dtype in ("int32", "float16", "bfloat16", "float32"):
        x = paddle.to_tensor(np.full((2, 2), r + 1)).astype(dtype)
        dist.all_reduce(x)
        assert x.dtype.name == dtype, (dtype, x.dtype)
        check(x.astype("float64"), np.full((2, 2), n * (n + 1) / 2), f"all_reduce {dtype}")
    stacked = [data(k, (n, 2)) for k in range(n)]
    out = paddle.zeros([2], "float64")
    dist.reduce_scatter(out, [paddle.to_tensor(row) for row in stacked[r]])
    check(out, sum(s[r] for s in stacked), "reduce_scatter")


def address(t):
    return t._data.__array_interface__["data"][0]


def in_place_and_grad(r, n):
    """Eager collectives write into the tensor's own buffer (Paddle's in-place semantics);
    a tensor that needs a gradient, or a non-contiguous one, takes the dispatched op."""
    want = sum(data(k) for k in range(n))
    x = paddle.to_tensor(data(r))
    ptr, version = address(x), x._version
    dist.all_reduce(x)
    assert address(x) == ptr and x._version == version + 1
    check(x, want, "in-place all_reduce")
    b = paddle.to_tensor(data(r))
    ptr = address(b)
    dist.broadcast(b, src=1)
    assert address(b) == ptr
    check(b, data(1), "in-place broadcast")
    h = paddle.to_tensor(data(r))
    handle = h.numpy()   # a NumPy handle on the buffer keeps its values
    dist.all_reduce(h)
    check(handle, data(r), "numpy handle")
    check(h, want, "all_reduce of a tensor with a numpy handle")
    u = paddle.to_tensor(data(r), stop_gradient=False)
    v = paddle.to_tensor(data(r), stop_gradient=False)
    (u + v).sum().backward()   # the two gradients may share one array
    dist.all_reduce(u.grad)
    dist.all_reduce(v.grad)
    check(u.grad, np.full((3, 4), n), "all_reduce of a shared gradient (first)")
    check(v.grad, np.full((3, 4), n), "all_reduce of a shared gradient (second)")
    c = paddle.to_tensor(data(r))
    dist.reduce(c, dst=0, op=dist.ReduceOp.AVG)
    check(c, want / n if r == 0 else data(r), "in-place reduce")
    i = paddle.to_tensor(np.full((3,), 4 * (r + 1), "int64"))
    dist.all_reduce(i, op=dist.ReduceOp.AVG)
    assert i.dtype.name == "int64"
    check(i, np.full((3,), sum(4 * (k + 1) for k in range(n)) // n), "int64 avg")
    t = paddle.to_tensor(data(r, (4, 3))).t()
    dist.all_reduce(t)
    check(t, sum(data(k, (4, 3)) for k in range(n)).T, "all_reduce of a transposed view")
    w = paddle.to_tensor(data(r), stop_gradient=False)
    y = w * 1.0
    dist.all_reduce(y)
    check(y, want, "all_reduce of a tensor that needs a gradient")
    (y * paddle.to_tensor(data(r + 20))).sum().backward()
    check(w.grad, sum(data(k + 20) for k in range(n)), "all_reduce gradient")


def movement(r, n):
    x = paddle.to_tensor(data(r))
    dist.broadcast(x, src=1)
    check(x, data(1), "broadcast")
    got = []
    dist.all_gather(got, paddle.to_tensor(data(r)))
    for k in range(n):
        check(got[k], data(k), "all_gather")
    got = []
    dist.all_gather(got, paddle.to_tensor(float(r)))  # 0-D pieces stay 0-D
    for k in range(n):
        assert got[k].shape == [], f"all_gather of 0-D tensors gave shape {got[k].shape}"
        check(got[k], np.array(float(k)), "all_gather 0-D")
    parts = [paddle.to_tensor(data(0) + k) for k in range(n)] if r == 0 else None
    out = paddle.zeros([3, 4], "float64")
    dist.scatter(out, parts, src=0)
    check(out, data(0) + r, "scatter")
    ins = [paddle.to_tensor(data(r) * 10 + k) for k in range(n)]
    outs = []
    dist.alltoall(outs, ins)
    for k in range(n):
        check(outs[k], data(k) * 10 + r, "alltoall")


def gather_buffer_reuse(r, n):
    """A large all_gather result is reused by the next call only once nothing (not even a
    view of one row) references it."""
    comm = dist.get_group().comm
    x = np.full(1 << 13, r, "float32")
    first = comm.all_gather(x)
    row = first[0]
    del first
    second = comm.all_gather(x + 1)
    assert not np.shares_memory(second, row)
    check(row, np.zeros(1 << 13), "a kept row of an earlier all_gather")
    where = second.__array_interface__["data"][0]
    del second
    third = comm.all_gather(x + 2)
    assert third.__array_interface__["data"][0] == where, "expected the spare buffer"
    for k in range(n):
        check(third[k], np.full(1 << 13, k + 2), "all_gather into the spare buffer")


def objects(r, n):
    got = []
    dist.all_gather_object(got, {"rank": r, "text": "x" * r})
    assert got == [{"rank": k, "text": "x" * k} for k in range(n)], got
    items = [r, "mine"] if r == 0 else [None, None]
    dist.broadcast_object_list(items, src=0)
    assert items == [0, "mine"], items


def point_to_point(r, n):
    if r == 0:
        dist.send(paddle.to_tensor(data(0)), dst=1)
        task = dist.isend(paddle.to_tensor(data(5)), dst=1)
        task.wait()
    elif r == 1:
        x = paddle.zeros([3, 4], "float64")
        dist.recv(x, src=0)
        check(x, data(0), "send/recv")
        y = paddle.zeros([3, 4], "float64")
        dist.irecv(y, src=0).wait()
        check(y, data(5), "isend/irecv")
    dist.barrier()


def groups(r, n):
    g = dist.new_group([0, 1])
    assert g.nranks == 2 and g.rank == r if r < 2 else g.rank == -1
    x = paddle.to_tensor(data(r))
    dist.all_reduce(x, group=g)
    if r < 2:
        check(x, data(0) + data(1), "all_reduce in group")
    solo = dist.new_group([1])
    y = paddle.to_tensor(data(r))
    dist.all_reduce(y, group=solo)
    check(y, data(r), "one-rank group")
    assert dist.get_group(g.id) is g
    dist.destroy_process_group(solo)


def static_and_to_static(r, n):
    main, startup = Program(), Program()
    with program_guard(main, startup), building():
        x = paddle.static.data("x", [3, 4], "float64")
        dist.all_reduce(x)
        out = x * 2.0
    feed = data(r)
    got = Executor().run(main, feed={"x": feed}, fetch_list=[out])[0]
    check(got, 2 * sum(data(k) for k in range(n)), "all_reduce in a static Program")
    check(feed, data(r), "the fed array is left alone")
    assert "all_reduce" in str(main), str(main)

    @paddle.jit.to_static
    def summed(t):
        u = t * 1.0   # NOTE: in-place ops on a to_static *input* fail in jit (any op)
        dist.all_reduce(u)
        return u + 1.0

    check(summed(paddle.to_tensor(data(r))), sum(data(k) for k in range(n)) + 1.0,
          "all_reduce under to_static")


def model_parallel_split(r, n):
    init = paddle.nn.initializer.Assign
    x_np = data(0, (2, 4), "float32")
    w = data(7, (4, 6), "float32")
    x = paddle.to_tensor(x_np)
    cols = 6 // n
    attr = paddle.ParamAttr(initializer=init(w[:, r * cols:(r + 1) * cols]))
    out = dist.split(x, (4, 6), "linear", axis=1, num_partitions=n, weight_attr=attr)
    check(out, x_np @ w, "split linear axis=1")
    rows = 4 // n
    attr = paddle.ParamAttr(initializer=init(w[r * rows:(r + 1) * rows]))
    out = dist.split(x, (4, 6), "linear", axis=0, num_partitions=n, weight_attr=attr,
                     bias_attr=False)
    check(out, x_np @ w, "split linear axis=0")
    table = data(8, (6, 3), "float32")
    per = 6 // n
    attr = paddle.ParamAttr(initializer=init(table[r * per:(r + 1) * per]))
    ids = np.array([[0, 3], [5, 1]])
    emb = dist.split(paddle.to_tensor(ids), (6, 3), "embedding", num_partitions=n,
                     weight_attr=attr)
    check(emb, table[ids], "split embedding")


def main():
    dist.init_parallel_env(timeout=60)
    r, n = dist.get_rank(), dist.get_world_size()
    assert dist.is_initialized() and n >= 2
    assert dist.ParallelEnv().rank == r and dist.ParallelEnv().world_size == n
    reductions(r, n)
    in_place_and_grad(r, n)
    movement(r, n)
    gather_buffer_reuse(r, n)
    objects(r, n)
    point_to_point(r, n)
    groups(r, n)
    static_and_to_static(r, n)
    model_parallel_split(r, n)
    print(f"rank {r}: collectives ok", flush=True)


if __name__ == "__main__":
    main()
