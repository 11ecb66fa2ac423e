"""dtypes, promotion, places, flags, seeds, to_tensor and Tensor basics."""
import warnings

import numpy as np
import pytest

import sampan as paddle


def test_dtype_names_and_conversion():
    assert str(paddle.float32) == "paddle.float32"
    assert paddle.float32 == "float32" and paddle.int64 == np.int64
    x = paddle.to_tensor([1, 2], dtype="paddle.int32")
    assert x.dtype == paddle.int32
    with pytest.raises(TypeError, match="unsupported data type"):
        paddle.to_tensor([1.0], dtype="float13")


def test_to_tensor_default_dtypes():
    assert paddle.to_tensor(1.5).dtype == paddle.float32
    assert paddle.to_tensor([1, 2]).dtype == paddle.int64
    assert paddle.to_tensor(True).dtype == paddle.bool
    assert paddle.to_tensor(np.ones(2)).dtype == paddle.float64
    assert paddle.to_tensor(1 + 2j).dtype == paddle.complex64
    assert paddle.to_tensor(1.0).shape == []


def test_to_tensor_copies_and_stop_gradient_default():
    a = np.ones(3, np.float32)
    t = paddle.to_tensor(a)
    a[0] = 5
    assert t.numpy()[0] == 1 and t.stop_gradient
    assert paddle.to_tensor([1.0], stop_gradient=False).stop_gradient is False


def test_default_dtype():
    try:
        paddle.set_default_dtype("float64")
        assert paddle.get_default_dtype() == "float64"
        assert paddle.to_tensor(1.0).dtype == paddle.float64
    finally:
        paddle.set_default_dtype("float32")
    with pytest.raises(TypeError, match="floating point"):
        paddle.set_default_dtype("int32")


@pytest.mark.parametrize("a,b,want", [
    ("float32", "float64", "float64"), ("float16", "bfloat16", "float32"),
    ("int32", "int64", "int64"), ("int64", "float32", "float32"),
    ("bool", "int32", "int32"), ("uint8", "int8", "int16"),
    ("float64", "complex64", "complex128"), ("float32", "complex64", "complex64")])
def test_tensor_tensor_promotion(a, b, want):
    x = paddle.to_tensor(np.ones(2), dtype=a)
    y = paddle.to_tensor(np.ones(2), dtype=b)
    assert (x + y).dtype == want


def test_tensor_scalar_promotion_keeps_tensor_dtype():
    assert (paddle.to_tensor([1, 2], dtype="int32") + 1).dtype == paddle.int32
    assert (paddle.to_tensor([1, 2], dtype="int32") * 1.5).dtype == paddle.float32
    assert (paddle.to_tensor([1.0], dtype="float16") + 2.0).dtype == paddle.float16
    assert (2.0 - paddle.to_tensor([1.0], dtype="float64")).dtype == paddle.float64
    np.testing.assert_allclose((2.0 - paddle.to_tensor([1.0])).numpy(), [1.0])


def test_repr_matches_paddle_layout():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    assert repr(x) == ("Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), "
                       "stop_gradient=True,\n       [[1., 2.],\n        [3., 4.]])")
    assert repr(paddle.to_tensor(3)).endswith("\n       3)")


def test_tensor_properties():
    x = paddle.to_tensor(np.zeros((2, 3), np.float32))
    assert x.shape == [2, 3] and x.ndim == 2 and x.size == 6 and x.dim() == 2
    assert str(x.place) == "Place(cpu)" and x.is_leaf
    assert x.name.startswith("generated_tensor_")
    assert len(x) == 2 and x.tolist() == [[0.0] * 3] * 2
    assert paddle.to_tensor(2.5).item() == 2.5 and float(paddle.to_tensor([2.5])) == 2.5
    assert int(paddle.to_tensor(3)) == 3 and bool(paddle.to_tensor(True))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(paddle.to_tensor([1, 2]))
    with pytest.raises(ValueError, match="one element"):
        paddle.to_tensor([1, 2]).item()
    assert np.asarray(x).shape == (2, 3)


def test_set_value_and_clone_semantics():
    x = paddle.to_tensor([1.0, 2.0])
    x.set_value(np.array([3.0, 4.0]))
    assert x.dtype == paddle.float32 and x.tolist() == [3.0, 4.0]
    with pytest.raises(ValueError, match="shape"):
        x.set_value(np.zeros(3))


def test_places_and_devices():
    assert not paddle.is_compiled_with_cuda()
    assert paddle.get_device() == "cpu"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        paddle.set_device("gpu:0")
    assert any("CUDA" in str(m.message) for m in w)
    assert paddle.get_device() == "cpu"
    assert repr(paddle.CPUPlace()) == "Place(cpu)" and repr(paddle.CUDAPlace(1)) == "Place(gpu:1)"
    with pytest.raises(ValueError, match="unknown device"):
        paddle.set_device("tpu")


def test_flags_accept_any_flag():
    paddle.set_flags({"FLAGS_cudnn_deterministic": True, "FLAGS_some_new_flag": 1})
    assert paddle.get_flags("FLAGS_cudnn_deterministic") == {"FLAGS_cudnn_deterministic": True}
    assert paddle.get_flags(["FLAGS_some_new_flag"])["FLAGS_some_new_flag"] == 1
    with pytest.raises(ValueError, match="FLAGS_"):
        paddle.set_flags({"cudnn": 1})


def test_seed_and_rng_state_roundtrip():
    from sampan.framework.random import next_seed
    paddle.seed(7)
    a = [next_seed() for _ in range(3)]
    state = paddle.get_rng_state()
    b = [next_seed() for _ in range(3)]
    paddle.seed(7)
    assert [next_seed() for _ in range(3)] == a
    paddle.set_rng_state(state)
    assert [next_seed() for _ in range(3)] == b


def test_run_check(capsys):
    paddle.utils.run_check()
    assert "installed successfully" in capsys.readouterr().out


def test_parameter_defaults():
    p = paddle.Parameter(np.ones(2, np.float32))
    assert not p.stop_gradient and p.persistable and p.trainable
    assert repr(p).startswith("Parameter containing:")


def test_to_tensor_with_dtype_does_not_round_through_float32():
    assert paddle.to_tensor([4.2], dtype="float64").numpy()[0] == 4.2
    assert paddle.to_tensor(4.2, dtype="float64").item() == 4.2


def test_bool_tensors_print_like_paddle():
    assert repr(paddle.to_tensor([True, False])).endswith("[True , False])")


def test_tensor_to_refuses_extra_arguments_as_paddle():
    t = paddle.to_tensor([1, 2, 3])
    with pytest.raises(TypeError, match="at most 3 positional"):
        t.to("cpu", "int32", False, "extra")
    with pytest.raises(TypeError, match="test_key"):
        t.to("cpu", "int32", test_key=False)
    with pytest.raises(ValueError):
        t.to("error_device")
    assert t.to("cpu", "float64").dtype == paddle.float64


def test_tensor_to_other_takes_its_dtype_and_place():
    x = paddle.to_tensor([1, 2, 3]).to(device="cpu", dtype="int8", blocking=True)
    y = paddle.to_tensor([4, 5, 6]).to(other=x)
    assert y.dtype == paddle.int8 and str(y.place) == "Place(cpu)"
    assert y.numpy().tolist() == [4, 5, 6]
