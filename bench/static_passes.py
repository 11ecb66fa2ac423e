"""Effect of each Program pass on the static MLP training step and on a small conv + bn
inference program. Run: python bench/static_passes.py

MLP: bench/static_mlp.py's 784-512-256-10 model, batch 128, fwd + bwd + SGD. Conv: x
[32, 3, 32, 32] -> Conv2D(3, 16, 3) -> BatchNorm2D -> ReLU -> Conv2D(16, 32, 3) ->
BatchNorm2D -> ReLU -> flatten -> Linear(32*28*28, 10) -> ReLU, eval mode (global stats).
Each variant's outputs are checked against the unoptimised program first.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sampan as paddle  # noqa: E402
from sampan import static  # noqa: E402
from sampan.static import passes  # noqa: E402
from sampan.utils import unique_name  # noqa: E402


MLP_VARIANTS = [
    ("none", []),
    ("constant_folding", ["constant_folding"]),
    ("cse", ["common_subexpression_elimination"]),
    ("fuse_elementwise", ["fuse_elementwise"]),
    ("fold+fuse_elementwise", ["constant_folding", "fuse_elementwise"]),
    ("fold+fuse+inplace", ["constant_folding", "fuse_elementwise", "inplace"]),
    ("all", ["constant_folding", "common_subexpression_elimination", "fuse_elementwise",
             "inplace"]),
]
CONV_VARIANTS = [
    ("none", []),
    ("fuse_conv_bn", ["fuse_conv_bn"]),
    ("fuse_linear", ["fuse_linear"]),
    ("fuse_elementwise", ["fuse_elementwise"]),
    ("conv_bn+linear", ["fuse_conv_bn", "fuse_linear"]),
    ("all", ["constant_folding", "common_subexpression_elimination", "fuse_conv_bn",
             "fuse_linear", "fuse_elementwise", "inplace"]),
]


def interleaved(fns, rounds=30) -> list:
    times = [[] for _ in fns]
    for fn in fns:
        fn()
    for _ in range(rounds):
        for t, fn in zip(times, fns):
            t0 = time.perf_counter()
            fn()
            t.append(time.perf_counter() - t0)
    return [(min(t), sorted(t)[len(t) // 2]) for t in times]


DIMS = (784, 512, 256, 10)


def _weights(rng) -> list:
    """He-initialised float32 weights of the 784-512-256-10 MLP."""
    return [(rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype("float32")
            for a, b in zip(DIMS[:-1], DIMS[1:])]


def _forward(x, y, ws, zero):
    """relu MLP (maximum with a zero constant, so the elementwise ops stay visible to the
    fusion passes) and softmax cross-entropy against one-hot y."""
    h = x
    for w in ws[:-1]:
        h = paddle.maximum(paddle.matmul(h, w), zero)
    logits = paddle.matmul(h, ws[-1])
    logp = logits - paddle.logsumexp(logits, axis=1, keepdim=True)
    return -(y * logp).sum(axis=1).mean()


def mlp_program(ws0):
    main, startup = static.Program(), static.Program()
    with unique_name.guard(), static.program_guard(main, startup):
        x = static.data("x", [128, 784], "float32")
        y = static.data("y", [128, 10], "float32")
        ws = [static.create_parameter(list(w.shape), "float32", name=f"mlp_w{i}")
              for i, w in enumerate(ws0)]
        loss = _forward(x, y, ws, paddle.zeros([1], "float32"))
        for p, g in static.append_backward(loss):
            p.subtract_(g * 0.01)
    return main, loss


def bench_mlp(rounds) -> None:
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((128, 784)).astype("float32")
    yv = np.eye(10, dtype="float32")[rng.integers(0, 10, 128)]
    ws0 = _weights(rng)
    main, loss = mlp_program(ws0)
    feed = {"x": xv, "y": yv}
    fns, counts, ref = [], [], None
    for label, names in MLP_VARIANTS:
        prog = passes.apply(main, names, keep=[loss])
        prog.verify()
        scope = static.Scope()
        for i, w in enumerate(ws0):
            scope.set(f"mlp_w{i}", w.copy())
        exe = static.Executor()
        out = [exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)[0] for _ in range(2)]
        if ref is None:
            ref = out
        np.testing.assert_allclose(out, ref, rtol=1e-5, err_msg=label)
        fns.append(lambda exe=exe, prog=prog, scope=scope:
                   exe.run(prog, feed=feed, fetch_list=[loss], scope=scope))
        counts.append(len(prog.global_block().ops))
    base = None
    print("MLP 784-512-256-10 b128 fwd+bwd+SGD step (static Executor):")
    for (label, _), n, (tmin, tmed) in zip(MLP_VARIANTS, counts, interleaved(fns, rounds)):
        base = base or tmin
        print(f"  {label:24s} {n:3d} ops  min {tmin * 1e3:6.2f} ms  median {tmed * 1e3:6.2f} ms"
              f"  ({tmin / base:.2f}x of none)")


def conv_program():
    paddle.seed(0)
    main, startup = static.Program(), static.Program()
    with unique_name.guard(), static.program_guard(main, startup):
        x = static.data("x", [32, 3, 32, 32], "float32")
        layers = [paddle.nn.Conv2D(3, 16, 3), paddle.nn.BatchNorm2D(16), paddle.nn.ReLU(),
                  paddle.nn.Conv2D(16, 32, 3), paddle.nn.BatchNorm2D(32), paddle.nn.ReLU(),
                  paddle.nn.Flatten(), paddle.nn.Linear(32 * 28 * 28, 10), paddle.nn.ReLU()]
        model = paddle.nn.Sequential(*layers)
        model.eval()
        rng = np.random.default_rng(1)
        for layer in layers:  # non-trivial running statistics
            if isinstance(layer, paddle.nn.BatchNorm2D):
                layer._mean.set_value(rng.standard_normal(layer._mean.shape).astype("float32"))
                layer._variance.set_value(rng.uniform(0.5, 2, layer._variance.shape)
                                          .astype("float32"))
        out = model(x)
    return main, out


def bench_conv(rounds) -> None:
    main, out = conv_program()
    xv = np.random.default_rng(2).standard_normal((32, 3, 32, 32)).astype("float32")
    fns, counts, ref = [], [], None
    for label, names in CONV_VARIANTS:
        prog = passes.apply(main, names, keep=[out])
        prog.verify()
        exe = static.Executor()
        got = exe.run(prog, feed={"x": xv}, fetch_list=[out])[0]
        if ref is None:
            ref = got
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4, err_msg=label)
        fns.append(lambda exe=exe, prog=prog: exe.run(prog, feed={"x": xv}, fetch_list=[out]))
        counts.append(len(prog.global_block().ops))
    base = None
    print("conv+bn+relu x2 + linear+relu inference, x [32, 3, 32, 32]:")
    for (label, _), n, (tmin, tmed) in zip(CONV_VARIANTS, counts, interleaved(fns, rounds)):
        base = base or tmin
        print(f"  {label:24s} {n:3d} ops  min {tmin * 1e3:6.2f} ms  median {tmed * 1e3:6.2f} ms"
              f"  ({tmin / base:.2f}x of none)")


def main() -> None:
    rounds = int(os.environ.get("ROUNDS", "30"))
    bench_mlp(rounds)
    bench_conv(rounds)


if __name__ == "__main__":
    main()
