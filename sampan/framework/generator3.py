"""paddle.Generator (Paddle 3.x): the random generator of a device. sampan has one
generator for every device, so `paddle.Generator(device)` returns it after checking the
device as Paddle 3.3.1 does. Imports `framework` only.
"""
from __future__ import annotations

from . import place as _place
from . import random as _random


class Generator:
    """`paddle.Generator(device=None)`: the default random generator of `device` (None, 'cpu',
    'gpu:N', a Place or a GPU id); seeding it seeds every random op, as paddle.seed.

    Examples:
        >>> import sampan as paddle
        >>> g = paddle.Generator()
        >>> g is paddle.Generator("cpu")
        True
        >>> _ = g.manual_seed(7)
        >>> a = paddle.rand([2])
        >>> _ = g.manual_seed(7)
        >>> bool((paddle.rand([2]) == a).all())
        True
    """

    def __new__(cls, device=None):
        _check(device)
        return _random.default_generator


def _check(device) -> None:
    if device is None or isinstance(device, _place.Place):
        return
    if isinstance(device, int) and not isinstance(device, bool):
        if not _place.is_compiled_with_cuda() and device != 0:
            raise ValueError(f"paddle.Generator: CPU device only supports index 0, got "
                             f"{device}")
        return
    try:
        known = isinstance(device, str) and _place._parse_device(device) is not None
    except ValueError:
        known = False
    if not known:
        raise ValueError(f"paddle.Generator: the device must be a string like 'cpu', 'gpu' "
                         f"or 'gpu:x', got {device!r}")
    if device.startswith("gpu") and not _place.is_compiled_with_cuda():
        raise ValueError(f"paddle.Generator: the device should not be {device!r}, since "
                         f"PaddlePaddle is not compiled with CUDA")
