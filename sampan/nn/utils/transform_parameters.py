"""parameters_to_vector / vector_to_parameters: flatten parameters into one 1-D Tensor and back."""
from __future__ import annotations

from ...autograd import no_grad
from ...framework.tensor import Tensor
from ... import tensor as _T

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _as_list(api: str, parameters) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    try:
        params = list(parameters)
    except TypeError:
        raise TypeError(f"{api}: parameters must be an iterable of Tensors, got "
                        f"{type(parameters).__name__}") from None
    for i, p in enumerate(params):
        if not isinstance(p, Tensor):
            raise TypeError(f"{api}: parameters[{i}] must be a Tensor, got "
                            f"{type(p).__name__}")
    return params


def parameters_to_vector(parameters, name=None) -> Tensor:
    """Concatenate the flattened parameters into one 1-D Tensor.

    As in Paddle, the result is a new leaf (stop_gradient=False) computed without recording
    gradients: it does not backpropagate into the parameters.

    Args:
        parameters (Iterable[Tensor]): e.g. `layer.parameters()`.
        name (str, optional): unused.

    Returns:
        Tensor: 1-D, the first parameter's dtype.

    Examples:
        >>> import sampan as paddle
        >>> a, b = paddle.ones([2, 2]), paddle.zeros([3])
        >>> paddle.nn.utils.parameters_to_vector([a, b]).tolist()
        [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    """
    params = _as_list("parameters_to_vector", parameters)
    if not params:
        raise ValueError("parameters_to_vector: parameters must not be empty")
    dtype = params[0].dtype
    with no_grad():
        out = _T.concat([_T.reshape(p, [-1]).astype(dtype) for p in params], axis=0)
    out.stop_gradient = False
    return out


def vector_to_parameters(vec: Tensor, parameters, name=None) -> None:
    """Copy consecutive slices of the 1-D `vec` into `parameters`, in place.

    `vec` may be longer than the parameters' total size (the rest is ignored).

    Args:
        vec (Tensor): 1-D.
        parameters (Iterable[Tensor]): the Tensors to overwrite (shapes and dtypes kept).
        name (str, optional): unused.

    Examples:
        >>> import sampan as paddle
        >>> a, b = paddle.zeros([2, 2]), paddle.zeros([1])
        >>> paddle.nn.utils.vector_to_parameters(paddle.arange(5, dtype='float32'), [a, b])
        >>> a.tolist(), b.tolist()
        ([[0.0, 1.0], [2.0, 3.0]], [4.0])
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"vector_to_parameters: vec must be a Tensor, got "
                        f"{type(vec).__name__}")
    if len(vec.shape) != 1:
        raise ValueError(f"vector_to_parameters: vec must be 1-D, got shape {list(vec.shape)}")
    params = _as_list("vector_to_parameters", parameters)
    total = sum(p.size for p in params)
    if total > vec.shape[0]:
        raise ValueError(f"vector_to_parameters: the total_elements of vec ({vec.shape[0]}) "
                         f"should be equal to or larger than the number of elements in "
                         f"parameters ({total})")
    flat = vec.numpy()
    start = 0
    for p in params:
        chunk = flat[start:start + p.size].reshape(p._data.shape)
        p.set_value(chunk)
        start += p.size
