"""One way to create a parameter: every initializer computes its value through ops, so an
eager Parameter and static create_parameter + the startup program get the same values
(deterministic initializers always; random ones when the global generator is in the same
state when the value is computed), and custom initializers work in both modes."""
import pickle

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.nn import initializer as I
from sampan.utils import unique_name
from tests.static_util import static_guard


def _eager(init, shape, dtype, seed=5):
    paddle.seed(seed)
    return paddle.create_parameter(shape, dtype, default_initializer=init).numpy()


def _static(init, shape, dtype, seed=5, build_seed=99):
    """Build with the generator at `build_seed`, run the startup program at `seed`: the
    executor draws each random op's seed when it runs, as eager ops do when called."""
    paddle.seed(build_seed)
    main, start = static.Program(), static.Program()
    with static_guard(main, start):
        w = static.create_parameter(shape, dtype, default_initializer=init)
    exe = static.Executor()
    paddle.seed(seed)
    exe.run(start)
    return exe.run(main, fetch_list=[w])[0], [op.type for op in start.global_block().ops]


CASES = [
    (I.Constant(1.5), [3, 4], ["full"]),
    (I.Normal(1.0, 2.0), [3, 4], ["normal"]),
    (I.Uniform(-0.5, 2.0), [3, 4], ["uniform"]),
    (I.XavierUniform(), [3, 4], ["uniform"]),
    (I.XavierNormal(fan_in=3, gain=2.0), [6, 4, 3], ["normal"]),
    (I.KaimingNormal(), [4, 3, 3, 3], ["normal"]),
    (I.KaimingUniform(mode="fan_out"), [4, 3], ["uniform"]),
    (I.TruncatedNormal(0.5, 2.0, -1.0, 3.0), [50], None),
    (I.Orthogonal(gain=0.5), [3, 5], None),
    (I.Dirac(groups=2), [4, 2, 3], None),
    (I.Bilinear(), [2, 1, 4, 4], None),
    (I.Assign(np.arange(6.0).reshape(2, 3)), [2, 3], ["assign"]),
    (I.UniformInitializer(diag_num=2, diag_step=3, diag_val=9.0), [3, 3], None),
    (None, [3, 4], ["uniform"]),  # the default: XavierUniform
]


@pytest.mark.parametrize("init,shape,ops", CASES,
                         ids=[type(c[0]).__name__ for c in CASES])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_eager_equals_startup_program(init, shape, ops, dtype):
    eager = _eager(init, shape, dtype)
    value, op_types = _static(init, shape, dtype)
    assert value.dtype == eager.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(value, eager)
    if ops is not None:  # a half-precision draw is made in float32 and cast
        cast = ["cast"] if dtype == "float16" and ops[0] in ("normal", "uniform") else []
        assert op_types == ops + cast


def test_startup_program_records_the_ops():
    _, ops = _static(I.TruncatedNormal(), [4], "float64")
    assert ops[0] == "uniform" and "erfinv" in ops and ops[-1] == "clip"
    _, ops = _static(I.TruncatedNormal(), [4], "float32")  # computed in float64, then cast
    assert ops[-2:] == ["clip", "cast"]
    _, ops = _static(I.Orthogonal(), [3, 3], "float64")
    assert ops[:2] == ["normal", "qr"]
    _, ops = _static(I.Dirac(), [2, 2, 3], "float32")
    assert "assign" not in ops and ops[-1] == "cast"


def test_random_statistics_agree():
    eager = _eager(I.KaimingNormal(), [64, 32, 3, 3], "float32", seed=1)
    value, _ = _static(I.KaimingNormal(), [64, 32, 3, 3], "float32", seed=2)
    assert not np.array_equal(eager, value)
    std = np.sqrt(2.0) / np.sqrt(32 * 9)
    assert abs(eager.std() - std) < 0.01 * 3 and abs(value.std() - std) < 0.01 * 3
    assert abs(eager.mean()) < 0.01 and abs(value.mean()) < 0.01


def _startup_values(random_seed, global_seed):
    paddle.seed(global_seed)
    main, start = static.Program(), static.Program()
    start.random_seed = random_seed
    with static_guard(main, start):
        ws = [static.create_parameter([5], "float32", default_initializer=init)
              for init in (I.Normal(), I.XavierUniform(), I.TruncatedNormal())]
    exe = static.Executor()
    exe.run(start)
    return exe.run(main, fetch_list=ws)


def test_static_values_reproducible_under_seeds():
    a = _startup_values(0, 11)
    b = _startup_values(0, 11)
    c = _startup_values(0, 12)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], c[0])
    d = _startup_values(7, 1)
    e = _startup_values(7, 2)  # program.random_seed wins over the global generator
    for x, y in zip(d, e):
        np.testing.assert_array_equal(x, y)


def test_eager_parameter_under_static_mode_is_filled_now():
    main, start = static.Program(), static.Program()
    with static_guard(main, start):
        layer = paddle.nn.Linear(3, 2)
    assert isinstance(layer.weight, paddle.Tensor) and float(layer.weight.abs().sum()) > 0
    assert main.global_block().ops == [] and start.global_block().ops == []


