"""Micro-benchmark: conv2d / pooling forward+backward in sampan vs PyTorch and Paddle.

Run `python bench/conv_pool.py` (sampan) and, for the references,
`/work/venvs/ref/bin/python bench/conv_pool.py torch` or `... paddle`. Prints best-of-N
process CPU time in ms (stable on a shared machine; set OPENBLAS_NUM_THREADS=1 /
OMP_NUM_THREADS=1 to compare single-threaded, which is what the numbers in the report use).
"""
import os
import sys
import time

import numpy as np

CASES = [  # name, x shape, conv (out_c, k, stride, pad) or pool spec
    ("lenet-c1", (64, 1, 28, 28), ("conv", 6, 5, 1, 2)),
    ("lenet-c2", (64, 6, 14, 14), ("conv", 16, 5, 1, 0)),
    ("resnet-16", (128, 16, 32, 32), ("conv", 16, 3, 1, 1)),
    ("resnet-32s2", (128, 16, 32, 32), ("conv", 32, 3, 2, 1)),
    ("resnet-64", (128, 64, 8, 8), ("conv", 64, 3, 1, 1)),
    ("lenet-maxpool", (64, 6, 28, 28), ("max", 2, 2)),
    ("avgpool", (64, 16, 28, 28), ("avg", 2, 2)),
    ("global-avg", (128, 64, 8, 8), ("gap",)),
]


def best(fn, n=5):
    fn()
    out = 1e9
    for _ in range(n):
        t0 = time.process_time()
        fn()
        out = min(out, time.process_time() - t0)
    return out * 1e3


def run(lib):
    if lib == "torch":
        import torch
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
        F = torch.nn.functional
        tensor = lambda a: torch.tensor(a, requires_grad=True)  # noqa: E731
        conv = lambda x, w, s, p: F.conv2d(x, w, stride=s, padding=p)  # noqa: E731
        maxp = lambda x, k, s: F.max_pool2d(x, k, s)  # noqa: E731
        avgp = lambda x, k, s: F.avg_pool2d(x, k, s)  # noqa: E731
        gap = lambda x: F.adaptive_avg_pool2d(x, 1)  # noqa: E731
    else:
        if lib == "sampan":
            sys.path.insert(0, __file__.rsplit("/bench/", 1)[0])
            import sampan as paddle
        else:
            import paddle
            paddle.set_device("cpu")
        F = paddle.nn.functional

        def tensor(a):
            t = paddle.to_tensor(a)
            t.stop_gradient = False
            return t
        conv = lambda x, w, s, p: F.conv2d(x, w, stride=s, padding=p)  # noqa: E731
        maxp = lambda x, k, s: F.max_pool2d(x, k, s)  # noqa: E731
        avgp = lambda x, k, s: F.avg_pool2d(x, k, s)  # noqa: E731
        gap = lambda x: F.adaptive_avg_pool2d(x, 1)  # noqa: E731
    rng = np.random.default_rng(0)
    for name, shape, spec in CASES:
        x = tensor(rng.standard_normal(shape).astype("float32"))
        if spec[0] == "conv":
            _, o, k, s, p = spec
            w = tensor(rng.standard_normal((o, shape[1], k, k)).astype("float32") * 0.1)
            fwd = lambda: conv(x, w, s, p)  # noqa: E731
        elif spec[0] == "max":
            fwd = lambda: maxp(x, spec[1], spec[2])  # noqa: E731
        elif spec[0] == "avg":
            fwd = lambda: avgp(x, spec[1], spec[2])  # noqa: E731
        else:
            fwd = lambda: gap(x)  # noqa: E731

        def both():
            y = fwd()
            y.sum().backward()
        print(f"{lib:7s} {name:14s} fwd {best(fwd):8.2f} ms   fwd+bwd {best(both):8.2f} ms",
              flush=True)


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else "sampan")
