"""paddle.reader decorators: values and order as Paddle's (checked against Paddle 3.3.1)."""
import pytest

import sampan as paddle

reader = paddle.reader


def count(n):
    return lambda: iter(range(n))


def test_cache_map_chain_firstn():
    assert list(reader.cache(count(3))()) == [0, 1, 2]
    assert list(reader.map_readers(lambda a, b: a + b, count(3), count(3))()) == [0, 2, 4]
    assert list(reader.chain(count(2), count(3))()) == [0, 1, 0, 1, 2]
    assert list(reader.firstn(count(10), 4)()) == [0, 1, 2, 3]


def test_compose_flattens_and_checks_alignment():
    pairs = lambda: iter([(1, 2), (3, 4)])  # noqa: E731
    assert list(reader.compose(pairs, count(2))()) == [(1, 2, 0), (3, 4, 1)]
    with pytest.raises(reader.ComposeNotAligned):
        list(reader.compose(count(2), count(3))())
    assert list(reader.compose(count(2), count(3), check_alignment=False)()) == [(0, 0), (1, 1)]


def test_shuffle_keeps_items_within_buffers():
    out = list(reader.shuffle(count(10), 5)())
    assert sorted(out[:5]) == [0, 1, 2, 3, 4] and sorted(out[5:]) == [5, 6, 7, 8, 9]
    assert list(reader.shuffle(count(5), 0)()) == [0, 1, 2, 3, 4]  # Paddle: no shuffling
    with pytest.raises(ValueError, match="buf_size must be a non-negative int, got -1"):
        reader.shuffle(count(3), -1)


def test_buffered_and_xmap():
    assert list(reader.buffered(count(7), 2)()) == list(range(7))
    assert list(reader.xmap_readers(lambda x: x * x, count(20), 3, 4, order=True)()) == \
        [i * i for i in range(20)]
    assert sorted(reader.xmap_readers(lambda x: -x, count(9), 2, 2)()) == \
        sorted(-i for i in range(9))


def test_multiprocess_reader_merges_all_samples():
    out = list(reader.multiprocess_reader([count(5), lambda: iter(range(10, 13))])())
    assert sorted(out) == [0, 1, 2, 3, 4, 10, 11, 12]
