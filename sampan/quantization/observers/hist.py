"""Histogram observers: a percentile threshold (HistObserver) and the KL-divergence threshold
of TensorRT-style calibration (KLObserver). Statistics of |x| are gathered on the host."""
from __future__ import annotations

import numpy as np

from ... import tensor as T
from ..base import ObserverFactory
from .abs_max import _Observer


class _HistLayer(_Observer):
    """Keeps a histogram of |x| over [0, top]; a batch beyond top widens the range by an
    integer factor and merges old bins (so no counts are split)."""

    def __init__(self, layer=None, quant_bits: int = 8, bins_count: int = 2048) -> None:
        super().__init__(quant_bits)
        if not isinstance(bins_count, int) or bins_count < 16:
            raise ValueError(f"{type(self).__name__}: bins_count must be an int >= 16, got "
                             f"{bins_count!r}")
        self._bins = bins_count
        self._hist = None
        self._top = 0.0

    def _observe(self, x) -> None:
        a = np.abs(x.numpy().astype("float64")).ravel()
        cur = float(a.max()) if a.size else 0.0
        if self._hist is None:
            self._top = cur if cur > 0 else 1e-8
            self._hist = np.zeros(self._bins, "float64")
        elif cur > self._top:
            factor = int(np.ceil(cur / self._top))
            pad = (-self._bins) % factor
            merged = np.concatenate([self._hist, np.zeros(pad)]).reshape(-1, factor).sum(1)
            self._hist = np.concatenate([merged, np.zeros(self._bins - merged.size)])
            self._top *= factor
        self._hist += np.histogram(a, bins=self._bins, range=(0.0, self._top))[0]
        self._scale = None

    def _width(self) -> float:
        return self._top / self._bins

    def cal_thresholds(self) -> None:
        self._require_data(self._hist)
        self._scale = T.to_tensor(np.asarray([self._threshold()], "float32"))


class HistObserverLayer(_HistLayer):
    """scale = the `percent` quantile of |x| (upper edge of the bin that reaches it)."""

    def __init__(self, layer=None, quant_bits: int = 8, bins_count: int = 2048,
                 percent: float = 0.99999) -> None:
        super().__init__(layer, quant_bits, bins_count)
        if not 0.0 < percent <= 1.0:
            raise ValueError(f"HistObserver: percent must be in (0, 1], got {percent!r}")
        self._percent = float(percent)

    def _threshold(self) -> float:
        cdf = np.cumsum(self._hist) / max(self._hist.sum(), 1.0)
        idx = int(np.searchsorted(cdf, self._percent))
        return (min(idx, self._bins - 1) + 1) * self._width()


_EPS = 1e-4


def kl_threshold(hist: np.ndarray, width: float, levels: int) -> float:
    """The clipping threshold whose `levels`-level quantized distribution is closest (KL) to
    the histogram: outliers beyond it are folded into the last bin (TensorRT's method)."""
    best, best_i = np.inf, len(hist)
    for i in range(levels, len(hist) + 1):
        p = hist[:i].copy()
        p[-1] += hist[i:].sum()
        # q: each of `levels` chunks of hist[:i] spreads its count over its nonzero bins
        starts = np.array([c[0] for c in np.array_split(np.arange(i), levels)])
        lengths = np.diff(np.append(starts, i))
        nz = hist[:i] > 0
        sums = np.add.reduceat(hist[:i], starts)
        counts = np.add.reduceat(nz.astype("float64"), starts)
        q = np.repeat(sums / np.maximum(counts, 1.0), lengths) * nz
        ps, qs = p.sum(), q.sum()
        if ps == 0 or qs == 0:
            continue
        p, q = p / ps, q / qs
        mask = p > 0
        # smoothing (as TensorRT): bins that hold only folded outliers get a tiny q
        q = np.where(mask & (q == 0), _EPS, q)
        kl = float((p[mask] * np.log(p[mask] / q[mask])).sum())
        if kl < best:
            best, best_i = kl, i
    return (best_i + 0.5) * width


class KLObserverLayer(_HistLayer):
    """scale = the KL-divergence threshold over the histogram of |x| (quant_bits levels)."""

    def _threshold(self) -> float:
        levels = 2 ** (self._quant_bits - 1)
        return kl_threshold(self._hist, self._width(), levels)


class HistObserver(ObserverFactory):
    """Percentile (histogram) observer factory.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization.observers import HistObserver
        >>> ob = HistObserver(percent=0.5, bins_count=100)._instance(None)
        >>> _ = ob(paddle.arange(1, 101, dtype="float32"))   # 50 lies in the bin [50, 51)
        >>> float(ob.scales())
        51.0
    """

    layer_class = HistObserverLayer

    def __init__(self, quant_bits: int = 8, bins_count: int = 2048,
                 percent: float = 0.99999) -> None:
        super().__init__(quant_bits=quant_bits, bins_count=bins_count, percent=percent)


class KLObserver(ObserverFactory):
    """KL-divergence (entropy calibration) observer factory.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> from sampan.quantization.observers import KLObserver
        >>> x = np.concatenate([np.random.default_rng(0).normal(0, 1, 20000), [40.0]])
        >>> ob = KLObserver()._instance(None)
        >>> _ = ob(paddle.to_tensor(x.astype("float32")))
        >>> float(ob.scales()) < 10.0     # the lone outlier at 40 is clipped
        True
    """

    layer_class = KLObserverLayer

    def __init__(self, quant_bits: int = 8, bins_count: int = 2048) -> None:
        super().__init__(quant_bits=quant_bits, bins_count=bins_count)
