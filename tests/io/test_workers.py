"""DataLoader with worker processes: order, shared memory, seeds, IterableDataset shards,
and reliability (worker errors, dead workers, timeouts, no leaked processes or segments)."""
import gc
import glob
import multiprocessing as mp
import os
import signal
import time
from multiprocessing import shared_memory

import numpy as np
import pytest

import sampan as paddle
import sampan.io as io
from sampan.io import multiprocess as mp_iter
from sampan.io import shm

pytestmark = pytest.mark.skipif(not os.path.isdir("/dev/shm"),
                                reason="leak checks read /dev/shm (Linux)")


def _segments():
    return set(glob.glob(f"/dev/shm/spio{os.getpid()}_*"))


@pytest.fixture(autouse=True)
def no_leaks():
    before = _segments()
    yield
    gc.collect()
    deadline = time.monotonic() + 2.0
    while mp.active_children() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert mp.active_children() == []
    assert _segments() - before == set()


class Pairs(io.Dataset):
    def __init__(self, n=10, width=300):
        self.n, self.width = n, width

    def __getitem__(self, idx):
        return np.full([self.width], idx, dtype="float32"), idx

    def __len__(self):
        return self.n


class Behaviour(io.Dataset):
    """Item `bad` misbehaves in the way `mode` names; others are plain arrays."""

    def __init__(self, mode, bad=5, n=12):
        self.mode, self.bad, self.n = mode, bad, n

    def __getitem__(self, idx):
        if idx == self.bad:
            if self.mode == "raise":
                raise ValueError(f"bad sample {idx}")
            if self.mode == "exit":
                os._exit(3)
            if self.mode == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.mode == "sleep":
                time.sleep(5)
        return np.array([idx], dtype="int64")

    def __len__(self):
        return self.n


class Sharded(io.IterableDataset):
    def __init__(self, n, shard=True):
        self.n, self.shard = n, shard

    def __iter__(self):
        info = io.get_worker_info()
        start, step = (info.id, info.num_workers) if self.shard and info else (0, 1)
        for i in range(start, self.n, step):
            yield np.array([i], dtype="int64")


class WhoAmI(io.Dataset):
    def __getitem__(self, idx):
        info = io.get_worker_info()
        return np.array([info.id, info.num_workers, info.seed % 1000003, os.getpid(),
                         np.random.randint(0, 2 ** 30), len(info.dataset)])

    def __len__(self):
        return 8


def _labels(loader):
    return [int(v) for b in loader for v in b[1].numpy()]


def test_workers_match_single_process_in_order():
    single = [(x.numpy(), y.numpy()) for x, y in io.DataLoader(Pairs(), batch_size=3)]
    multi = [(x.numpy(), y.numpy()) for x, y in io.DataLoader(Pairs(), batch_size=3,
                                                               num_workers=2)]
    assert len(multi) == len(single) == 4
    for (xs, ys), (xm, ym) in zip(single, multi):
        np.testing.assert_array_equal(xs, xm)
        np.testing.assert_array_equal(ys, ym)
    assert isinstance(io.DataLoader(Pairs(), num_workers=2).__iter__().__next__()[0],
                      paddle.Tensor)


def test_shuffle_with_workers_is_reproducible():
    def order():
        paddle.seed(11)
        return _labels(io.DataLoader(Pairs(), batch_size=4, shuffle=True, num_workers=2))
    a = order()
    assert sorted(a) == list(range(10)) and a != list(range(10))
    assert order() == a


@pytest.mark.parametrize("use_shm", [True, False])
def test_shared_memory_transport(monkeypatch, use_shm):
    seen = []
    real = shm.unpack

    def spy(data):
        seen.append(isinstance(data, shm.ShmBatch))
        return real(data)
    monkeypatch.setattr(shm, "unpack", spy)
    loader = io.DataLoader(Pairs(6), batch_size=2, num_workers=2, use_shared_memory=use_shm)
    assert _labels(loader) == list(range(6))
    assert seen == [use_shm] * 3


