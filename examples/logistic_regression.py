"""Logistic regression on generated data with sampan's tensor API and autograd.

Runs with `import sampan as paddle` exactly as a Paddle user would write it: parameters are
tensors with stop_gradient=False, the loss is built from tensor ops, `backward()` fills
`.grad`, and a plain gradient-descent step updates the parameters under `no_grad`.
"""
from __future__ import annotations

import numpy as np

import sampan as paddle


def make_data(n: int = 512, dim: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    true_w = rng.standard_normal((dim, 1))
    x = rng.standard_normal((n, dim)).astype("float32")
    y = (x @ true_w + 0.1 * rng.standard_normal((n, 1)) > 0).astype("float32")
    return paddle.to_tensor(x), paddle.to_tensor(y)


def main(epochs: int = 200, lr: float = 0.5) -> float:
    paddle.seed(0)
    x, y = make_data()
    w = paddle.zeros([x.shape[1], 1])
    b = paddle.zeros([1])
    w.stop_gradient = False
    b.stop_gradient = False
    for epoch in range(epochs):
        p = paddle.sigmoid(paddle.matmul(x, w) + b)
        eps = 1e-7
        loss = -(y * paddle.log(p + eps) + (1 - y) * paddle.log(1 - p + eps)).mean()
        loss.backward()
        with paddle.no_grad():
            w.set_value(w - lr * w.grad)
            b.set_value(b - lr * b.grad)
        w.clear_grad()
        b.clear_grad()
        if epoch % 40 == 0 or epoch == epochs - 1:
            print(f"epoch {epoch:3d}  loss {loss.item():.4f}")
    pred = (paddle.sigmoid(paddle.matmul(x, w) + b) > 0.5).astype("float32")
    acc = (pred == y).astype("float32").mean().item()
    print(f"train accuracy {acc:.3f}")
    return acc


if __name__ == "__main__":
    main()
