"""Paddle 3.x's paddle.device memory/property queries and the typed tensor factories.
On a CPU-only setup they answer as Paddle 3.3.1's CPU build (messages recorded from it)."""
import numpy as np
import pytest

import sampan as paddle

CPU_ONLY = not paddle.device.is_compiled_with_cuda()
CPU_APIS = ["max_memory_allocated", "max_memory_reserved", "reset_max_memory_allocated",
            "reset_max_memory_reserved", "memory_allocated", "memory_reserved",
            "get_device_name", "get_device_properties", "get_device_capability"]


@pytest.mark.skipif(not CPU_ONLY, reason="the CPU build's answers")
@pytest.mark.parametrize("api", CPU_APIS)
def test_cpu_only_setup_refuses_like_paddle_cpu_build(api):
    msg = (f"The API paddle.device.{api} is not supported in CPU PaddlePaddle. Please "
           f"reinstall PaddlePaddle with GPU or XPU support to call this API.")
    with pytest.raises(ValueError) as info:
        getattr(paddle.device, api)()
    assert str(info.value) == msg


@pytest.mark.skipif(not CPU_ONLY, reason="the CPU build's answers")
def test_cpu_only_other_queries():
    with pytest.raises(ValueError, match="reset_max_memory_allocated is not supported"):
        paddle.device.reset_peak_memory_stats()
    with pytest.raises(RuntimeError, match="not compiled with CUDA/XPU, so `ipc_collect`"):
        paddle.device.ipc_collect()
    with pytest.raises(ValueError, match="get_stream_from_external is not supported"):
        paddle.device.get_stream_from_external(0)
    paddle.device.empty_cache()  # nothing cached: a no-op


def test_a_cpu_place_argument_is_refused_even_with_a_gpu():
    with pytest.raises(ValueError, match="memory_allocated is not supported in CPU"):
        paddle.device.memory_allocated(paddle.CPUPlace())


@pytest.mark.skipif(CPU_ONLY, reason="needs a GPU (CuPy)")
def test_gpu_queries_answer_from_the_gpu():
    x = paddle.ones([1024, 1024]).cuda()
    assert paddle.device.memory_allocated() >= x.numel() * 4
    assert paddle.device.max_memory_allocated("gpu:0") >= paddle.device.memory_allocated(0)
    paddle.device.reset_max_memory_allocated()
    major, minor = paddle.device.get_device_capability()
    assert major >= 1 and isinstance(paddle.device.get_device_name(), str)
    paddle.device.empty_cache()


def test_stream_capture_and_contexts():
    assert paddle.device.is_current_stream_capturing() is False
    with paddle.device.device_guard("cpu"):
        assert paddle.device.get_device() == "cpu"
    with paddle.device.device_guard(paddle.CPUPlace()):
        assert paddle.device.get_device() == "cpu"
    with paddle.device.StreamContext(None):
        assert paddle.ones([1]).numpy()[0] == 1
    with pytest.raises(ValueError, match="must be a string or a Place"):
        paddle.device.device_guard(3.5)
    with pytest.raises(ValueError, match="device_guard: the device must be like"):
        paddle.device.device_guard("tpu")


# (name, dtype) as Paddle 3.3.1's factories build them
TYPED = [("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("HalfTensor", "float16"),
         ("BFloat16Tensor", "bfloat16"), ("ByteTensor", "uint8"), ("CharTensor", "int8"),
         ("ShortTensor", "int16"), ("IntTensor", "int32"), ("LongTensor", "int64"),
         ("BoolTensor", "bool")]


@pytest.mark.parametrize("name,dtype", TYPED)
def test_typed_tensor_factories(name, dtype):
    factory = getattr(paddle, name)
    assert getattr(paddle.device, name) is factory
    values = factory([1, 0, 2])
    assert values.dtype == dtype and values.stop_gradient
    expected = [True, False, True] if dtype == "bool" else [1, 0, 2]
    np.testing.assert_array_equal(values.numpy().astype(float), np.array(expected, float))
    assert factory(2, 3).shape == [2, 3] and factory(2, 3).dtype == dtype
    assert factory().shape == [0]
    assert not isinstance(values, factory)


def test_typed_tensor_array_keeps_its_dtype_and_errors():
    # Paddle 3.3.1 hands an ndarray/Tensor to the Tensor constructor, which keeps its dtype
    assert paddle.FloatTensor(np.array([1, 2])).dtype == paddle.int64
    assert paddle.FloatTensor((1, 2)).dtype == paddle.float32
    with pytest.raises(ValueError, match="paddle.IntTensor: expected"):
        paddle.IntTensor(2.5)


def test_xpu_pinned_place_refuses_as_the_cpu_build():
    with pytest.raises(RuntimeError, match="Cannot use XPUPinnedPlace in CPU only version"):
        paddle.XPUPinnedPlace()