def test_worker_info_and_seeds():
    paddle.seed(5)
    rows = np.concatenate([b.numpy() for b in io.DataLoader(WhoAmI(), batch_size=2,
                                                            num_workers=2)])
    assert set(rows[:, 0]) == {0, 1} and set(rows[:, 1]) == {2} and set(rows[:, 5]) == {8}
    by_worker = {w: set(rows[rows[:, 0] == w, 2]) for w in (0, 1)}
    assert all(len(s) == 1 for s in by_worker.values()) and by_worker[0] != by_worker[1]
    assert os.getpid() not in set(rows[:, 3])
    paddle.seed(5)
    again = np.concatenate([b.numpy() for b in io.DataLoader(WhoAmI(), batch_size=2,
                                                             num_workers=2)])
    np.testing.assert_array_equal(rows[:, 4], again[:, 4])  # numpy seeded per worker


def test_worker_init_fn_runs_in_each_worker():
    def init(worker_id):
        np.random.seed(1000 + worker_id)
    loader = io.DataLoader(WhoAmI(), batch_size=4, num_workers=2, worker_init_fn=init)
    values = [b.numpy()[0, 4] for b in loader]
    expected = [np.random.RandomState(1000 + w).randint(0, 2 ** 30) for w in (0, 1)]
    assert values == expected


def test_iterable_dataset_split_across_workers():
    loader = io.DataLoader(Sharded(9), batch_size=2, num_workers=2)
    got = sorted(int(v) for b in loader for v in b.numpy().ravel())
    assert got == list(range(9))
    unsharded = io.DataLoader(Sharded(3, shard=False), batch_size=None, num_workers=2)
    assert sorted(int(b.numpy()[0]) for b in unsharded) == [0, 0, 1, 1, 2, 2]


def test_batch_size_none_and_tensor_collate_in_workers():
    loader = io.DataLoader(Pairs(3), batch_size=None, num_workers=2)
    assert [int(y) for _, y in loader] == [0, 1, 2]

    def collate(samples):
        return paddle.to_tensor(np.stack([s[0][:2] for s in samples]))
    out = list(io.DataLoader(Pairs(4), batch_size=2, num_workers=2, collate_fn=collate))
    assert all(isinstance(b, paddle.Tensor) for b in out)
    assert out[1].numpy()[:, 0].tolist() == [2.0, 3.0]


def test_worker_exception_reraised_with_traceback():
    loader = io.DataLoader(Behaviour("raise"), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as info:
        list(loader)
    msg = str(info.value)
    assert "bad sample 5" in msg and "DataLoader worker" in msg
    assert "Traceback" in msg and "__getitem__" in msg and "test_workers.py" in msg


def test_unpicklable_exception_type_becomes_runtime_error():
    class LocalError(Exception):
        pass

    def init(worker_id):
        raise LocalError("init failed")
    loader = io.DataLoader(Pairs(4), batch_size=2, num_workers=2, worker_init_fn=init)
    with pytest.raises(RuntimeError, match="LocalError.*init failed"):
        next(iter(loader))


@pytest.mark.parametrize("mode, cause", [("exit", "exit code 3"),
                                         ("kill", "signal 9 \\(SIGKILL\\)")])
def test_dead_worker_raises_promptly(mode, cause):
    loader = io.DataLoader(Behaviour(mode), batch_size=2, num_workers=2)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=f"DataLoader worker 0 \\(pid \\d+\\) .*{cause}"):
        list(loader)
    assert time.monotonic() - start < 5


def test_timeout_raises_when_no_batch_arrives():
    loader = io.DataLoader(Behaviour("sleep", bad=0), batch_size=1, num_workers=1,
                           timeout=0.3)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="timed out"):
        next(iter(loader))
    assert time.monotonic() - start < 4


def test_early_break_and_delete_leave_nothing_behind():
    loader = io.DataLoader(Pairs(40), batch_size=2, num_workers=2, prefetch_factor=4)
    for _ in loader:
        break
    gc.collect()
    assert mp.active_children() == []
    it = iter(loader)
    next(it)
    del it
    assert mp.active_children() == []


