"""Request bodies to checked input arrays, and output arrays to response bodies, for
sampan.serving: JSON (`{"inputs": {name: nested list}}`) and `.npy` (one input / output).
Every refusal is a RequestError naming the input, what was expected and what was given.

Imports `serving.errors` only.
"""
from __future__ import annotations

import io
import json

import numpy as np

from .errors import RequestError

__all__ = ["decode_json", "decode_npy", "encode_json", "encode_npy"]


def _bad(code: str, message: str) -> RequestError:
    return RequestError(400, code, message)


def decode_json(body: bytes, model) -> tuple:
    """(feed {name: array}, rows) from a JSON body."""
    if not body.strip():
        raise _bad("empty_body", "the request body is empty; send JSON {\"inputs\": {...}} "
                   "or an application/x-npy array")
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError) as e:
        raise _bad("malformed_json", f"the body is not valid JSON: {e}") from None
    except RecursionError:
        raise _bad("malformed_json", "the body's JSON is nested too deeply") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("inputs"), dict):
        raise _bad("malformed_json", f"the body must be a JSON object {{\"inputs\": "
                   f"{{<input name>: <nested list>}}}}, got {_kind(doc)}")
    given = doc["inputs"]
    unknown = [k for k in given if k not in model.input_by_name]
    if unknown:
        raise _bad("unknown_input", f"unknown input(s) {unknown}; model '{model.name}' has "
                   f"inputs {list(model.input_by_name)}")
    feed = {name: _from_json(name, given.get(name, _MISSING), spec)
            for name, spec in model.input_by_name.items()}
    return feed, _rows(feed, model)


def decode_npy(body: bytes, model) -> tuple:
    """(feed, rows) from an .npy body (models with one input)."""
    if len(model.inputs) != 1:
        raise _bad("npy_needs_one_input", f"an application/x-npy body carries one array but "
                   f"model '{model.name}' has {len(model.inputs)} inputs "
                   f"{list(model.input_by_name)}; send JSON")
    if not body:
        raise _bad("empty_body", "the request body is empty; send an .npy array")
    try:
        arr = np.load(io.BytesIO(body), allow_pickle=False)
    except Exception as e:   # numpy raises ValueError/EOFError/OSError/... on bad bytes
        raise _bad("undecodable_npy", f"the body is not a readable .npy array "
                   f"({type(e).__name__}: {e})") from None
    if not isinstance(arr, np.ndarray):
        raise _bad("undecodable_npy", "the body is an .npz archive; send one .npy array")
    spec = model.inputs[0]
    want = np.dtype(spec["dtype"])
    if arr.dtype.kind not in "biuf" or not np.can_cast(arr.dtype, want, "same_kind"):
        raise _bad("wrong_dtype", f"input '{spec['name']}' expects {want} (or a dtype that "
                   f"casts to it), given {arr.dtype}")
    arr = arr.astype(want, copy=False)
    _check_shape(spec, arr)
    feed = {spec["name"]: arr}
    return feed, _rows(feed, model)


_MISSING = object()


def _from_json(name: str, value, spec: dict) -> np.ndarray:
    if value is _MISSING:
        raise _bad("missing_input", f"input '{name}' is missing (expects shape "
                   f"{spec['shape']}, dtype {spec['dtype']})")
    try:
        arr = np.array(value)
    except ValueError:
        raise _bad("wrong_shape", f"input '{name}' is a ragged nested list; expects shape "
                   f"{spec['shape']} (-1: any size)") from None
    want = np.dtype(spec["dtype"])
    if arr.dtype == object or arr.dtype.kind in "USV":
        raise _not_numbers(name, arr, want)
    _check_kind(name, arr, want)
    _check_shape(spec, arr)
    return arr.astype(want, copy=False)


def _not_numbers(name: str, arr: np.ndarray, want: np.dtype) -> RequestError:
    """The error for an array NumPy could not make numeric: nulls, strings, objects, or
    integers too large for any integer dtype."""
    values = arr.ravel()
    if any(v is None for v in values):
        return _bad("null_value", f"input '{name}' holds null values; every element must be "
                    f"a number")
    for v in values:
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            return _bad("non_numeric", f"input '{name}' holds non-numeric values (e.g. "
                        f"{v!r}); every element must be a number")
    return _bad("wrong_dtype", f"input '{name}' expects {want}, given integers too large for "
                f"any integer dtype")


def _check_kind(name: str, arr: np.ndarray, want: np.dtype) -> None:
    kind = arr.dtype.kind
    if kind == "b" and want.kind != "b":
        raise _bad("wrong_dtype", f"input '{name}' expects {want} numbers, given booleans")
    if kind == "f" and want.kind in "iub":
        raise _bad("wrong_dtype", f"input '{name}' expects {want} (integers), given "
                   f"floating-point values")
    if kind in "iu" and want.kind in "iu" and arr.size:
        info = np.iinfo(want)
        if arr.min() < info.min or arr.max() > info.max:
            raise _bad("wrong_dtype", f"input '{name}' expects {want}, given integers outside "
                       f"[{info.min}, {info.max}]")
    if kind in "iuf" and want.kind == "b":
        raise _bad("wrong_dtype", f"input '{name}' expects bool (true/false), given numbers")


def _check_shape(spec: dict, arr: np.ndarray) -> None:
    want, given = spec["shape"], list(arr.shape)
    if len(want) != len(given):
        raise _bad("wrong_rank", f"input '{spec['name']}' expects rank {len(want)} (shape "
                   f"{want}, -1: any size), given rank {len(given)} (shape {given})")
    if any(w >= 0 and w != g for w, g in zip(want, given)):
        raise _bad("wrong_shape", f"input '{spec['name']}' expects shape {want} (-1: any "
                   f"size), given {given}")


def _rows(feed: dict, model) -> int:
    if not model.batchable:
        return 1
    rows = {n: a.shape[0] for n, a in feed.items()}
    if len(set(rows.values())) > 1:
        raise _bad("wrong_shape", f"inputs disagree on the batch (leading) dim: {rows}")
    n = next(iter(rows.values()))
    if n == 0:
        raise _bad("wrong_shape", "the batch (leading) dim is 0; send at least one row")
    return n


def _kind(doc) -> str:
    if isinstance(doc, dict):
        return f"an object with keys {list(doc)[:8]}" if "inputs" not in doc else \
            f"\"inputs\" as {type(doc['inputs']).__name__}"
    return {list: "an array", str: "a string", type(None): "null"}.get(
        type(doc), type(doc).__name__)


def encode_json(outputs: dict) -> bytes:
    """{"outputs": {name: nested list}} (NaN/Infinity written as JSON tokens)."""
    doc = {"outputs": {n: a.tolist() for n, a in outputs.items()}}
    return json.dumps(doc, separators=(",", ":")).encode()


def encode_npy(outputs: dict, model) -> bytes:
    if len(outputs) != 1:
        raise RequestError(406, "npy_needs_one_output", f"an application/x-npy answer "
                           f"carries one array but model '{model.name}' has {len(outputs)} "
                           f"outputs {list(outputs)}; accept application/json")
    buf = io.BytesIO()
    np.save(buf, next(iter(outputs.values())), allow_pickle=False)
    return buf.getvalue()
