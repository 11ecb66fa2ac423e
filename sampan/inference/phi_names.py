"""`paddle.inference._get_phi_kernel_name`: the phi kernel name of a legacy (fluid) operator
type, as Paddle's operator-to-kernel map names it (``elementwise_add`` -> ``add``); a type the
map does not rename comes back unchanged. The table holds the renamed types among those
Paddle's model files use (recorded from PaddlePaddle 3.3.1)."""
from __future__ import annotations

_RENAMED = {
    'arg_max': 'argmax',
    'arg_min': 'argmin',
    'bicubic_interp_v2': 'bicubic_interp',
    'bilinear_interp_v2': 'bilinear_interp',
    'brelu': 'hardtanh',
    'elementwise_add': 'add',
    'elementwise_div': 'divide',
    'elementwise_floordiv': 'floor_divide',
    'elementwise_max': 'maximum',
    'elementwise_min': 'minimum',
    'elementwise_mod': 'remainder',
    'elementwise_mul': 'multiply',
    'elementwise_sub': 'subtract',
    'expand': 'legacy_expand',
    'expand_as_v2': 'expand_as',
    'expand_v2': 'expand',
    'fill_any_like': 'full_like',
    'fill_constant': 'full',
    'fill_constant_batch_size_like': 'full_batch_size_like',
    'flatten_contiguous_range': 'flatten',
    'gaussian_random': 'gaussian',
    'hard_shrink': 'hardshrink',
    'hard_sigmoid': 'hardsigmoid',
    'hard_swish': 'hardswish',
    'linear_interp_v2': 'linear_interp',
    'lookup_table_v2': 'embedding',
    'matmul': 'legacy_matmul',
    'matmul_v2': 'matmul',
    'mean': 'mean_all',
    'mul': 'matmul_with_flatten',
    'nearest_interp_v2': 'nearest_interp',
    'one_hot_v2': 'one_hot',
    'range': 'arange',
    'reduce_all': 'all',
    'reduce_any': 'any',
    'reduce_max': 'max',
    'reduce_mean': 'mean',
    'reduce_min': 'min',
    'reduce_prod': 'prod',
    'reduce_sum': 'sum',
    'reshape': 'legacy_reshape',
    'reshape2': 'reshape_with_xshape',
    'size': 'numel',
    'softmax_with_cross_entropy': 'cross_entropy_with_softmax',
    'squeeze2': 'squeeze',
    'sum': 'add_n',
    'top_k': 'topk_v1',
    'top_k_v2': 'topk',
    'transpose2': 'transpose',
    'uniform_random': 'uniform',
    'unsqueeze2': 'unsqueeze',
    'where_index': 'nonzero',
}


def _get_phi_kernel_name(op_type: str) -> str:
    """The phi kernel name of legacy operator type `op_type`.

    Examples:
        >>> from sampan.inference import _get_phi_kernel_name
        >>> _get_phi_kernel_name("elementwise_add"), _get_phi_kernel_name("conv2d")
        ('add', 'conv2d')
    """
    if not isinstance(op_type, str):
        raise TypeError(f"_get_phi_kernel_name: op_type must be a str, got "
                        f"{type(op_type).__name__}")
    return _RENAMED.get(op_type, op_type)
