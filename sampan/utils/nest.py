"""Nested structures (paddle.utils.flatten / pack_sequence_as / map_structure /
assert_same_structure): lists, tuples (named ones too) and dicts of leaves. Dict entries are
visited in sorted key order, as Paddle does; anything else (str included) is a leaf.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

__all__ = ["flatten", "pack_sequence_as", "map_structure", "assert_same_structure"]


def is_sequence(value) -> bool:
    """A list, tuple or dict (one level of nesting); strings are leaves."""
    return isinstance(value, (list, tuple, Mapping))


def _children(value) -> list:
    if isinstance(value, Mapping):
        return [value[k] for k in sorted(value)]
    return list(value)


def flatten(nest) -> list:
    """The leaves of `nest`, depth first (dict values by sorted key).

    Examples:
        >>> import sampan as paddle
        >>> paddle.utils.flatten([1, (2, {'b': 4, 'a': 3})])
        [1, 2, 3, 4]
    """
    if not is_sequence(nest):
        return [nest]
    return [leaf for child in _children(nest) for leaf in flatten(child)]


def _rebuild(like, items: list):
    """A container of `like`'s kind holding `items` (dicts keep their keys)."""
    if isinstance(like, Mapping):
        return type(like)((k, v) for k, v in zip(sorted(like), items))
    if isinstance(like, tuple) and hasattr(like, "_fields"):     # a namedtuple
        return type(like)(*items)
    return type(like)(items)


def _pack(structure, flat: list, start: int) -> tuple:
    if not is_sequence(structure):
        return flat[start], start + 1
    items = []
    for child in _children(structure):
        item, start = _pack(child, flat, start)
        items.append(item)
    return _rebuild(structure, items), start


def pack_sequence_as(structure, flat_sequence):
    """`flat_sequence`'s values in the nesting of `structure` (the inverse of flatten).

    Examples:
        >>> import sampan as paddle
        >>> paddle.utils.pack_sequence_as([0, (0, 0)], [1, 2, 3])
        [1, (2, 3)]
    """
    flat = list(flat_sequence)
    need = len(flatten(structure))
    if len(flat) != need:
        raise ValueError(f"pack_sequence_as: structure has {need} leaves but flat_sequence "
                         f"has {len(flat)} values")
    return _pack(structure, flat, 0)[0]


def map_structure(func: Callable, *structure) -> Any:
    """Apply `func` to the leaves of one or more structures of the same nesting.

    Examples:
        >>> import sampan as paddle
        >>> paddle.utils.map_structure(lambda a, b: a + b, {'x': 1, 'y': [2]}, {'x': 10, 'y': [20]})
        {'x': 11, 'y': [22]}
    """
    if not structure:
        raise ValueError("map_structure: at least one structure is required")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=False)
    leaves = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*args) for args in zip(*leaves)])


class _StructureError(ValueError, TypeError):
    """Structures differ: Paddle raises ValueError for nesting, TypeError for kinds."""


def _compare(a, b, check_types: bool, path: str) -> None:
    if is_sequence(a) != is_sequence(b):
        raise _StructureError(f"assert_same_structure: at {path or 'the top'} one structure "
                              f"has a {type(a).__name__} and the other a {type(b).__name__}")
    if not is_sequence(a):
        return
    if check_types and type(a) is not type(b):
        raise _StructureError(f"assert_same_structure: at {path or 'the top'} the kinds "
                              f"differ: {type(a).__name__} vs {type(b).__name__}")
    if isinstance(a, Mapping) and isinstance(b, Mapping) and sorted(a) != sorted(b):
        raise _StructureError(f"assert_same_structure: at {path or 'the top'} the dict keys "
                              f"differ: {sorted(a)} vs {sorted(b)}")
    ca, cb = _children(a), _children(b)
    if len(ca) != len(cb):
        raise _StructureError(f"assert_same_structure: at {path or 'the top'} the lengths "
                              f"differ: {len(ca)} vs {len(cb)}")
    for i, (x, y) in enumerate(zip(ca, cb)):
        _compare(x, y, check_types, f"{path}[{i}]")


def assert_same_structure(nest1, nest2, check_types: bool = True) -> None:
    """Raise ValueError unless nest1 and nest2 nest the same way (and, with `check_types`,
    use the same container kinds).

    Examples:
        >>> import sampan as paddle
        >>> paddle.utils.assert_same_structure([1, (2, 3)], [4, (5, 6)])
    """
    _compare(nest1, nest2, check_types, "")
