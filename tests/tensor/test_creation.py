"""Creation functions: argument forms, dtypes, errors, composites, in-place methods."""
import json

import numpy as np
import pytest

import sampan as paddle
from sampan.ops import REGISTRY
from sampan.ops.dispatch import dispatch


# --- shape and dtype arguments ------------------------------------------------------------

@pytest.mark.parametrize("shape", [[2, 3], (2, 3), [paddle.to_tensor(2), 3],
                                   paddle.to_tensor([2, 3]), [np.int64(2), 3]])
def test_shape_forms(shape):
    assert paddle.zeros(shape).shape == [2, 3]


def test_int_shape_and_empty_shape():
    assert paddle.ones(3).shape == [3]
    assert paddle.full([], 2.0).shape == []


@pytest.mark.parametrize("dtype", ["float64", paddle.float64, np.float64, "paddle.float64"])
def test_dtype_forms(dtype):
    assert paddle.zeros([2], dtype=dtype).dtype == paddle.float64


def test_shape_errors():
    with pytest.raises(ValueError, match="zeros: every dim of shape must be non-negative"):
        paddle.zeros([2, -1])
    with pytest.raises(TypeError, match="ones: elements of shape must be ints"):
        paddle.ones([2, 1.5])
    with pytest.raises(TypeError, match="full: shape must be a list, tuple or Tensor"):
        paddle.full("23", 1.0)
    with pytest.raises(TypeError, match="zeros: shape given as a Tensor must be a 1-D integer"):
        paddle.zeros(paddle.to_tensor([2.0, 3.0]))


def test_bad_dtype():
    with pytest.raises(TypeError, match="unsupported data type"):
        paddle.zeros([2], dtype="float13")


# --- filled tensors ---------------------------------------------------------------------

def test_full_default_dtype_and_values():
    out = paddle.full([2, 2], 3)
    assert out.dtype == paddle.float32
    np.testing.assert_array_equal(out.numpy(), np.full((2, 2), 3.0, np.float32))
    assert paddle.full([2], True, "bool").numpy().tolist() == [True, True]
    assert paddle.full([2], 7, "int32").dtype == paddle.int32


def test_full_follows_default_dtype():
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    try:
        assert paddle.zeros([2]).dtype == paddle.float64
        assert paddle.arange(0.0, 1.0, 0.5).dtype == paddle.float64
    finally:
        paddle.set_default_dtype(old)


def test_full_tensor_fill_value_and_complex():
    out = paddle.full([3], paddle.to_tensor(2.5))
    np.testing.assert_array_equal(out.numpy(), [2.5, 2.5, 2.5])
    c = paddle.full([2], 1 + 2j, dtype="complex64")
    np.testing.assert_array_equal(c.numpy(), np.full(2, 1 + 2j, np.complex64))
    with pytest.raises(ValueError, match="full: fill_value given as a Tensor must have one"):
        paddle.full([2], paddle.to_tensor([1.0, 2.0]))


def test_like_functions_keep_dtype_and_stop_gradient():
    x = paddle.to_tensor([[1, 2], [3, 4]], dtype="int32")
    assert paddle.zeros_like(x).dtype == paddle.int32
    assert paddle.ones_like(x, dtype="float64").dtype == paddle.float64
    assert paddle.full_like(x, 9).numpy().tolist() == [[9, 9], [9, 9]]
    y = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    out = paddle.ones_like(y)
    assert out.stop_gradient  # the values of y are not used: no gradient
    with pytest.raises(TypeError, match="zeros_like: x must be a Tensor"):
        paddle.zeros_like([1, 2])


def test_creation_ops_have_no_tensor_inputs_and_json_attrs():
    for name in ("full", "arange", "linspace", "logspace", "eye", "tril_indices",
                 "triu_indices"):
        assert REGISTRY[name].inputs == ()
    out = dispatch(REGISTRY["full"], (), {"shape": [2], "fill_value": 1.5, "dtype": "float64"})
    assert out.dtype == paddle.float64 and out.shape == [2]
    attrs = {"start": 0.0, "end": 1.0, "step": 0.25, "dtype": "float32"}
    assert json.loads(json.dumps(attrs)) == attrs
    assert dispatch(REGISTRY["arange"], (), attrs).shape == [4]


# --- ranges -------------------------------------------------------------------------------

