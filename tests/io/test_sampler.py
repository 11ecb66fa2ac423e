"""Samplers and batch samplers (sampan.io.sampler, sampan.io.batch_sampler)."""
import numpy as np
import pytest

import sampan as paddle
import sampan.io as io


def test_sequence_sampler():
    s = io.SequenceSampler(range(4))
    assert list(s) == [0, 1, 2, 3] and len(s) == 4


def test_random_sampler_is_a_seeded_permutation():
    paddle.seed(10)
    first = list(io.RandomSampler(range(20)))
    assert sorted(first) == list(range(20)) and first != list(range(20))
    paddle.seed(10)
    assert list(io.RandomSampler(range(20))) == first
    sampler = io.RandomSampler(range(20))
    assert list(sampler) != list(sampler)  # a fresh order every epoch


def test_random_sampler_replacement_and_num_samples():
    paddle.seed(0)
    s = io.RandomSampler(range(3), replacement=True, num_samples=50)
    drawn = list(s)
    assert len(s) == 50 and len(drawn) == 50 and set(drawn) <= {0, 1, 2}
    with pytest.raises(ValueError, match="replacement is False"):
        io.RandomSampler(range(3), num_samples=5)  # more than len without replacement
    with pytest.raises(TypeError, match="replacement"):
        io.RandomSampler(range(3), replacement=1)


def test_random_sampler_generator_forms():
    assert list(io.RandomSampler(range(3), generator=iter([2, 0, 1]))) == [2, 0, 1]
    a = list(io.RandomSampler(range(9), generator=np.random.default_rng(3)))
    b = list(io.RandomSampler(range(9), generator=np.random.default_rng(3)))
    assert a == b and sorted(a) == list(range(9))


def test_weighted_random_sampler():
    paddle.seed(1)
    s = io.WeightedRandomSampler([0.0, 3.0, 1.0], num_samples=400)
    counts = np.bincount(list(s), minlength=3)
    assert len(s) == 400 and counts[0] == 0 and 2 * counts[2] < counts[1]
    no_repl = list(io.WeightedRandomSampler([1, 1, 1, 0], 3, replacement=False))
    assert sorted(no_repl) == [0, 1, 2]
    with pytest.raises(ValueError, match="num_samples"):
        io.WeightedRandomSampler([1, 1], 3, replacement=False)
    with pytest.raises(ValueError, match="1-D"):
        io.WeightedRandomSampler([[1, 1]], 2)
    with pytest.raises(ValueError, match="positive"):
        io.WeightedRandomSampler([1, 1], 0)


def test_subset_random_sampler():
    paddle.seed(4)
    s = io.SubsetRandomSampler([5, 9, 11, 20])
    out = list(s)
    assert sorted(out) == [5, 9, 11, 20] and len(s) == 4
    with pytest.raises(ValueError):
        io.SubsetRandomSampler([])


def test_batch_sampler_from_dataset_and_sampler():
    assert list(io.BatchSampler(dataset=range(5), batch_size=2)) == [[0, 1], [2, 3], [4]]
    bs = io.BatchSampler(dataset=range(5), batch_size=2, drop_last=True)
    assert list(bs) == [[0, 1], [2, 3]] and len(bs) == 2
    assert len(io.BatchSampler(dataset=range(5), batch_size=2)) == 3
    bs = io.BatchSampler(sampler=io.SequenceSampler(range(3)), batch_size=3)
    assert list(bs) == [[0, 1, 2]]
    paddle.seed(5)
    shuffled = [i for b in io.BatchSampler(dataset=range(8), shuffle=True, batch_size=3)
                for i in b]
    assert sorted(shuffled) == list(range(8)) and shuffled != list(range(8))


