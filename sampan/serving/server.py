"""The `python -m sampan.serving` command: parse the options, load and warm up the model,
bind the socket, and run the app on uvicorn until SIGTERM/SIGINT, which stops accepting,
answers every request already received, and exits 0.

Imports `serving.*` only; uvicorn is imported when serving starts.
"""
from __future__ import annotations

import argparse
import signal
import socket

from .app import create_app
from .model import load_model

__all__ = ["main", "parse_args"]


def _number(kind, what: str, zero_ok: bool = False):
    """An argparse type: a `kind` number > 0 (>= 0 when `zero_ok`), else a message naming
    the option and the value."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a {kind.__name__}, got "
                                             f"{text!r}") from None
        if value < 0 or value == 0 and not zero_ok:
            raise argparse.ArgumentTypeError(f"{what} must be {'>=' if zero_ok else '>'} 0, "
                                             f"got {text!r}")
        return value
    return parse


def parse_args(argv=None) -> argparse.Namespace:
    """The command line of `python -m sampan.serving`."""
    p = argparse.ArgumentParser(prog="python -m sampan.serving", description="Serve a saved "
                                "sampan inference model (or an .onnx file) over HTTP.")
    p.add_argument("--model", required=True, help="path prefix of jit.save / "
                   "save_inference_model / Model.save(training=False) output, or an .onnx file")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8866, help="0: any free port (printed)")
    p.add_argument("--workers", type=_number(int, "--workers"), default=1,
                   help="model runs at once (threads, one Predictor clone each)")
    p.add_argument("--max-batch-size", type=_number(int, "--max-batch-size"), default=32)
    p.add_argument("--batch-timeout-ms", type=_number(float, "--batch-timeout-ms", True),
                   default=2.0)
    p.add_argument("--max-concurrency", type=_number(int, "--max-concurrency"), default=64)
    p.add_argument("--max-body-mb", type=_number(float, "--max-body-mb"), default=16.0)
    p.add_argument("--log-level", default="warning",
                   choices=["critical", "error", "warning", "info", "debug"])
    return p.parse_args(argv)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except (OSError, OverflowError) as e:   # OverflowError: a port outside 0-65535
        sock.close()
        raise SystemExit(f"sampan.serving: cannot listen on {host}:{port}: "
                         f"{getattr(e, 'strerror', None) or e}")
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def main(argv=None) -> int:
    """Run the server; returns the exit status."""
    args = parse_args(argv)
    try:
        import uvicorn
    except ImportError as e:
        raise SystemExit(f"sampan.serving needs starlette and uvicorn (pip install "
                         f"'sampan[serving]'): {e}")
    try:
        # parallelism comes from --workers; one onnxruntime thread per run avoids
        # workers x intra-op threads oversubscribing the cores
        model = load_model(args.model, threads=1)
    except (OSError, ValueError, RuntimeError, TypeError) as e:
        raise SystemExit(f"sampan.serving: cannot load --model {args.model!r}: {e}")
    app = create_app(model, args.max_batch_size, args.batch_timeout_ms, args.max_concurrency,
                     args.max_body_mb, args.workers)
    sock = _bind(args.host, args.port)
    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(app, log_level=args.log_level, access_log=False, lifespan="on",
                            timeout_graceful_shutdown=None)
    server = uvicorn.Server(config)
    # uvicorn re-raises the caught signal after its graceful shutdown; a no-op handler
    # makes that a clean exit 0 once every received request was answered
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *a: None)
    print(f"sampan.serving: serving model '{model.name}' on http://{host}:{port} "
          f"(POST /v1/models/{model.name}:predict)", flush=True)
    server.run(sockets=[sock])
    return 0 if server.started else 1
