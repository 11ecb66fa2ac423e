"""Prometheus metrics of one sampan.serving app (its own registry): requests and errors by
status code, request latency and executed batch sizes. Uses prometheus_client (lazy import).

Imports nothing from sampan.
"""
from __future__ import annotations

__all__ = ["Metrics"]

_LATENCY_BUCKETS = (.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10)


class Metrics:
    """The counters and histograms; `render()` is the /metrics body."""

    def __init__(self, max_batch_size: int) -> None:
        import prometheus_client as pc
        self._pc = pc
        pc.disable_created_metrics()   # process-wide: no *_created series next to counters
        self.registry = pc.CollectorRegistry()
        r = self.registry
        self.requests = pc.Counter("sampan_serving_requests", "HTTP requests answered, by "
                                   "endpoint and status code", ["endpoint", "code"], registry=r)
        self.errors = pc.Counter("sampan_serving_errors", "answers with a 4xx or 5xx status, "
                                 "by status code", ["code"], registry=r)
        self.latency = pc.Histogram("sampan_serving_request_duration_seconds", "time from "
                                    "arrival to answer, by endpoint", ["endpoint"],
                                    buckets=_LATENCY_BUCKETS, registry=r)
        buckets, b = [], 1
        while b < max_batch_size:
            buckets.append(b)
            b *= 2
        self.batch_size = pc.Histogram("sampan_serving_batch_size", "rows per executed model "
                                       "run (one observation per batch)",
                                       buckets=buckets + [max_batch_size], registry=r)
        self.in_flight = pc.Gauge("sampan_serving_in_flight_requests", "predict requests "
                                  "between arrival and answer", registry=r)

    def observe(self, endpoint: str, status: int, seconds: float) -> None:
        self.requests.labels(endpoint, str(status)).inc()
        if status >= 400:
            self.errors.labels(str(status)).inc()
        self.latency.labels(endpoint).observe(seconds)

    def render(self) -> tuple:
        """(body bytes, content type)."""
        return self._pc.generate_latest(self.registry), self._pc.CONTENT_TYPE_LATEST
