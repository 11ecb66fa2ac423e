"""DataLoader in the main process (num_workers=0): batching, collate, arguments."""
import numpy as np
import pytest

import sampan as paddle
import sampan.io as io


class Pairs(io.Dataset):
    """Sample i: (float32 [3] filled with i, python int i)."""

    def __init__(self, n=7):
        self.n = n

    def __getitem__(self, idx):
        return np.full([3], idx, dtype="float32"), idx

    def __len__(self):
        return self.n


class Mixed(io.Dataset):
    def __getitem__(self, idx):
        return {"x": paddle.to_tensor([idx, idx]), "f": float(idx) / 2, "b": idx % 2 == 0,
                "name": f"s{idx}", "nested": [np.int32(idx), (idx, np.float64(idx))]}

    def __len__(self):
        return 4


class Stream(io.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            yield np.array([i], dtype="int64")


def test_batches_are_tensors_in_order_with_len():
    loader = io.DataLoader(Pairs(7), batch_size=3)
    assert len(loader) == 3
    batches = list(loader)
    assert len(batches) == 3
    x, y = batches[0]
    assert isinstance(x, paddle.Tensor) and x.shape == [3, 3] and x.dtype == paddle.float32
    assert y.dtype == paddle.int64 and y.numpy().tolist() == [0, 1, 2]
    assert batches[2][1].numpy().tolist() == [6]


def test_drop_last_and_callable_loader():
    loader = io.DataLoader(Pairs(7), batch_size=3, drop_last=True)
    assert len(loader) == 2
    assert [b[1].numpy().tolist() for b in loader()] == [[0, 1, 2], [3, 4, 5]]


def test_default_collate_nested_dtypes():
    batch = next(iter(io.DataLoader(Mixed(), batch_size=2)))
    assert batch["x"].shape == [2, 2] and batch["x"].dtype == paddle.int64
    # Python floats collate to float64, as in Paddle (np.array of the floats)
    assert batch["f"].dtype == paddle.float64 and batch["f"].numpy().tolist() == [0.0, 0.5]
    assert batch["b"].dtype == paddle.bool
    assert batch["name"] == ["s0", "s1"]
    n0, (n1, n2) = batch["nested"]
    assert n0.dtype == paddle.int32 and n1.dtype == paddle.int64
    assert n2.dtype == paddle.float64


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="fields number"):
        io.default_collate_fn([(1, 2), (1, 2, 3)])
    with pytest.raises(TypeError, match="object"):
        io.default_collate_fn([object(), object()])


def test_shuffle_reproducible_with_seed():
    def order(seed):
        paddle.seed(seed)
        return [int(v) for b in io.DataLoader(Pairs(9), batch_size=2, shuffle=True)
                for v in b[1].numpy()]
    a = order(3)
    assert sorted(a) == list(range(9)) and a != list(range(9))
    assert order(3) == a
    assert order(4) != a


def test_batch_size_none_returns_samples_as_tensors():
    loader = io.DataLoader(Pairs(3), batch_size=None)
    assert len(loader) == 3
    items = list(loader)
    x, y = items[2]
    assert isinstance(x, paddle.Tensor) and x.shape == [3] and y == 2


def test_custom_batch_sampler_and_collate_fn():
    bs = io.BatchSampler(sampler=[4, 0, 2], batch_size=2)
    loader = io.DataLoader(Pairs(5), batch_sampler=bs,
                           collate_fn=lambda samples: np.array([s[1] for s in samples]))
    assert len(loader) == 2
    out = list(loader)
    assert isinstance(out[0], paddle.Tensor)
    assert [b.numpy().tolist() for b in out] == [[4, 0], [2]]


def test_iterable_dataset_batches_and_len_error():
    loader = io.DataLoader(Stream(5), batch_size=2)
    assert [b.numpy().ravel().tolist() for b in loader] == [[0, 1], [2, 3], [4]]
    dropped = io.DataLoader(Stream(5), batch_size=2, drop_last=True)
    assert [b.numpy().ravel().tolist() for b in dropped] == [[0, 1], [2, 3]]
    unbatched = io.DataLoader(Stream(2), batch_size=None)
    assert [b.numpy().tolist() for b in unbatched] == [[0], [1]]
    with pytest.raises(ValueError, match="IterableDataset"):
        len(loader)


def test_return_dict_with_feed_list():
    class Var:
        def __init__(self, name):
            self.name = name
    loader = io.DataLoader(Pairs(2), feed_list=[Var("img"), Var("label")], return_list=False,
                           batch_size=2)
    batch = next(iter(loader))
    assert set(batch) == {"img", "label"} and batch["label"].numpy().tolist() == [0, 1]


@pytest.mark.parametrize("kwargs, match", [
    (dict(num_workers=-1), "num_workers"),
    (dict(timeout=-1), "timeout"),
    (dict(batch_size=0), "batch_size"),
    (dict(prefetch_factor=0), "prefetch_factor"),
    (dict(batch_sampler=io.BatchSampler(dataset=range(3)), batch_size=2), "batch_sampler"),
])
def test_argument_checks(kwargs, match):
    with pytest.raises(AssertionError, match=match):
        io.DataLoader(Pairs(3), **kwargs)


def test_iterable_dataset_rejects_shuffle():
    with pytest.raises(AssertionError, match="shuffle"):
        io.DataLoader(Stream(3), shuffle=True)


def test_get_worker_info_is_none_in_main_process():
    assert io.get_worker_info() is None


def test_reader_buffer_size_is_accepted_in_paddle_position_and_checked():
    # Paddle 3.3.1's signature: ..., use_buffer_reader, reader_buffer_size, prefetch_factor, ...
    names = list(__import__("inspect").signature(io.DataLoader.__init__).parameters)
    assert names.index("reader_buffer_size") == names.index("use_buffer_reader") + 1
    loader = io.DataLoader(Pairs(4), batch_size=2, reader_buffer_size=4)
    assert loader.reader_buffer_size == 4 and len(list(loader)) == 2
    with pytest.raises(AssertionError, match="reader_buffer_size should be a positive integer"):
        io.DataLoader(Pairs(4), reader_buffer_size=0)
