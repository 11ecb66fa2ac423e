"""Fake quanters for quantization-aware training."""
from .abs_max import (FakeQuanterChannelWiseAbsMax, FakeQuanterChannelWiseAbsMaxLayer,  # noqa: F401
                      FakeQuanterWithAbsMaxObserver, FakeQuanterWithAbsMaxObserverLayer)

__all__ = ["FakeQuanterWithAbsMaxObserver", "FakeQuanterChannelWiseAbsMax"]
