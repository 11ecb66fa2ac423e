"""DataLoader `places` on a device (the fake device): batches land on the place given, or on
the current device; host places keep them in host memory; bad places are refused."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan.backend.fake import FakeArray, FakePlace
from sampan.framework import place as _place
from sampan.io import DataLoader, TensorDataset

FAKE = FakePlace(0)


def _dataset():
    x = np.arange(24, dtype="float32").reshape(6, 4)
    return TensorDataset([paddle.to_tensor(x), paddle.to_tensor(np.arange(6))])


@pytest.mark.parametrize("num_workers", [0, 1])
def test_batches_on_the_given_place(num_workers):
    loader = DataLoader(_dataset(), places=[FAKE], batch_size=4, num_workers=num_workers)
    batches = list(loader)
    assert len(batches) == 2
    x, y = batches[0]
    assert x.place == FAKE and y.place == FAKE and isinstance(x._data, FakeArray)
    np.testing.assert_array_equal(x.numpy(), np.arange(16).reshape(4, 4))
    np.testing.assert_array_equal(batches[1][1].numpy(), [4, 5])


def test_batches_follow_the_current_device_and_feed_a_model():
    old = _place.current_place()
    _place.set_place(FAKE)
    try:
        model = paddle.nn.Linear(4, 2)
        for x, y in DataLoader(_dataset(), batch_size=3):
            assert x.place == FAKE
            model(x).sum().backward()   # no mixed-place error
        assert model.weight.grad.place == FAKE
    finally:
        _place.set_place(old)


def test_host_places_and_bad_places():
    for places in (None, "cpu", paddle.CPUPlace(), [paddle.CUDAPinnedPlace()]):
        x, _ = next(iter(DataLoader(_dataset(), places=places, batch_size=2)))
        assert isinstance(x._data, np.ndarray) and x.place == paddle.CPUPlace()
    with pytest.raises(ValueError, match="DataLoader: places must be .*'tpu:0'"):
        DataLoader(_dataset(), places="tpu:0")
    with pytest.raises(ValueError, match="empty"):
        DataLoader(_dataset(), places=[])
