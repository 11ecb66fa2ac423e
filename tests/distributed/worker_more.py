"""Run by the launcher on 2 ranks (tests/distributed/test_more_api.py): alltoall_single with
equal and uneven splits, gather, scatter_object_list, get_backend, gloo_* and per-rank
save/load_state_dict, against NumPy. Any mismatch raises (the launcher exits non-zero)."""
import sys

import numpy as np

import sampan as paddle
import sampan.distributed as dist


def main():
    dist.init_parallel_env()
    r, n = dist.get_rank(), dist.get_world_size()
    assert n == 2 and dist.get_backend() == "MPI"
    # equal splits: rank r sends rows [2j, 2j+1] of its tensor to rank j
    x = paddle.to_tensor(np.arange(4.0) + 10 * r)
    out = paddle.zeros([4], "float64")
    dist.alltoall_single(out, x)
    want = np.concatenate([np.arange(4.0)[2 * r:2 * r + 2] + 10 * j for j in range(n)])
    np.testing.assert_allclose(out.numpy(), want)
    # uneven: rank 0 sends 1 row to 0 and 2 to 1; rank 1 sends 3 rows to 0 and 1 to 1
    ins = [[1, 2], [3, 1]][r]
    outs = [sizes[r] for sizes in ([1, 2], [3, 1])]
    src = paddle.to_tensor(np.arange(sum(ins) * 2.0).reshape(-1, 2) + 100 * r)
    got = paddle.zeros([sum(outs), 2], "float64")
    dist.alltoall_single(got, src, ins, outs)
    parts = []
    for j, sizes in enumerate(([1, 2], [3, 1])):
        rows = np.arange(sum(sizes) * 2.0).reshape(-1, 2) + 100 * j
        parts.append(rows[sum(sizes[:r]):sum(sizes[:r + 1])])
    np.testing.assert_allclose(got.numpy(), np.concatenate(parts))
    gathered = ["untouched"]
    dist.gather(paddle.to_tensor([r, r + 5]), gathered, dst=1)
    if r == 1:
        assert [t.numpy().tolist() for t in gathered] == [[0, 5], [1, 6]], gathered
    else:
        assert gathered == ["untouched"], gathered
    objs = []
    dist.scatter_object_list(objs, [{"to": 0}, ("to", 1)] if r == 1 else None, src=1)
    assert objs == [[{"to": 0}, ("to", 1)][r]], objs
    dist.gloo_init_parallel_env(r, n, "127.0.0.1:6170")
    dist.gloo_barrier()
    dist.gloo_release()
    path = sys.argv[1]
    dist.save_state_dict({"w": paddle.full([2], float(r))}, path)
    dist.barrier()
    back = {"w": paddle.zeros([2])}
    dist.load_state_dict(back, path)
    np.testing.assert_allclose(back["w"].numpy(), [r, r])
    print(f"rank {r}: more ok", flush=True)


if __name__ == "__main__":
    main()
