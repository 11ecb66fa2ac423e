"""sampan.serving: HTTP serving of a saved inference model (`jit.save`,
`static.save_inference_model`, `Model.save(training=False)` output, or an exported `.onnx`
file) on Starlette/uvicorn, with dynamic batching, backpressure, JSON and .npy bodies and
Prometheus metrics. Run it as `python -m sampan.serving --model PATH`.

Sits on top of `inference` (ARCHITECTURE.md); starlette, uvicorn and prometheus_client are
imported only when an app is made or the server runs (the `serving` extra).
"""
from __future__ import annotations

from .app import create_app
from .model import ServedModel, load_model, model_name
from .server import main, parse_args

__all__ = ["ServedModel", "create_app", "load_model", "main", "model_name", "parse_args"]