def test_persistent_workers_keep_processes_across_epochs():
    class Pid(io.Dataset):
        def __getitem__(self, idx):
            return np.array([os.getpid(), idx])

        def __len__(self):
            return 6
    loader = io.DataLoader(Pid(), batch_size=1, num_workers=2, persistent_workers=True,
                           prefetch_factor=3)
    epochs = [np.concatenate([b.numpy() for b in loader]) for _ in range(2)]
    assert set(epochs[0][:, 0]) == set(epochs[1][:, 0])
    assert epochs[1][:, 1].tolist() == list(range(6))
    assert len(mp.active_children()) == 2
    for _ in loader:  # break early: the next epoch must not see stale batches
        break
    assert np.concatenate([b.numpy() for b in loader])[:, 1].tolist() == list(range(6))
    assert _segments() == set()  # stale batches were released, workers still alive
    assert len(mp.active_children()) == 2
    del loader
    gc.collect()
    assert mp.active_children() == []


def test_fresh_workers_each_epoch_without_persistence():
    class Pid(io.Dataset):
        def __getitem__(self, idx):
            return os.getpid()

        def __len__(self):
            return 2
    loader = io.DataLoader(Pid(), batch_size=1, num_workers=1)
    assert int(list(loader)[0]) != int(list(loader)[0])


def test_orphan_segments_are_swept_on_shutdown():
    loader = io.DataLoader(Pairs(4), batch_size=2, num_workers=1, persistent_workers=True)
    list(loader)
    orphan = shared_memory.SharedMemory(name=loader._iterator._shm_prefix + "0_999",
                                        create=True, size=64)
    orphan.close()
    assert f"/dev/shm/{orphan.name}" in _segments()
    del loader
    gc.collect()
    assert f"/dev/shm/{orphan.name}" not in _segments()


def test_batches_outlive_the_loader():
    loader = io.DataLoader(Pairs(6, width=2000), batch_size=3, num_workers=2)
    batches = list(loader)
    del loader
    gc.collect()
    assert _segments() == set()  # every delivered segment was unlinked on arrival
    for i, (x, _) in enumerate(batches):
        np.testing.assert_array_equal(x.numpy()[:, -1], [3 * i, 3 * i + 1, 3 * i + 2])
    batches[0][0].numpy()[...] = -1  # the arrays are ordinary writable memory
    assert float(batches[0][0].numpy().sum()) == -6000.0


def test_tensor_dataset_with_workers():
    ds = io.TensorDataset([paddle.to_tensor(np.arange(8, dtype="float32").reshape(4, 2)),
                           paddle.to_tensor([0, 1, 2, 3])])
    out = list(io.DataLoader(ds, batch_size=2, num_workers=2))
    assert out[1][0].numpy().tolist() == [[4.0, 5.0], [6.0, 7.0]]
    assert out[1][1].dtype == paddle.int64


def test_persistent_workers_restart_iterable_streams():
    loader = io.DataLoader(Sharded(5), batch_size=2, num_workers=2, persistent_workers=True)
    for _ in range(2):
        assert sorted(int(v) for b in loader for v in b.numpy().ravel()) == list(range(5))
    del loader


def test_sys_exit_in_worker_is_reported():
    class Exit(io.Dataset):
        def __getitem__(self, idx):
            raise SystemExit(2)

        def __len__(self):
            return 2
    with pytest.raises(RuntimeError, match="exit code 2"):
        list(io.DataLoader(Exit(), num_workers=1))


def test_poll_interval_is_short():
    # Liveness and timeouts are checked between slices of this length.
    assert mp_iter._POLL_S <= 0.2


_ORPHAN_SCRIPT = """
import os, signal, sys
import numpy as np
import sampan.io as io

class Slow(io.Dataset):
    def __getitem__(self, idx):
        return np.full([4096], idx, dtype="float32")
    def __len__(self):
        return 64

loader = io.DataLoader(Slow(), batch_size=2, num_workers=2, prefetch_factor=4,
                       persistent_workers=True)
it = iter(loader)
next(it)
print(os.getpid(), " ".join(str(w.process.pid) for w in it._workers), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is dead too
        return f.read().split(") ")[-1][0] != "Z"


def test_workers_and_segments_go_when_main_process_is_killed():
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", _ORPHAN_SCRIPT], cwd=root,
                          capture_output=True, text=True, timeout=30,
                          env=dict(os.environ, PYTHONPATH=root))
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    main_pid, *pids = [int(p) for p in proc.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (any(_pid_alive(p) for p in pids) or
                                           glob.glob(f"/dev/shm/spio{main_pid}_*")):
        time.sleep(0.05)
    assert not any(_pid_alive(p) for p in pids)
    assert glob.glob(f"/dev/shm/spio{main_pid}_*") == []
