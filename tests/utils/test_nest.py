"""paddle.utils nested-structure helpers: flatten, pack_sequence_as, map_structure,
assert_same_structure (dicts by sorted key, namedtuples kept)."""
import collections

import pytest

import sampan as paddle

Pair = collections.namedtuple("Pair", "a b")


def test_flatten_and_pack_round_trip():
    nest = [1, (2, {"b": 4, "a": 3}), Pair(5, [6]), "leaf"]
    flat = paddle.utils.flatten(nest)
    assert flat == [1, 2, 3, 4, 5, 6, "leaf"]
    back = paddle.utils.pack_sequence_as(nest, [v * 10 if isinstance(v, int) else v
                                                for v in flat])
    assert back == [10, (20, {"a": 30, "b": 40}), Pair(50, [60]), "leaf"]
    assert isinstance(back[2], Pair)
    with pytest.raises(ValueError, match="has 7 leaves"):
        paddle.utils.pack_sequence_as(nest, [1, 2])


def test_map_structure_and_assert_same_structure():
    inputs = {"key1": 1, "key2": 2}
    outputs = paddle.utils.map_structure(lambda x: x + 1, inputs)
    assert outputs == {"key1": 2, "key2": 3}
    paddle.utils.assert_same_structure(inputs, outputs)
    assert paddle.utils.map_structure(lambda a, b: a * b, [1, (2,)], [3, (4,)]) == [3, (8,)]
    inputs["key3"] = 3
    with pytest.raises(ValueError, match="dict keys differ"):
        paddle.utils.assert_same_structure(inputs, outputs)
    with pytest.raises(ValueError, match="lengths differ"):
        paddle.utils.assert_same_structure([1, 2], [1])
    with pytest.raises(TypeError, match="kinds differ"):
        paddle.utils.assert_same_structure([1, 2], (1, 2))
    paddle.utils.assert_same_structure([1, 2], (1, 2), check_types=False)
