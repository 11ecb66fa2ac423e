"""Winograd F(2x2, 3x3) vs sampan's shifted-GEMM stride-1 3x3 convolution (issue #16 lever).

    OPENBLAS_NUM_THREADS=1 SAMPAN_NUM_THREADS=1 python bench/conv_winograd.py [--rounds 5]

Each 2x2 output tile comes from a 4x4 input tile with 16 multiplies per channel pair instead
of 36: V = B^T d B, U = G g G^T, M[k] = U[k] @ V[k] for the 16 transformed positions (batched
GEMMs of depth C), Y = A^T M A. In NumPy the two stencil transforms are each one GEMM with a
Kronecker matrix (16x16 for B, 4x16 for A) over all tiles, after a strided gather of the
overlapping 4x4 tiles (4x the input size). Prints the forward time of both kernels (process
CPU time, single thread, interleaved) on the ResNet-20 shapes and the float32 error of
Winograd against a float64 direct convolution. This is an experiment, not a kernel sampan
uses: it lost on every shape measured (bench/RESULTS.md).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sampan.backend.conv import conv_array

_BT = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], "float32")
_AT = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], "float32")
_G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], "float32")
_KB = np.kron(_BT, _BT)  # row-major vec(B^T d B) = kron(B^T, B^T) vec(d)
_KA = np.kron(_AT, _AT)


def winograd_conv3x3(x, w, pads):
    """x (N, C, H, W) cross-correlated with w (O, C, 3, 3), stride 1, pads [t, b, l, r] >= 0."""
    n, c, h, wd = x.shape
    o = w.shape[0]
    oh, ow = h + pads[0] + pads[1] - 2, wd + pads[2] + pads[3] - 2
    th, tw = -(-oh // 2), -(-ow // 2)
    buf = np.zeros((n, c, 2 * th + 2, 2 * tw + 2), x.dtype)
    buf[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + wd] = x
    s = buf.strides
    tiles = np.lib.stride_tricks.as_strided(
        buf, (4, 4, n, c, th, tw), (s[2], s[3], s[0], s[1], 2 * s[2], 2 * s[3]))
    v = (_KB.astype(x.dtype) @ np.ascontiguousarray(tiles).reshape(16, -1))
    v = v.reshape(16, n, c, th * tw)
    g = _G.astype(x.dtype)
    u = np.ascontiguousarray(np.transpose(g @ w @ g.T, (2, 3, 0, 1))).reshape(16, o, c)
    m = np.matmul(u[:, None], v)  # (16, N, O, tiles)
    y = (_KA.astype(x.dtype) @ m.reshape(16, -1)).reshape(2, 2, n, o, th, tw)
    y = y.transpose(2, 3, 4, 0, 5, 1).reshape(n, o, 2 * th, 2 * tw)
    return np.ascontiguousarray(y[:, :, :oh, :ow])


def _direct(x, w):
    return conv_array(np, x, w, [1, 1], [1, 1, 1, 1], [1, 1], 1)


def _time(fn, reps, rounds):
    out = []
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(reps):
            fn()
        out.append((time.process_time() - t0) / reps * 1e3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print("| shape (N, C=O, HxW) | shifted GEMM ms | Winograd ms | Winograd/shift |"
          " rel. error f32 |")
    print("|---|---|---|---|---|")
    for n, c, h in [(32, 16, 32), (32, 32, 16), (32, 64, 8), (1, 16, 32), (1, 64, 8),
                    (8, 256, 8)]:
        x = rng.standard_normal((n, c, h, h)).astype("float32")
        w = rng.standard_normal((c, c, 3, 3)).astype("float32")
        ref = _direct(x.astype("float64"), w.astype("float64"))
        err = np.abs(winograd_conv3x3(x, w, [1, 1, 1, 1]) - ref).max() / np.abs(ref).max()
        reps = max(3, int(1e8 / (n * c * c * 9 * h * h)))
        ta, tb = [], []
        for _ in range(args.rounds):  # interleaved
            ta += _time(lambda: _direct(x, w), reps, 1)
            tb += _time(lambda: winograd_conv3x3(x, w, [1, 1, 1, 1]), reps, 1)
        a, b = statistics.median(ta), statistics.median(tb)
        print(f"| {n}, {c}, {h}x{h} | {a:.3f} | {b:.3f} | {b / a:.2f} | {err:.1e} |")


if __name__ == "__main__":
    main()
