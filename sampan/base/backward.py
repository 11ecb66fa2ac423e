"""`paddle.base.backward`: append_backward, gradients (aliases of `paddle.static`) and
calc_gradient, plus the grad-name helpers of Paddle's module."""
from ..static import append_backward, gradients  # noqa: F401


def _append_grad_suffix_(name: str) -> str:
    """The name of `name`'s gradient variable in a Program (`x` -> `x@GRAD`)."""
    return name + "@GRAD"


def _strip_grad_suffix_(name: str) -> str:
    """The forward name of a gradient variable: cut at the first `@GRAD@` (else at a final
    `@GRAD`), then drop any `grad/` scope prefix ('grad/x@GRAD@RENAME@1' -> 'x')."""
    pos = name.find("@GRAD@")
    if pos == -1 and name.endswith("@GRAD"):
        pos = len(name) - len("@GRAD")
    base = name if pos == -1 else name[:pos]
    scope = base.rfind("grad/")
    return base if scope == -1 else base[scope + len("grad/"):]


def calc_gradient(targets, inputs, target_gradients=None, no_grad_set=None):
    """Gradients of `targets` with respect to `inputs` in the Program being built: as
    `paddle.static.gradients`, but a single input gives its gradient itself (not a list).

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> from sampan.base.backward import calc_gradient
        >>> paddle.enable_static()
        >>> main = paddle.static.Program()
        >>> with paddle.static.program_guard(main, paddle.static.Program()):
        ...     x = paddle.static.data("x", [2], "float32")
        ...     x.stop_gradient = False
        ...     g = calc_gradient(paddle.sum(x * x), x)
        >>> out = paddle.static.Executor().run(main, feed={"x": np.array([1.0, 2.0], "float32")},
        ...                                    fetch_list=[g])
        >>> out[0].tolist()
        [2.0, 4.0]
        >>> paddle.disable_static()
    """
    grads = gradients(targets, inputs, target_gradients, no_grad_set)
    return grads[0] if len(grads) == 1 else grads
