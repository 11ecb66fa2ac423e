"""paddle.device / paddle.device.cuda / distributed.wait / static.ExecutionStrategy /
Program.to_string: names no other test exercised, where Paddle 3.3.1's CPU build gives nothing
to record (it crashes, lacks the name, or needs a GPU).

The CPU tests pin sampan's documented CPU behaviour; the GPU tests run where CuPy sees a GPU.
Paddle 3.3.1's CPU build, for reference: paddle.device.Stream()/Event() raise NameError,
paddle.device.cuda.current_stream() segfaults, cuda.Event()/Stream() raise RuntimeError,
cuda.max_memory_allocated()/max_memory_reserved()/memory_reserved() raise ValueError ("not
supported in CPU-only PaddlePaddle") where sampan returns 0, and static.ExecutionStrategy is gone.
"""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard

cuda = paddle.device.cuda
GPU = paddle.device.is_compiled_with_cuda() and cuda.device_count() > 0
needs_gpu = pytest.mark.skipif(not GPU, reason="needs CuPy and a CUDA GPU")
cpu_only = pytest.mark.skipif(GPU, reason="checks the CPU-only behaviour")


def test_xpu_and_ipu_places_describe_themselves():
    assert repr(paddle.device.XPUPlace(1)) == "Place(xpu:1)"
    assert repr(paddle.device.IPUPlace()) == "Place(ipu)"
    assert isinstance(paddle.device.XPUPlace(0), paddle.device.XPUPlace)


def test_available_devices_on_this_machine():
    # Paddle 3.3.1 (documented; its CPU build gives []): GPUs only, the CPU is not listed.
    n = cuda.device_count()
    assert paddle.device.get_available_device() == [f"gpu:{i}" for i in range(n)]
    assert paddle.device.get_all_device_type() == (["gpu"] if GPU else [])
    assert paddle.device.get_available_custom_device() == []


def test_cpu_stream_and_event_are_synchronous():
    s = paddle.device.Stream()
    e = paddle.device.Event()
    e.record(s)
    assert e.query() is True and s.query() is True
    s.wait_event(e)
    s.synchronize()
    e.synchronize()
    assert isinstance(s.record_event(), paddle.device.Event)
    prev = paddle.device.set_stream(s)
    assert isinstance(prev, paddle.device.Stream)
    with paddle.device.stream_guard(s):
        y = paddle.to_tensor([1.0, 2.0]) * 3
    np.testing.assert_array_equal(y.numpy(), [3.0, 6.0])


@cpu_only
def test_cuda_queries_without_a_gpu():
    for fn in (cuda.Event, cuda.Stream, cuda.current_stream, cuda.get_device_capability,
               cuda.get_device_properties):
        with pytest.raises(RuntimeError, match="no usable GPU"):
            fn()
    assert cuda.max_memory_allocated() == 0
    assert cuda.max_memory_reserved() == 0
    assert cuda.memory_reserved() == 0
    assert cuda.empty_cache() is None and cuda.synchronize() is None
    with pytest.raises(ValueError, match="device must be"):
        cuda.memory_reserved(device=[0])


@needs_gpu
def test_cuda_streams_events_and_memory_on_a_gpu():
    major, minor = cuda.get_device_capability()
    props = cuda.get_device_properties(0)
    assert (props.major, props.minor) == (major, minor) and major >= 7
    assert props.total_memory > 2 ** 30 and props.multi_processor_count > 0
    x = paddle.ones([1024, 1024], dtype="float32").cuda()
    assert cuda.memory_reserved() >= x.numel() * 4
    assert cuda.max_memory_allocated() >= 0 and cuda.max_memory_reserved() >= x.numel() * 4
    s = cuda.Stream()
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    with cuda.stream_guard(s):
        start.record(s)
        y = (x * 2.0).sum()
        end.record(s)
    end.synchronize()
    s.synchronize()
    assert start.elapsed_time(end) >= 0.0 and end.query() and s.query()
    assert isinstance(cuda.current_stream(), cuda.Stream)
    assert float(y) == 2.0 * 1024 * 1024
    cuda.synchronize()
    cuda.empty_cache()


def test_distributed_wait_is_a_no_op_in_one_process():
    t = paddle.to_tensor([1.0, 2.0])
    assert paddle.distributed.wait(t) is None
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])


def test_execution_strategy_fields():
    es = paddle.static.ExecutionStrategy()
    assert (es.num_threads, es.num_iteration_per_drop_scope) == (1, 100)
    es.num_threads = 4
    assert es.num_threads == 4


def test_program_to_string_lists_vars_and_ops():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        y = paddle.nn.functional.relu(x)
    text = main.to_string(throw_on_error=True)
    assert isinstance(text, str) and "relu" in text and "x" in text
    assert main.to_string(False, with_details=True).count("relu") >= 1
    assert y.name in text