def test_arange_dtypes_and_forms():
    assert paddle.arange(5).dtype == paddle.int64
    assert paddle.arange(1, 4).numpy().tolist() == [1, 2, 3]
    assert paddle.arange(0, 1, 0.5).dtype == paddle.float32
    assert paddle.arange(3, dtype="float64").dtype == paddle.float64
    t = paddle.arange(paddle.to_tensor(1), paddle.to_tensor(7), paddle.to_tensor(2))
    assert t.numpy().tolist() == [1, 3, 5]
    assert paddle.arange(0, 1, 0.1).shape == [10]


def test_arange_errors():
    with pytest.raises(ValueError, match="arange: step must not be 0"):
        paddle.arange(0, 5, 0)
    with pytest.raises(TypeError, match="arange: end must be a number"):
        paddle.arange(0, "5")


def test_linspace_logspace():
    out = paddle.linspace(0, 1, 3)
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), [0, 0.5, 1])
    np.testing.assert_allclose(paddle.logspace(0, 3, 4, base=2).numpy(), [1, 2, 4, 8])
    with pytest.raises(ValueError, match="linspace: num must be >= 0"):
        paddle.linspace(0, 1, -1)
    with pytest.raises(TypeError, match="linspace: num must be an int"):
        paddle.linspace(0, 1, 2.5)


def test_eye():
    assert paddle.eye(3).shape == [3, 3]
    assert paddle.eye(3).dtype == paddle.float32
    np.testing.assert_array_equal(paddle.eye(2, 3, dtype="int64").numpy(), np.eye(2, 3))
    with pytest.raises(ValueError, match="eye: num_rows must be >= 0"):
        paddle.eye(-1)


def test_tri_indices():
    np.testing.assert_array_equal(paddle.triu_indices(3).numpy(), np.stack(np.triu_indices(3)))
    np.testing.assert_array_equal(paddle.tril_indices(4, 2, -1).numpy(),
                                  np.stack(np.tril_indices(4, -1, 2)))
    assert paddle.tril_indices(3, 3, dtype="int32").dtype == paddle.int32


# --- matrices -----------------------------------------------------------------------------

def test_diag_errors():
    with pytest.raises(ValueError, match="diag: x must be a 1-D or 2-D tensor, got 3-D"):
        paddle.diag(paddle.ones([2, 2, 2]))
    with pytest.raises(ValueError, match="diag_embed: dim1 and dim2 must be different"):
        paddle.diag_embed(paddle.ones([2, 3]), dim1=0, dim2=0)
    with pytest.raises(IndexError, match="diag_embed: dim1 5 is out of range"):
        paddle.diag_embed(paddle.ones([2, 3]), dim1=5)


def test_diag_method_and_padding():
    x = paddle.to_tensor([1, 2])
    out = x.diag(padding_value=-1)
    assert out.numpy().tolist() == [[1, -1], [-1, 2]]
    assert out.dtype == paddle.int64


def test_diag_of_matrix_gradient():
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3), stop_gradient=False)
    paddle.diag(x, offset=1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0], [0, 0, 1]])


def test_tril_triu_errors_and_methods():
    with pytest.raises(ValueError, match="tril: x must be at least 2-D"):
        paddle.tril(paddle.ones([3]))
    with pytest.raises(ValueError, match="triu: x must be at least 2-D"):
        paddle.ones([3]).triu()
    x = paddle.ones([2, 2])
    assert x.tril(-1).numpy().tolist() == [[0, 0], [1, 0]]
    y = paddle.ones([2, 2])
    assert y.triu_() is y and y.numpy().tolist() == [[1, 1], [0, 1]]


def test_meshgrid_forms_and_grad():
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    b = paddle.to_tensor([3.0, 4.0, 5.0], stop_gradient=False)
    ga, gb = paddle.meshgrid([a, b])
    assert ga.shape == [2, 3] and gb.shape == [2, 3]
    np.testing.assert_array_equal(ga.numpy(), [[1, 1, 1], [2, 2, 2]])
    (ga * gb).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [12, 12])
    np.testing.assert_allclose(b.grad.numpy(), [3, 3, 3])
    with pytest.raises(ValueError, match="meshgrid: every input must be a 1-D Tensor; input 1"):
        paddle.meshgrid(a, paddle.ones([2, 2]))


