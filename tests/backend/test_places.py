"""Places, device moves and the mixed-place / CPU-only errors, on the fake device (every
machine) and without CuPy (GPU calls must fail clearly, `import sampan` must not import it)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import sampan as paddle
from sampan.backend.fake import FakeArray, FakePlace
from sampan.framework import place as _place

FAKE = FakePlace(0)


@pytest.fixture
def on_fake():
    old = _place.current_place()
    _place.set_place(FAKE)
    try:
        yield
    finally:
        _place.set_place(old)


def test_to_tensor_place_and_cpu_round_trip():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], place=FAKE)
    assert x.place == FAKE and isinstance(x._data, FakeArray)
    back = x.cpu()
    assert back.place == paddle.CPUPlace()
    np.testing.assert_array_equal(back.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    assert paddle.to_tensor([1.0]).place == paddle.CPUPlace()


def test_training_step_stays_on_device():
    w = paddle.to_tensor(np.full((3, 2), 0.5), place=FAKE, stop_gradient=False)
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3), place=FAKE)
    loss = paddle.nn.functional.relu(paddle.matmul(x, w)).mean()
    loss.backward()
    assert loss.place == FAKE and w.grad.place == FAKE
    np.testing.assert_allclose(w.grad.numpy(), np.tile([[1.5], [2.5], [3.5]], (1, 2)) / 2)


def test_mixed_places_raise_naming_both():
    x = paddle.to_tensor(np.ones((2, 2)), place=FAKE)
    with pytest.raises(ValueError, match=r"add: input 'y' is on Place\(cpu\).*Place\(fake:0\)"):
        x + paddle.ones([2, 2])
    y = paddle.to_tensor(np.ones((2, 2)), place=FakePlace(1))
    with pytest.raises(ValueError, match=r"Place\(fake:0\) and Place\(fake:1\)"):
        x + y


def test_scalars_and_indices_follow_the_device():
    x = paddle.to_tensor(np.arange(4.0), place=FAKE)
    assert (x * 2.0).place == FAKE
    idx = paddle.to_tensor([3, 0])
    np.testing.assert_array_equal(paddle.gather(x, idx).numpy(), [3.0, 0.0])


def test_cpu_only_op_names_op_and_place():
    x = paddle.to_tensor(np.eye(3), place=FAKE)
    with pytest.raises(NotImplementedError, match=r"svd: .*CPU.*Place\(fake:0\)"):
        paddle.linalg.svd(x)


def test_creation_ops_follow_default_place(on_fake):
    assert paddle.zeros([2]).place == FAKE
    assert paddle.randn([2, 2]).place == FAKE
    assert paddle.to_tensor([1.0]).place == FAKE
    assert paddle.get_device() == "fake:0"


def test_host_array_mixed_into_device_kernel_is_found():
    a = FakeArray(np.ones(3))
    with pytest.raises(TypeError, match="host numpy.ndarray"):
        a + np.ones(3)
    with pytest.raises(TypeError, match="implicit conversion"):
        np.asarray(a)


def test_gpu_without_cupy_is_clear():
    if paddle.is_compiled_with_cuda():
        pytest.skip("a GPU is usable here; bench/gpu_check.py covers it")
    with pytest.warns(UserWarning, match="CuPy and a GPU"):
        assert paddle.set_device("gpu:0") == paddle.CPUPlace()
    assert paddle.get_device() == "cpu"
    assert paddle.device.cuda.device_count() == 0
    assert paddle.device.cuda.memory_allocated() == 0
    with pytest.raises(RuntimeError, match="no usable GPU"):
        paddle.device.cuda.get_device_name()
    if "cupy" not in sys.modules:
        with pytest.raises(ImportError, match="needs CuPy"):
            paddle.ones([2]).cuda()


def test_place_arguments_are_checked():
    with pytest.raises(ValueError, match="CUDAPlace: id"):
        paddle.CUDAPlace(-1)
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        paddle.set_device("tpu")
    with pytest.raises(ValueError, match="place must be"):
        paddle.to_tensor([1.0], place=3)


def test_import_does_not_import_cupy():
    code = "import sys, sampan; sampan.ones([2]) + 1; print('cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_save_moves_to_cpu_and_load_follows_default_place(tmp_path, on_fake):
    w = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
    assert w.place == FAKE
    paddle.save({"w": w}, str(tmp_path / "m.pdparams"))
    _place.set_place(paddle.CPUPlace())
    on_cpu = paddle.load(str(tmp_path / "m.pdparams"))["w"]
    assert on_cpu.place == paddle.CPUPlace()
    _place.set_place(FAKE)
    on_fake = paddle.load(str(tmp_path / "m.pdparams"))["w"]
    assert on_fake.place == FAKE
    np.testing.assert_array_equal(on_fake.numpy(), np.arange(6.0).reshape(2, 3))


def _train(place, opt_name):
    paddle.seed(0)
    old = _place.current_place()
    _place.set_place(place)
    try:
        nn = paddle.nn
        # no conv bias before BatchNorm: its true gradient is 0, so Adam would scale the
        # kernels' rounding noise (which differs between the device and CPU conv kernels) to lr
        model = nn.Sequential(nn.Conv2D(2, 3, 3, padding=1, bias_attr=False), nn.BatchNorm2D(3),
                              nn.ReLU(),
                              nn.MaxPool2D(2), nn.Flatten(), nn.Linear(12, 4))
        params = model.parameters()
        opt = (paddle.optimizer.Adam(1e-2, parameters=params) if opt_name == "adam" else
               paddle.optimizer.Momentum(0.1, 0.9, parameters=params))
        rng = np.random.default_rng(0)
        x = paddle.to_tensor(rng.standard_normal((5, 2, 4, 4)).astype("float32"))
        y = paddle.to_tensor(rng.integers(0, 4, 5))
        for _ in range(2):
            loss = paddle.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
        assert {p.place for p in params} == {place}
        return [p.numpy() for p in params]
    finally:
        _place.set_place(old)


@pytest.mark.parametrize("opt_name", ["adam", "momentum"])
def test_conv_training_on_device_equals_cpu(opt_name):
    for got, want in zip(_train(FAKE, opt_name), _train(paddle.CPUPlace(), opt_name)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_cuda_places(monkeypatch):
    from sampan.framework import place as place_mod
    monkeypatch.setattr(place_mod, "is_compiled_with_cuda", lambda: False)
    assert paddle.static.cuda_places() == [] and paddle.static.cuda_places([0]) == []
    monkeypatch.setattr(place_mod, "is_compiled_with_cuda", lambda: True)
    assert paddle.static.cuda_places([0, 2]) == [paddle.CUDAPlace(0), paddle.CUDAPlace(2)]
    assert paddle.static.cuda_places(1) == [paddle.CUDAPlace(1)]


def test_cupy_einsum_reduction_plans():
    from sampan.backend.cupy_einsum import reduction_axes as plan
    assert plan("acb->c") == (1, (0, 2)) and plan("acb,acb->c") == (2, (0, 2))
    assert plan("ij,ij->i") == (2, (1,)) and plan("abc->ac") == (1, (1,))
    for general in ("ij,jk->ik", "ii->i", "ab->ba", "...a->a", "ij,ik->i", "ij"):
        assert plan(general) is None, general


def test_cupy_einsum_fast_path_equals_einsum():
    from sampan.backend.cupy_einsum import make_einsum
    einsum = make_einsum(np)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(einsum("acb->c", x), np.einsum("acb->c", x))
    np.testing.assert_allclose(einsum("acb,acb->c", x, y), np.einsum("acb,acb->c", x, y))
    np.testing.assert_allclose(einsum("ij,jk->ik", x[0], y[0].T), x[0] @ y[0].T)
    assert einsum("ij->j", np.ones((2, 3), "int32")).dtype == np.int32  # no int64 widening


def test_fake_ufuncs_refuse_python_lists_as_cupy_does():
    from sampan.backend import fake
    x = FakeArray(np.ones(2))
    with pytest.raises(TypeError, match="Unsupported type <class 'list'>"):
        fake.add(x, [1.0, 2.0])
    np.testing.assert_array_equal(fake.add(x, 1.0).get(), [2.0, 2.0])
