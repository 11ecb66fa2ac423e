"""paddle.inference.XpuConfig: Paddle 3.3.1's fields and defaults, type checks, and the
warning that XPU is not available in sampan."""
import warnings

import pytest

import sampan.inference as paddle_infer
from sampan.inference import xpu

# XpuConfig() defaults as Paddle 3.3.1 prints them
PADDLE_DEFAULTS = {
    "context": None, "context_gm_size": -1, "conv_autotune_file": "",
    "conv_autotune_file_writeback": False, "conv_autotune_level": 0, "device_id": 0,
    "fc_autotune_file": "", "fc_autotune_file_writeback": False, "fc_autotune_level": 0,
    "gemm_compute_precision": 1, "l3_autotune_size": 0, "l3_ptr": None, "l3_size": 0,
    "quant_post_dynamic_activation_method": 0, "quant_post_dynamic_op_types": [],
    "quant_post_dynamic_weight_precision": 1, "quant_post_static_gelu_out_threshold": 10.0,
    "stream": None, "transformer_encoder_adaptive_seqlen": True,
    "transformer_softmax_optimize_level": 0,
}


def test_defaults_match_paddle_and_the_first_one_warns(monkeypatch):
    monkeypatch.setitem(xpu._WARNED, "done", False)
    with pytest.warns(UserWarning, match="XPU is not available in sampan"):
        cfg = paddle_infer.XpuConfig()
    assert {n: getattr(cfg, n) for n in PADDLE_DEFAULTS} == PADDLE_DEFAULTS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = paddle_infer.XpuConfig()   # warns once only
    second.quant_post_dynamic_op_types.append("matmul")
    assert cfg.quant_post_dynamic_op_types == []   # no shared default list


@pytest.mark.filterwarnings("ignore:XpuConfig")
def test_fields_are_checked():
    cfg = paddle_infer.XpuConfig()
    cfg.l3_size = 1 << 20
    cfg.quant_post_static_gelu_out_threshold = 8
    cfg.stream = object()
    assert cfg.l3_size == 1 << 20 and "l3_size=1048576" in repr(cfg)
    with pytest.raises(AttributeError, match="XpuConfig has no field 'l3size'"):
        cfg.l3size = 1
    with pytest.raises(TypeError, match="XpuConfig.device_id must be int, got str"):
        cfg.device_id = "0"
    with pytest.raises(TypeError, match="XpuConfig.transformer_encoder_adaptive_seqlen must"):
        cfg.transformer_encoder_adaptive_seqlen = 1
