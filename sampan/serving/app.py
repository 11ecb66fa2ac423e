"""The ASGI app of sampan.serving (Starlette): /health, /metrics, /v1/models/<name> and
/v1/models/<name>:predict over a ServedModel, with dynamic batching, a concurrency limit
(503 + Retry-After), a body-size limit (413) and every error as a JSON body.

Imports `serving.*` only; starlette is imported when the app is made.
"""
from __future__ import annotations

import contextlib
import json
import sys
import time

from .batcher import Batcher
from .codec import decode_json, decode_npy, encode_json, encode_npy
from .errors import RequestError
from .metrics import Metrics

__all__ = ["create_app"]

NPY = "application/x-npy"
# curl -d sends form-urlencoded by default: read such bodies as JSON too
_JSON_TYPES = ("", "application/json", "application/x-www-form-urlencoded", "text/plain")
_OFFLOAD_BYTES = 1 << 20   # bodies above this are decoded in a thread, not in the event loop


class _State:
    """What the endpoints share; `received`/`answered` count every HTTP request."""

    def __init__(self, model, opts: dict) -> None:
        self.model = model
        self.opts = opts
        self.metrics = Metrics(opts["max_batch_size"])
        self.batcher = None
        self.in_flight = 0
        self.received = self.answered = 0


def _json(body, status: int = 200, headers: dict | None = None):
    from starlette.responses import Response
    return Response(json.dumps(body), status, headers=headers, media_type="application/json")


def _endpoint(path: str) -> str:
    if path.startswith("/v1/models/"):
        return "predict" if path.endswith(":predict") else "metadata"
    return {"/health": "health", "/metrics": "metrics"}.get(path, "other")


