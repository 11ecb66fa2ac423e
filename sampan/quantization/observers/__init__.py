"""Observers for post-training quantization (and the weights of QAT)."""
from .abs_max import (AbsMaxChannelWiseWeightObserver, AbsmaxObserver,  # noqa: F401
                      MovingAverageAbsmaxObserver)
from .hist import HistObserver, KLObserver  # noqa: F401

__all__ = ["AbsmaxObserver", "MovingAverageAbsmaxObserver", "AbsMaxChannelWiseWeightObserver",
           "HistObserver", "KLObserver"]
