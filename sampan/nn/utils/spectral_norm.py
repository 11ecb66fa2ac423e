"""spectral_norm (the hook form): weight = weight_orig / sigma(weight_orig), by power iteration."""
from __future__ import annotations

from ...autograd import no_grad
from ...framework.tensor import Tensor
from ... import tensor as _T
from ..functional import normalize

__all__ = ["spectral_norm"]


class SpectralNorm:
    """The forward pre-hook: power iteration on the buffers u, v (in training), then
    `layer.<name> = <name>_orig / (u . (W v))` with W the weight as an [H, W] matrix."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        if isinstance(n_power_iterations, bool) or not isinstance(n_power_iterations, int) \
                or n_power_iterations <= 0:
            raise ValueError(f"spectral_norm: expected n_power_iterations to be a positive "
                             f"int, but got n_power_iterations={n_power_iterations!r}")
        self.name, self.dim = name, dim
        self.n_power_iterations, self.eps = n_power_iterations, float(eps)

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            perm = [self.dim] + [d for d in range(len(weight.shape)) if d != self.dim]
            weight = _T.transpose(weight, perm)
        return _T.reshape(weight, [weight.shape[0], -1])

    def compute_weight(self, layer, do_power_iteration: bool) -> Tensor:
        weight = getattr(layer, self.name + "_orig")
        u = getattr(layer, self.name + "_u")
        v = getattr(layer, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.set_value(normalize(_T.matmul(mat, u, transpose_x=True), axis=0,
                                          epsilon=self.eps))
                    u.set_value(normalize(_T.matmul(mat, v), axis=0, epsilon=self.eps))
            u, v = u.clone(), v.clone()
        sigma = _T.dot(u, _T.mv(mat, v))
        return weight / sigma

    def __call__(self, layer, inputs) -> None:
        setattr(layer, self.name, self.compute_weight(layer, layer.training))

    @staticmethod
    def apply(layer, name: str, n_power_iterations: int, dim: int,
              eps: float) -> "SpectralNorm":
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"spectral_norm: cannot register two spectral_norm hooks "
                                   f"on the same parameter {name!r}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = layer._parameters.get(name)
        if weight is None:
            raise ValueError(f"spectral_norm: {type(layer).__name__} has no parameter "
                             f"{name!r}")
        rank = len(weight.shape)
        if isinstance(dim, bool) or not isinstance(dim, int) or not 0 <= dim < max(rank, 1):
            raise ValueError(f"spectral_norm: dim must be in [0, {rank}) for {name!r} of "
                             f"shape {list(weight.shape)}, got {dim!r}")
        with no_grad():
            height, width = fn.reshape_weight_to_matrix(weight).shape
            dtype = weight.dtype.name
            u = normalize(_T.normal(0.0, 1.0, [height]).astype(dtype), axis=0, epsilon=fn.eps)
            v = normalize(_T.normal(0.0, 1.0, [width]).astype(dtype), axis=0, epsilon=fn.eps)
        del layer._parameters[name]
        layer.add_parameter(name + "_orig", weight)
        setattr(layer, name, weight * 1.0)
        layer.register_buffer(name + "_u", u)
        layer.register_buffer(name + "_v", v)
        layer.register_forward_pre_hook(fn)
        return fn


def _default_dim(layer) -> int:
    """1 for Linear ([in, out]) and transposed convs ([in, out, *k]); 0 otherwise."""
    from ... import nn  # the layer families import nn.utils' siblings, not the reverse
    names = ("Linear", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose")
    classes = tuple(c for c in (getattr(nn, n, None) for n in names) if c)
    return 1 if classes and isinstance(layer, classes) else 0


def spectral_norm(layer, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim=None):
    """Divide `layer.<name>` by its largest singular value, estimated by power iteration.

    The parameter becomes `<name>_orig`; buffers `<name>_u` ([H]) and `<name>_v` ([W])
    hold the singular vector estimates, where the weight is seen as an [H, W] matrix with
    axis `dim` first. Before every forward (training mode: after n_power_iterations steps
    of v = normalize(W^T u), u = normalize(W v)), `layer.<name> = W / (u . W v)`.

    Args:
        layer (Layer): the layer owning the parameter.
        name (str): the parameter's name. Default 'weight'.
        n_power_iterations (int): power iterations per forward. Default 1.
        eps (float): epsilon of the normalizations. Default 1e-12.
        dim (int|None): the axis moved first before flattening; None: 1 for Linear and
            Conv*Transpose (their weights are [in, out, ...]), else 0.

    Returns:
        Layer: `layer` itself, with the hook.
    """
    if dim is None:
        dim = _default_dim(layer)
    SpectralNorm.apply(layer, name, n_power_iterations, dim, eps)
    return layer