class _PaddleWay(I.Initializer):
    """Written Paddle's way: forward(param, block) writes the value into param."""

    def forward(self, param, block=None):
        return paddle.assign(paddle.full(param.shape, 0.5, param.dtype) * 3, output=param)


class _ValueWay(I.Initializer):
    def _initial_value(self, shape, dtype):
        return paddle.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


@pytest.mark.parametrize("init,expected", [
    (_PaddleWay(), [[1.5, 1.5], [1.5, 1.5]]),
    (_ValueWay(), [[0.0, 1.0], [2.0, 3.0]]),
])
def test_custom_initializer_subclasses_in_both_modes(init, expected):
    assert _eager(init, [2, 2], "float32").tolist() == expected
    assert _static(init, [2, 2], "float32")[0].tolist() == expected


def test_custom_callables_in_static_mode():
    value, ops = _static(lambda p: paddle.full([2], 3, "float64"), [2], "float32")
    assert value.tolist() == [3.0, 3.0] and value.dtype == np.float32
    assert ops == ["full", "cast"]
    value, _ = _static(lambda p, block: paddle.ones(p.shape, p.dtype) * 2, [2], "float32")
    assert value.tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match=r"initializer of 'w_bad' gave a value of shape "
                                         r"\[3\], expected \[2\]"):
        with static_guard(static.Program(), static.Program()):
            static.create_parameter([2], "float32", name="w_bad",
                                    default_initializer=lambda p: paddle.ones([3]))


def test_global_initializer_applies_in_both_modes():
    try:
        I.set_global_initializer(I.Constant(3.0), I.Constant(-1.0))
        value, ops = _static(None, [2], "float32")
        assert value.tolist() == [3.0, 3.0] and ops == ["full"]
        main, start = static.Program(), static.Program()
        with static_guard(main, start):
            b = static.create_parameter([2], "float32", is_bias=True)
            w = static.create_parameter([2], "float32", default_initializer=I.Constant(7.0))
        exe = static.Executor()
        exe.run(start)
        assert [v.tolist() for v in exe.run(main, fetch_list=[b, w])] == [[-1, -1], [3, 3]]
    finally:
        I.set_global_initializer(None)


def test_non_float_parameter_needs_an_initializer():
    with pytest.raises(TypeError, match="create_parameter: can not create a parameter of "
                                        "dtype int64 with the default initializer"):
        paddle.create_parameter([2], "int64")
    with pytest.raises(TypeError, match="paddle.static.create_parameter: can not create a "
                                        "parameter of dtype int32"):
        with static_guard(static.Program(), static.Program()):
            static.create_parameter([2], "int32", is_bias=True)
    value, _ = _static(I.Constant(4), [2], "int64")
    assert value.tolist() == [4, 4] and value.dtype == np.int64


def test_startup_temporaries_do_not_shift_main_program_names():
    def build(init):
        main, start = static.Program(), static.Program()
        with unique_name.guard(), static_guard(main, start):
            x = static.data("x", [2], "float32")
            w = static.create_parameter([2], "float32", name="w", default_initializer=init)
            y = x * w
        return y.name, start
    name_a, start_a = build(I.Constant(1.0))
    name_b, start_b = build(I.TruncatedNormal())  # several temporaries in the startup
    assert name_a == name_b
    assert len(start_b.global_block().ops) > len(start_a.global_block().ops)


def test_uniform_diag_out_of_range():
    with pytest.raises(ValueError, match=r"UniformInitializer: the diagonal \(diag_num=3, "
                                         r"diag_step=4\) reaches element 10"):
        I.UniformInitializer(diag_num=3, diag_step=4)(paddle.zeros([3, 3]))


def test_old_import_paths_and_pickles():
    from sampan import initializer as room
    from sampan.nn.initializer import constant, initializer, xavier
    assert I.Constant is room.Constant is constant.Constant
    assert I.Initializer is initializer.Initializer and xavier.XavierUniform is I.XavierUniform
    assert I.calculate_gain is initializer.calculate_gain
    # a pickle written when the classes lived in sampan.nn.initializer.* still loads
    old = pickle.dumps(I.Constant(2.5), protocol=0).replace(
        b"sampan.initializer.constant", b"sampan.nn.initializer.constant")
    assert b"sampan.nn.initializer.constant" in old
    init = pickle.loads(old)
    assert isinstance(init, I.Constant) and init(paddle.zeros([2])).tolist() == [2.5, 2.5]
    assert paddle.tensor.create_parameter is paddle.create_parameter


def test_eager_parameter_ignores_dispatch_wrappers():
    from sampan.framework.flags import dispatch_wrapper
    seen = []

    def record(op, inputs, attrs, nxt):
        seen.append(op.name)
        return nxt(op, inputs, attrs)

    with dispatch_wrapper(record):
        w = paddle.create_parameter([3], "float16", default_initializer=I.Normal())
        paddle.ones([1])
    assert seen == ["full"] and w.dtype == paddle.float16 and w._node is None
