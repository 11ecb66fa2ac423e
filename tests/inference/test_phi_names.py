"""paddle.inference._get_phi_kernel_name against PaddlePaddle 3.3.1's answers."""
import pytest

from sampan import inference

# recorded from PaddlePaddle 3.3.1
PADDLE = {"elementwise_add": "add", "matmul_v2": "matmul", "reshape2": "reshape_with_xshape",
          "conv2d": "conv2d", "lookup_table_v2": "embedding", "reduce_sum": "sum",
          "fill_constant": "full", "transpose2": "transpose", "top_k_v2": "topk",
          "arg_max": "argmax", "flatten_contiguous_range": "flatten", "expand_v2": "expand",
          "one_hot_v2": "one_hot", "hard_swish": "hardswish", "foo_bar": "foo_bar",
          "elementwise_floordiv": "floor_divide", "range": "arange", "size": "numel",
          "fill_any_like": "full_like", "squeeze2": "squeeze", "pool2d": "pool2d",
          "sum": "add_n", "matmul": "legacy_matmul", "mean": "mean_all"}


@pytest.mark.parametrize("legacy", sorted(PADDLE))
def test_matches_paddle(legacy):
    assert inference._get_phi_kernel_name(legacy) == PADDLE[legacy]


def test_refuses_a_non_string():
    with pytest.raises(TypeError, match="op_type must be a str"):
        inference._get_phi_kernel_name(3)
