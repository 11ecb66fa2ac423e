"""Utilities: run_check, unique_name. No dumping ground."""
from __future__ import annotations

from . import unique_name  # noqa: F401


def run_check() -> None:
    """Check that sampan is installed and can compute and differentiate (paddle.utils.run_check)."""
    import numpy as np

    import sampan as paddle
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3), stop_gradient=False)
    y = (x * x).sum()
    y.backward()
    if not np.allclose(x.grad.numpy(), 2 * x.numpy()):
        raise RuntimeError("run_check: autograd produced a wrong gradient")
    print("Running verify PaddlePaddle(sampan) program ...")
    print("PaddlePaddle(sampan) works well on 1 CPU.")
    print("PaddlePaddle(sampan) is installed successfully! Let's start deep learning with "
          "PaddlePaddle now.")
