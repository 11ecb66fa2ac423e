"""Datasets and random_split (sampan.io.dataset)."""
import numpy as np
import pytest

import sampan as paddle
import sampan.io as io


class Squares(io.Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, idx):
        return np.array([idx * idx], dtype="int64"), idx

    def __len__(self):
        return self.n


class Stream(io.IterableDataset):
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


def test_dataset_base_requires_overrides():
    with pytest.raises(NotImplementedError, match="__getitem__"):
        io.Dataset()[0]
    with pytest.raises(NotImplementedError, match="__len__"):
        len(io.Dataset())
    with pytest.raises(NotImplementedError, match="__iter__"):
        iter(io.IterableDataset())


def test_iterable_dataset_has_no_len_or_getitem_but_lists():
    ds = Stream([1, 2, 3])
    with pytest.raises(RuntimeError, match="IterableDataset"):
        len(ds)
    with pytest.raises(RuntimeError, match="IterableDataset"):
        ds[0]
    assert list(ds) == [1, 2, 3]


def test_tensor_dataset_items_are_tensor_rows():
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(3, 2))
    y = paddle.to_tensor([7, 8, 9])
    ds = io.TensorDataset([x, y])
    assert len(ds) == 3
    xi, yi = ds[2]
    assert isinstance(xi, paddle.Tensor) and isinstance(yi, paddle.Tensor)
    np.testing.assert_array_equal(xi.numpy(), [4.0, 5.0])
    assert xi.dtype == paddle.float32 and int(yi) == 9


def test_tensor_dataset_rejects_mismatched_first_dim():
    with pytest.raises(AssertionError, match="1st dimension"):
        io.TensorDataset([paddle.to_tensor([1, 2]), paddle.to_tensor([1, 2, 3])])


def test_compose_dataset_concatenates_fields():
    ds = io.ComposeDataset([Squares(4), [10, 11, 12, 13]])
    assert len(ds) == 4
    arr, idx, extra = ds[3]
    assert arr.tolist() == [9] and idx == 3 and extra == 13


def test_compose_dataset_checks():
    with pytest.raises(AssertionError, match="same"):
        io.ComposeDataset([Squares(2), Squares(3)])
    with pytest.raises(AssertionError, match="IterableDataset"):
        io.ComposeDataset([Squares(2), Stream([1, 2])])
    with pytest.raises(AssertionError, match="empty"):
        io.ComposeDataset([])


def test_chain_dataset_iterates_in_turn():
    assert list(io.ChainDataset([Stream([1, 2]), Stream([3])])) == [1, 2, 3]
    with pytest.raises(AssertionError, match="IterableDataset"):
        io.ChainDataset([Squares(2)])


def test_subset_and_concat():
    sub = io.Subset(Squares(10), [7, 2])
    assert len(sub) == 2 and sub[0][1] == 7 and sub[1][1] == 2
    cat = io.ConcatDataset([Squares(2), Squares(3)])
    assert len(cat) == 5
    assert [cat[i][1] for i in range(5)] == [0, 1, 0, 1, 2]
    assert cat[-1][1] == 2 and cat[-5][1] == 0
    with pytest.raises(ValueError, match="exceed"):
        cat[-6]
    with pytest.raises(AssertionError, match="IterableDataset"):
        io.ConcatDataset([Stream([1])])


def test_random_split_lengths_partition_and_seed():
    paddle.seed(2023)
    a, b = io.random_split(range(10), [3, 7])
    assert len(a) == 3 and len(b) == 7
    assert sorted(list(a) + list(b)) == list(range(10))
    paddle.seed(2023)
    a2, _ = io.random_split(range(10), [3, 7])
    assert list(a2) == list(a)
    paddle.seed(7)
    a3, b3 = io.random_split(range(10), [3, 7])
    assert list(a3) + list(b3) != list(a) + list(b)


def test_random_split_fractions_give_out_remainder():
    parts = io.random_split(range(11), [0.5, 0.3, 0.2])
    # floor: 5, 3, 2 -> remainder 1 goes to the first split
    assert [len(p) for p in parts] == [6, 3, 2]
    assert sorted(sum((list(p) for p in parts), [])) == list(range(11))


def test_random_split_generator_and_errors():
    a, _ = io.random_split(range(6), [2, 4], generator=np.random.default_rng(0))
    b, _ = io.random_split(range(6), [2, 4], generator=np.random.default_rng(0))
    assert list(a) == list(b)
    with pytest.raises(ValueError, match="does not equal"):
        io.random_split(range(5), [2, 2])