def _metrics_middleware(app, state: _State):
    """Counts and times every HTTP request (status code from the response start)."""
    async def middleware(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        t0, status = time.perf_counter(), [500]
        state.received += 1

        async def sending(message):
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                state.answered += 1
                state.metrics.observe(_endpoint(scope["path"]), status[0],
                                      time.perf_counter() - t0)
        await app(scope, receive, sending)
    return middleware


async def _read_body(request, opts: dict) -> bytes:
    limit, length = opts["max_body_bytes"], request.headers.get("content-length", "")
    too_big = RequestError(413, "body_too_large", f"the body exceeds --max-body-mb "
                           f"{opts['max_body_mb']:g} MiB ({limit} bytes)")
    if length.isdigit() and int(length) > limit:
        raise too_big
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_big
        chunks.append(chunk)
    return b"".join(chunks)


async def _decode(request, state: _State) -> tuple:
    from starlette.concurrency import run_in_threadpool
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype in (NPY, "application/octet-stream"):
        decode = decode_npy
    elif ctype in _JSON_TYPES or ctype.endswith("+json"):
        decode = decode_json
    else:
        raise RequestError(415, "unsupported_media_type", f"Content-Type {ctype!r} is not "
                           f"supported; send application/json or {NPY}")
    body = await _read_body(request, state.opts)
    if len(body) > _OFFLOAD_BYTES:
        return await run_in_threadpool(decode, body, state.model)
    return decode(body, state.model)


async def _predict(request, state: _State):
    from starlette.responses import Response
    limit = state.opts["max_concurrency"]
    if state.in_flight >= limit:
        raise RequestError(503, "overloaded", f"the server is answering its maximum of "
                           f"{limit} concurrent requests (--max-concurrency); retry later",
                           {"Retry-After": "1"})
    state.in_flight += 1
    state.metrics.in_flight.inc()
    try:
        feed, rows = await _decode(request, state)
        outputs = await state.batcher.submit(feed, rows)
        if NPY in request.headers.get("accept", ""):
            return Response(encode_npy(outputs, state.model), media_type=NPY)
        return Response(encode_json(outputs), media_type="application/json")
    finally:
        state.in_flight -= 1
        state.metrics.in_flight.dec()


def _models_route(state: _State):
    model = state.model

    async def models(request):
        rest = request.path_params["rest"]
        name, sep, verb = rest.partition(":")
        if name != model.name:
            raise RequestError(404, "unknown_model", f"no model named {name!r}; this server "
                               f"serves '{model.name}'")
        allowed = "POST" if verb == "predict" else "GET"
        if sep and verb != "predict":
            raise RequestError(404, "unknown_verb", f"unknown verb {verb!r}; use "
                               f"/v1/models/{model.name}:predict")
        if request.method != allowed:
            raise RequestError(405, "method_not_allowed", f"{request.method} is not allowed "
                               f"on {request.url.path}; use {allowed}", {"Allow": allowed})
        if verb == "predict":
            return await _predict(request, state)
        return _json({"name": model.name, "inputs": model.inputs, "outputs": model.outputs,
                      "max_batch_size": state.batcher.max_rows})
    return models


async def _health(request):
    model = request.app.state.serving.model
    return _json({"status": "ok", "model": model.name, "batching": model.batchable})


async def _metrics(request):
    from starlette.responses import Response
    body, ctype = request.app.state.serving.metrics.render()
    return Response(body, headers={"Content-Type": ctype})


async def _request_error(request, exc: RequestError):
    return _json(exc.body(), exc.status, exc.headers)


async def _http_error(request, exc):
    """Starlette's own 404/405 (unknown path, method) as JSON errors."""
    what = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    msg = f"{request.method} {request.url.path}: {exc.detail}"
    if exc.status_code == 404:
        name = request.app.state.serving.model.name
        msg += f"; endpoints: GET /health, GET /metrics, GET /v1/models/{name}, " \
               f"POST /v1/models/{name}:predict"
    return _json(RequestError(exc.status_code, what, msg).body(), exc.status_code,
                 exc.headers)


async def _server_error(request, exc: Exception):
    err = RequestError(500, "internal_error", f"{type(exc).__name__}: {exc}")
    return _json(err.body(), 500)


@contextlib.asynccontextmanager
async def _lifespan(app):
    """Start the batcher; at shutdown (after uvicorn drained the connections) stop it and
    say how many requests were answered."""
    state, opts = app.state.serving, app.state.serving.opts
    state.batcher = Batcher(state.model, opts["max_batch_size"], opts["batch_timeout_s"],
                            opts["workers"], state.metrics.batch_size.observe)
    yield
    await state.batcher.close()
    print(f"sampan.serving: stopped; answered {state.answered} of {state.received} "
          f"requests received", file=sys.stderr, flush=True)


def create_app(model, max_batch_size: int = 32, batch_timeout_ms: float = 2.0,
               max_concurrency: int = 64, max_body_mb: float = 16.0, workers: int = 1):
    """The ASGI app serving `model` (a ServedModel from `load_model`).

    Args:
        model (ServedModel): the loaded model.
        max_batch_size (int): most rows merged into one model run (default 32).
        batch_timeout_ms (float): longest wait of a request for its batch (default 2).
        max_concurrency (int): predict requests between arrival and answer; the excess
            gets 503 with Retry-After (default 64).
        max_body_mb (float): largest request body in MiB; larger gets 413 (default 16).
        workers (int): model runs at once, one thread and Predictor clone each (default 1).

    Returns:
        An ASGI app (Starlette) whose lifespan starts and drains the batcher.

    Examples:
        >>> import uvicorn                                    # doctest: +SKIP
        >>> from sampan.serving import create_app, load_model
        >>> model = load_model("my_model/inference")          # doctest: +SKIP
        >>> app = create_app(model, max_batch_size=16)        # doctest: +SKIP
        >>> uvicorn.run(app, host="127.0.0.1", port=8866)    # doctest: +SKIP
    """
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.routing import Route

    opts = {"max_batch_size": max_batch_size, "batch_timeout_s": batch_timeout_ms / 1000,
            "workers": workers, "max_concurrency": max_concurrency,
            "max_body_mb": max_body_mb, "max_body_bytes": int(max_body_mb * 2**20)}
    state = _State(model, opts)
    routes = [Route("/health", _health, methods=["GET"]),
              Route("/metrics", _metrics, methods=["GET"]),
              Route("/v1/models/{rest:path}", _models_route(state),
                    methods=["GET", "POST", "PUT", "DELETE", "PATCH"])]
    app = Starlette(routes=routes, lifespan=_lifespan, exception_handlers={
        RequestError: _request_error, HTTPException: _http_error, Exception: _server_error})
    app.state.serving = state
    return _metrics_middleware(app, state)