@pytest.mark.parametrize("kwargs, match", [
    (dict(), "either dataset or sampler"),
    (dict(dataset=range(3), sampler=io.SequenceSampler(range(3))), "both"),
    (dict(sampler=io.SequenceSampler(range(3)), shuffle=True), "shuffle"),
    (dict(dataset=range(3), batch_size=0), "batch_size"),
    (dict(dataset=range(3), drop_last=1), "drop_last"),
])
def test_batch_sampler_argument_checks(kwargs, match):
    with pytest.raises(AssertionError, match=match):
        io.BatchSampler(**kwargs)


def _all_ranks(n, batch_size, nranks, **kw):
    return [list(io.DistributedBatchSampler(range(n), batch_size, num_replicas=nranks,
                                            rank=r, **kw)) for r in range(nranks)]


def test_distributed_batch_sampler_pads_and_partitions():
    ranks = _all_ranks(10, 2, 3)
    # 10 samples over 3 ranks -> 4 each, padded with indices 0 and 1
    assert ranks == [[[0, 1], [6, 7]], [[2, 3], [8, 9]], [[4, 5], [0, 1]]]
    flat = sorted(i for r in ranks for b in r for i in b)
    assert flat == sorted(list(range(10)) + [0, 1])
    s = io.DistributedBatchSampler(range(10), 2, num_replicas=3, rank=0)
    assert len(s) == 2


def test_distributed_batch_sampler_tail_split_and_drop_last():
    ranks = _all_ranks(5, 2, 2)
    assert ranks == [[[0, 1], [4]], [[2, 3], [0]]]
    ranks = _all_ranks(5, 2, 2, drop_last=True)
    assert ranks == [[[0, 1]], [[2, 3]]]
    assert len(io.DistributedBatchSampler(range(5), 2, num_replicas=2, rank=0,
                                          drop_last=True)) == 1


def test_distributed_batch_sampler_shuffle_is_per_epoch_and_shared():
    def order(rank, epoch):
        s = io.DistributedBatchSampler(range(12), 3, num_replicas=2, rank=rank, shuffle=True)
        s.set_epoch(epoch)
        return [i for b in s for i in b]
    e0 = order(0, 0) + order(1, 0)
    assert sorted(e0) == list(range(12)) and e0 != list(range(12))
    assert order(0, 0) == order(0, 0)
    assert order(0, 1) != order(0, 0)
    s = io.DistributedBatchSampler(range(12), 3, shuffle=True)
    first, second = list(s), list(s)
    assert first != second and s.epoch == 2  # the epoch advances after each pass


def test_distributed_batch_sampler_env_defaults(monkeypatch):
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    monkeypatch.setenv("PADDLE_TRAINER_ID", "1")
    s = io.DistributedBatchSampler(range(4), 1)
    assert s.nranks == 2 and s.local_rank == 1 and list(s) == [[1], [3]]
    with pytest.raises(AssertionError, match="rank"):
        io.DistributedBatchSampler(range(4), 1, num_replicas=2, rank=2)


def test_random_sampler_num_samples_without_replacement_is_a_partial_permutation():
    # Paddle 3.3.1: allowed, at most len(data_source)
    data = list(range(10))
    sampler = paddle.io.RandomSampler(data, num_samples=7, replacement=False)
    got = list(sampler)
    assert len(sampler) == 7 and len(got) == 7 and len(set(got)) == 7
    with pytest.raises(ValueError, match="smaller than or equal"):
        paddle.io.RandomSampler(data, num_samples=15, replacement=False)


def test_weighted_sampler_checks_weight_values_when_iterating():
    """Paddle 3.3.1 builds the sampler and asserts when sampling starts."""
    from sampan.io import WeightedRandomSampler
    zeros = WeightedRandomSampler(np.zeros(10, "float32"), 10, True)
    with pytest.raises(AssertionError, match="not all zero"):
        list(zeros)
    few = WeightedRandomSampler(np.array([1.0, 0, 0, 0, 2.0]), 3, False)
    with pytest.raises(ValueError, match="fewer non-zero weights"):
        iter(few)
