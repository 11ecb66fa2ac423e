"""Static graph benchmarks: Executor per-op overhead and an MLP training step, static vs eager.

MLP 784-512-256-10, batch 128, float32, softmax cross-entropy, plain SGD update (written with
tensor ops, so eager and static run the same kernels). Run: python bench/static_mlp.py
"""
from __future__ import annotations

import time

import numpy as np

import sampan as paddle
from sampan import static


def _best(fn, repeat=5, number=20) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def per_op_overhead(n_ops: int = 200) -> tuple:
    """Seconds per op for a chain of `n_ops` adds on a [4] float32 tensor."""
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [4], "float32")
        y = x
        for _ in range(n_ops):
            y = y + x
    exe = static.Executor()
    xv = np.ones(4, "float32")
    feed = {"x": xv}
    exe.run(main, feed=feed, fetch_list=[y])
    t_static = _best(lambda: exe.run(main, feed=feed, fetch_list=[y])) / n_ops
    xt = paddle.to_tensor(xv)

    def eager():
        z = xt
        for _ in range(n_ops):
            z = z + xt
        return z
    t_eager = _best(eager) / n_ops
    t_numpy = _best(lambda: [np.add(xv, xv) for _ in range(n_ops)]) / n_ops
    return t_static, t_eager, t_numpy


def _weights(rng):
    dims = [784, 512, 256, 10]
    return [(rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype("float32")
            for a, b in zip(dims[:-1], dims[1:])]


def _forward(x, onehot, ws, zero):
    h = x
    for i, w in enumerate(ws):
        h = paddle.matmul(h, w)
        if i < len(ws) - 1:
            h = paddle.maximum(h, zero)
    lse = paddle.logsumexp(h, axis=1)
    return paddle.mean(lse - paddle.sum(h * onehot, axis=1))


def mlp_static(xv, yv, ws0, lr=0.01):
    """A step function running the static training program, and its op count."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [128, 784], "float32")
        y = static.data("y", [128, 10], "float32")
        ws = [static.create_parameter(list(w.shape), "float32", name=f"mlp_w{i}")
              for i, w in enumerate(ws0)]
        loss = _forward(x, y, ws, paddle.zeros([1], "float32"))
        for p, g in static.append_backward(loss):
            p.subtract_(g * lr)
    scope = static.Scope()
    for i, w in enumerate(ws0):
        scope.set(f"mlp_w{i}", w.copy())
    exe = static.Executor()
    feed = {"x": xv, "y": yv}
    return (lambda: exe.run(main, feed=feed, fetch_list=[loss], scope=scope),
            len(main.global_block().ops))


def mlp_eager(xv, yv, ws0, lr=0.01):
    """A step function for the same model in eager mode."""
    ws = [paddle.to_tensor(w.copy(), stop_gradient=False) for w in ws0]
    x, y, zero = paddle.to_tensor(xv), paddle.to_tensor(yv), paddle.zeros([1], "float32")

    def step():
        loss = _forward(x, y, ws, zero)
        loss.backward()
        with paddle.no_grad():
            for w in ws:
                w.subtract_(w.grad * lr)
                w.clear_grad()
        return loss
    return step


def interleaved(fns, rounds=40) -> list:
    """Min and median seconds per call of each fn, calls interleaved (fair on a busy box)."""
    times = [[] for _ in fns]
    for fn in fns:
        fn()
    for _ in range(rounds):
        for t, fn in zip(times, fns):
            t0 = time.perf_counter()
            fn()
            t.append(time.perf_counter() - t0)
    return [(min(t), sorted(t)[len(t) // 2]) for t in times]


def main() -> None:
    s, e, n = per_op_overhead()
    print(f"per-op (add on [4] f32, chain of 200): static {s * 1e6:.2f} us, "
          f"eager {e * 1e6:.2f} us, numpy {n * 1e6:.2f} us")
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((128, 784)).astype("float32")
    yv = np.eye(10, dtype="float32")[rng.integers(0, 10, 128)]
    ws0 = _weights(rng)
    step_static, n_ops = mlp_static(xv, yv, ws0)
    (s_min, s_med), (e_min, e_med) = interleaved([step_static, mlp_eager(xv, yv, ws0)])
    print(f"MLP 784-512-256-10 b128 fwd+bwd+SGD ({n_ops} static ops): "
          f"static min {s_min * 1e3:.2f} ms (median {s_med * 1e3:.2f}), "
          f"eager min {e_min * 1e3:.2f} ms (median {e_med * 1e3:.2f}), "
          f"ratio of mins {s_min / e_min:.2f}")


if __name__ == "__main__":
    main()