def test_vander():
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    np.testing.assert_allclose(paddle.vander(x).numpy(), np.vander([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(paddle.vander(x, 2, increasing=True).numpy(),
                               np.vander([1.0, 2.0, 3.0], 2, increasing=True))
    assert paddle.vander(x, 0).shape == [3, 0]
    assert paddle.vander(paddle.to_tensor([2, 3]), 3).numpy().tolist() == [[4, 2, 1], [9, 3, 1]]
    z = paddle.to_tensor([0.0, 2.0], stop_gradient=False)
    paddle.vander(z, 3).sum().backward()  # d/dz (z^2 + z + 1) = 2z + 1, finite at 0
    np.testing.assert_allclose(z.grad.numpy(), [1.0, 5.0])
    with pytest.raises(ValueError, match="vander: x must be a 1-D Tensor"):
        paddle.vander(paddle.ones([2, 2]))


# --- copies -------------------------------------------------------------------------------

def test_assign_forms():
    arr = np.array([1.0, 2.0], np.float64)
    out = paddle.assign(arr)
    assert out.dtype == paddle.float64
    arr[0] = 5
    assert out.numpy()[0] == 1.0  # a copy
    target = paddle.zeros([2])
    assert paddle.assign(paddle.to_tensor([3.0, 4.0]), output=target) is target
    assert target.numpy().tolist() == [3.0, 4.0]
    assert paddle.assign(1.5).shape == []
    with pytest.raises(TypeError, match="assign: output must be a Tensor"):
        paddle.assign(arr, output=[0, 0])


def test_clone_is_a_differentiable_copy():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x.clone()
    assert y.numpy() is not x.numpy()
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


# --- parameters -----------------------------------------------------------------------------

def test_create_parameter_defaults():
    w = paddle.create_parameter([4, 6], "float32")
    assert isinstance(w, paddle.Parameter)
    assert not w.stop_gradient and w.persistable
    limit = np.sqrt(6.0 / 10)
    assert np.abs(w.numpy()).max() <= limit and np.abs(w.numpy()).max() > 0
    b = paddle.create_parameter([6], "float64", is_bias=True)
    assert b.dtype == paddle.float64
    np.testing.assert_array_equal(b.numpy(), np.zeros(6))
    assert w.name != b.name


def test_create_parameter_deterministic_and_initializers():
    paddle.seed(3)
    a = paddle.create_parameter([3, 3], "float32").numpy()
    paddle.seed(3)
    b = paddle.create_parameter([3, 3], "float32").numpy()
    np.testing.assert_array_equal(a, b)

    def init(param):
        param.set_value(np.full(param.shape, 0.25, np.float32))
    p = paddle.create_parameter([2], "float32", name="p0", default_initializer=init)
    assert p.name == "p0"
    np.testing.assert_array_equal(p.numpy(), [0.25, 0.25])

    attr = paddle.ParamAttr(name="from_attr", trainable=False, learning_rate=0.5,
                            initializer=lambda param: param.set_value(np.ones(param.shape)))
    q = paddle.create_parameter([2], "float32", attr=attr, default_initializer=init)
    assert q.name == "from_attr" and q.stop_gradient
    assert q.optimize_attr["learning_rate"] == 0.5
    np.testing.assert_array_equal(q.numpy(), [1.0, 1.0])


# --- in-place methods ---------------------------------------------------------------------

def test_zero_and_fill():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    v = x._version
    assert x.fill_(7) is x
    assert x.numpy().tolist() == [[7, 7], [7, 7]] and x._version == v + 1
    assert x.zero_() is x and x.numpy().sum() == 0
    assert x.dtype == paddle.float32


def test_inplace_refuses_leaf_requiring_grad():
    x = paddle.ones([2, 2])
    x.stop_gradient = False
    for method, args in (("fill_", (1.0,)), ("zero_", ()), ("fill_diagonal_", (1.0,))):
        with pytest.raises(ValueError, match=f"{method}: leaf Tensor"):
            getattr(x, method)(*args)
    with paddle.no_grad():
        x.fill_(3.0)
    assert x.numpy().tolist() == [[3, 3], [3, 3]]


def test_fill_diagonal_values_and_grad():
    x = paddle.zeros([3, 4])
    x.fill_diagonal_(1.0, offset=1)
    np.testing.assert_array_equal(x.numpy(), np.eye(3, 4, 1))
    tall = paddle.zeros([7, 3])
    tall.fill_diagonal_(2.0, wrap=True)
    want = np.zeros((7, 3))
    np.fill_diagonal(want, 2.0, wrap=True)
    np.testing.assert_array_equal(tall.numpy(), want)
    a = paddle.ones([2, 2])
    a.stop_gradient = False
    b = a * 3
    b.fill_diagonal_(0.0)
    b.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[0, 3], [3, 0]])
    with pytest.raises(ValueError, match="fill_diagonal_: all dims of x must be equal"):
        paddle.ones([2, 3, 3]).fill_diagonal_(1.0)
