"""The build queries Paddle 3.3.1 exports at the top level (paddle.is_compiled_with_ipu...)."""
import sampan as paddle


def test_top_level_build_queries_are_the_device_ones():
    for name in ("is_compiled_with_cinn", "is_compiled_with_custom_device",
                 "is_compiled_with_distribute", "is_compiled_with_ipu"):
        assert getattr(paddle, name) is getattr(paddle.device, name)
    assert paddle.is_compiled_with_ipu() is False and paddle.is_compiled_with_cinn() is False
    assert paddle.is_compiled_with_custom_device("npu") is False
    assert paddle.is_compiled_with_distribute() is True
