"""nn.SyncBatchNorm: batch normalization whose batch statistics are computed over the
batches of every rank (one all_reduce of per-channel sums and squared sums, whose gradient
is the same all_reduce, so backward is synchronised too). Imports `ops`, `tensor`,
`autograd` and `nn.layer.norm` only.
"""
from __future__ import annotations

from ...autograd import no_grad
from ...ops.collective import get_comm
from ...ops.dispatch import call
from ...tensor.creation import assign
from . import norm as _norm

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_norm.SyncBatchNorm):
    """Batch normalization with statistics over all data-parallel ranks (the global
    process group); on one process it equals BatchNorm.

    Args:
        num_features (int): C.
        momentum (float): running = momentum * running + (1 - momentum) * batch. Default 0.9.
        epsilon (float): added to the variance. Default 1e-5.
        weight_attr, bias_attr (ParamAttr|False, optional): affine parameters.
        data_format (str): 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC' or 'NDHWC'.
        name (str, optional): parameter name prefix.

    Examples:
        >>> import sampan as paddle
        >>> bn = paddle.nn.SyncBatchNorm(2)
        >>> x = paddle.to_tensor([[1.0, 2.0], [3.0, 6.0]])
        >>> bn(x).numpy().round(3).tolist()
        [[-1.0, -1.0], [1.0, 1.0]]
    """

    def forward(self, input):
        self._check_input_dim(input)
        if not self.training or get_comm("SyncBatchNorm", 0).nranks == 1:
            return super().forward(input)   # running statistics, or one process: BatchNorm
        shape = list(input.shape)
        if len(shape) < 2:
            raise ValueError(f"SyncBatchNorm: expected an input of at least 2D, got "
                             f"shape {shape}")
        axis = 1 if self._data_format.startswith("NC") else len(shape) - 1
        axes = [a for a in range(len(shape)) if a != axis]
        count = call("full_like", call("sum", input, axis=axes), fill_value=1.0)
        count = count * float(input.size // shape[axis])
        stats = call("concat", [call("sum", input, axis=axes),
                                call("sum", input * input, axis=axes), count], axis=0)
        stats = call("all_reduce", stats, op="sum", ring_id=0)
        c = shape[axis]
        total, sq, n = stats[:c], stats[c:2 * c], stats[2 * c:]
        mean = total / n
        var = sq / n - mean * mean
        bshape = [1] * len(shape)
        bshape[axis] = c
        out = (input - mean.reshape(bshape)) / (var.reshape(bshape) + self._epsilon).sqrt()
        if self.weight is not None:
            out = out * self.weight.reshape(bshape)
        if self.bias is not None:
            out = out + self.bias.reshape(bshape)
        self._update_running(mean, var)
        return out

    def _update_running(self, mean, var) -> None:
        m = self._momentum
        with no_grad():
            assign(self._mean * m + mean.detach() * (1.0 - m), self._mean)
            assign(self._variance * m + var.detach() * (1.0 - m), self._variance)


