"""What a parameter server computes, in NumPy: row initializers that depend only on (seed,
table, id, column) so a row is the same whichever server creates it and in whatever order,
and the server-side optimizer rules (sgd, adagrad, adam) applied to the rows a push touches.
Imports nothing of sampan.
"""
from __future__ import annotations

import zlib

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)

OPTIMIZERS = {"sgd": ("lr",), "adagrad": ("lr", "eps"), "adam": ("lr", "beta1", "beta2", "eps")}
INITIALIZERS = {"uniform": ("low", "high"), "normal": ("mean", "std"), "constant": ("value",)}


def _splitmix(z: np.ndarray) -> np.ndarray:
    z = z + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _uniform01(seed: int, name: str, ids: np.ndarray, dim: int, stream: int) -> np.ndarray:
    """(len(ids), dim) floats in (0, 1), a pure function of (seed, name, id, column, stream)."""
    key = np.uint64((zlib.crc32(name.encode()) << 20) ^ (seed * 2654435761) ^ stream)
    cols = np.arange(dim, dtype=np.uint64)
    z = _splitmix(ids.astype(np.uint64)[:, None] * np.uint64(1 << 16) + cols[None, :]
                  + _splitmix(np.full(1, key, np.uint64)))
    z = _splitmix(z)
    return ((z >> np.uint64(11)).astype(np.float64) + 0.5) * (1.0 / (1 << 53))


def init_rows(init: tuple, seed: int, name: str, ids: np.ndarray, dim: int) -> np.ndarray:
    """Initial float32 rows of `ids` for the initializer tuple `init`."""
    kind = init[0]
    if kind == "constant":
        return np.full((len(ids), dim), init[1], np.float32)
    u = _uniform01(seed, name, ids, dim, 0)
    if kind == "uniform":
        return (init[1] + (init[2] - init[1]) * u).astype(np.float32)
    v = _uniform01(seed, name, ids, dim, 1)   # Box-Muller
    z = np.sqrt(-2.0 * np.log(u)) * np.cos(2.0 * np.pi * v)
    return (init[1] + init[2] * z).astype(np.float32)


def state_names(optimizer: tuple) -> tuple:
    """Per-element state arrays a rule keeps beside the weights."""
    return {"sgd": (), "adagrad": ("moment",), "adam": ("moment1", "moment2")}[optimizer[0]]


def apply_rule(optimizer: tuple, w: np.ndarray, g: np.ndarray, state: dict,
               step: np.ndarray | None) -> None:
    """Update `w` (and `state`) in place with gradient `g`. `step` holds the number of
    updates each row has had including this one (adam's bias correction, per row as in
    Paddle's sparse adam rule), shaped to broadcast against `w`."""
    kind, lr = optimizer[0], optimizer[1]
    if kind == "sgd":
        w -= lr * g
    elif kind == "adagrad":
        m = state["moment"]
        m += g * g
        w -= lr * g / (np.sqrt(m) + optimizer[2])
    else:
        b1, b2, eps = optimizer[2], optimizer[3], optimizer[4]
        m1, m2 = state["moment1"], state["moment2"]
        m1 *= b1
        m1 += (1 - b1) * g
        m2 *= b2
        m2 += (1 - b2) * g * g
        c2 = np.sqrt(1 - b2 ** step)
        lr_t = lr * c2 / (1 - b1 ** step)
        w -= (lr_t * (m1 / (np.sqrt(m2) + eps * c2))).astype(w.dtype)
