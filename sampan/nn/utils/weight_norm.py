"""weight_norm / remove_weight_norm: weight = g * v / ||v||, recomputed before each forward."""
from __future__ import annotations

from ...autograd import no_grad
from ...framework.tensor import Tensor
from ... import tensor as _T

__all__ = ["weight_norm", "remove_weight_norm"]

_EPS = 1e-12


def _other_axes(ndim: int, dim: int) -> list:
    return [a for a in range(ndim) if a != dim] if dim != -1 else list(range(ndim))


def _norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """sqrt(sum of v**2 over every axis but `dim` + eps): shape [v.shape[dim]], or [] for -1."""
    axes = _other_axes(len(v.shape), dim)
    if not axes:
        return _T.sqrt(v * v + _EPS)
    return _T.sqrt(_T.sum(v * v, axis=axes) + _EPS)


def _weight(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """g * v / ||v|| (Paddle: ||v|| clipped at 1e-12 per slice; +1e-12 for the whole tensor)."""
    if dim == -1:
        return v / (_T.sqrt(_T.sum(v * v)) + _EPS) * g
    axes = _other_axes(len(v.shape), dim)
    norm = _T.sqrt(_T.sum(v * v, axis=axes, keepdim=True)) if axes else _T.abs(v)
    shape = [1] * len(v.shape)
    shape[dim] = v.shape[dim]
    return v / _T.clip(norm, min=_EPS) * _T.reshape(g, shape)


class WeightNorm:
    """The forward pre-hook that recomputes `layer.<name>` from `<name>_g` and `<name>_v`."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = dim

    def compute_weight(self, layer) -> Tensor:
        g = getattr(layer, self.name + "_g")
        v = getattr(layer, self.name + "_v")
        return _weight(v, g, self.dim)

    def __call__(self, layer, inputs) -> None:
        setattr(layer, self.name, self.compute_weight(layer))

    @staticmethod
    def apply(layer, name: str, dim) -> "WeightNorm":
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"weight_norm: cannot register two weight_norm hooks on "
                                   f"the same parameter {name!r}")
        weight = layer._parameters.get(name)
        if weight is None:
            raise ValueError(f"weight_norm: {type(layer).__name__} has no parameter {name!r}")
        rank = len(weight.shape)
        if dim is None:
            dim = -1
        if isinstance(dim, bool) or not isinstance(dim, int) or not -rank <= dim < rank:
            raise ValueError(f"weight_norm: dim must be in [-{rank}, {rank}) (the rank of "
                             f"{name!r}, shape {list(weight.shape)}) or None, got {dim!r}")
        if dim != -1:
            dim = dim % rank
        fn = WeightNorm(name, dim)
        del layer._parameters[name]
        with no_grad():
            g_value = _norm_except_dim(weight, dim)
        v = layer.create_parameter(weight.shape, dtype=weight.dtype)
        layer.add_parameter(name + "_v", v)
        g = layer.create_parameter(g_value.shape, dtype=g_value.dtype)
        layer.add_parameter(name + "_g", g)
        v.set_value(weight)
        g.set_value(g_value)
        setattr(layer, name, fn.compute_weight(layer))
        layer.register_forward_pre_hook(fn)
        return fn

    def remove(self, layer) -> None:
        with no_grad():
            value = self.compute_weight(layer)
        delattr(layer, self.name)
        del layer._parameters[self.name + "_g"]
        del layer._parameters[self.name + "_v"]
        weight = layer.create_parameter(value.shape, dtype=value.dtype)
        layer.add_parameter(self.name, weight)
        weight.set_value(value)


def weight_norm(layer, name: str = "weight", dim=0):
    """Reparameterize `layer.<name>` as g * v / ||v|| (Salimans & Kingma, 2016).

    The parameter is replaced by `<name>_g` (the norms, shape [w.shape[dim]], or [] when
    dim is None) and `<name>_v` (the direction, w's shape); a forward pre-hook recomputes
    `layer.<name>` from them before every call, so gradients reach g and v.

    Args:
        layer (Layer): the layer owning the parameter.
        name (str): the parameter's name. Default 'weight'.
        dim (int|None): the axis kept by the norm (in [-R, R)); None: one norm for all.
            Default 0.

    Returns:
        Layer: `layer` itself, with the hook.

    Examples:
        >>> import sampan as paddle
        >>> layer = paddle.nn.Layer()
        >>> layer.weight = layer.create_parameter([3, 2])
        >>> layer = paddle.nn.utils.weight_norm(layer)
        >>> layer.weight_g.shape, layer.weight_v.shape
        (paddle.Size([3]), paddle.Size([3, 2]))
    """
    WeightNorm.apply(layer, name, dim)
    return layer


def remove_weight_norm(layer, name: str = "weight"):
    """Undo `weight_norm`: fold g * v / ||v|| back into one parameter `<name>`.

    Args:
        layer (Layer): a layer `weight_norm` was applied to.
        name (str): the parameter's name. Default 'weight'.

    Returns:
        Layer: `layer` itself, without the hook.
    """
    for key, hook in list(layer._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(layer)
            del layer._forward_pre_hooks[key]
            return layer
    raise ValueError(f"remove_weight_norm: weight_norm of {name!r} not found in "
                     f"{type(layer).__name__}")
