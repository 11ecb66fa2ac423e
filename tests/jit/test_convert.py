"""dy2static conversion: golden transformed source, which ops a trace emits, error location,
Unsupported constructs, and the convert_function / convert_call interface."""
import inspect
import textwrap

import numpy as np
import pytest

import sampan as paddle
from sampan.jit import errors, transform
from sampan.jit.convert import convert_call
from sampan.jit.transform import Unsupported, convert_function, transformed_source
from sampan.static.builder import building


def golden_if(x):
    if x.mean() > 0:
        y = x + 1
    else:
        y = x - 1
    return y


def golden_loop(x, n):
    i = 0
    while i < n:
        x = x * 2
        i += 1
    return x


def golden_logic(x):
    return x if x.sum() > 0 and not x.max() > 10 else -x


GOLDEN_IF = textwrap.dedent("""\
    def golden_if(x):
        y = _jst.UndefinedVar('y')

        def __true_fn_0():
            nonlocal y
            y = x + 1

        def __false_fn_0():
            nonlocal y
            y = x - 1

        def __get_args_0():
            return (y,)

        def __set_args_0(__args):
            nonlocal y
            y, = __args
        _jst.convert_ifelse(_jst.convert_call(x.mean)() > 0, __true_fn_0, __false_fn_0, \
__get_args_0, __set_args_0, ('y',))
        return y""")

GOLDEN_LOOP = textwrap.dedent("""\
    def golden_loop(x, n):
        i = 0

        def __while_cond_0():
            return i < n

        def __while_body_0():
            nonlocal x, i
            x = x * 2
            i += 1

        def __get_args_0():
            return (x, i)

        def __set_args_0(__args):
            nonlocal x, i
            x, i = __args
        _jst.convert_while_loop(__while_cond_0, __while_body_0, __get_args_0, __set_args_0, \
('x', 'i'))
        return x""")

GOLDEN_LOGIC = textwrap.dedent("""\
    def golden_logic(x):
        return _jst.convert_ifelse_expr(_jst.convert_logical_and(lambda: \
_jst.convert_call(x.sum)() > 0, lambda: _jst.convert_logical_not(_jst.convert_call(x.max)() \
> 10)), lambda: x, lambda: -x)""")


@pytest.mark.parametrize("fn, text", [(golden_if, GOLDEN_IF), (golden_loop, GOLDEN_LOOP),
                                      (golden_logic, GOLDEN_LOGIC)])
def test_golden_code(fn, text):
    assert transformed_source(fn) == text
    assert convert_function(fn).__sampan_code__ == text


def _trace(fn, *shapes_dtypes):
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()), building():
            ins = [paddle.static.data(f"x{k}", s, d) for k, (s, d) in enumerate(shapes_dtypes)]
            out = convert_function(fn)(*ins)
        return main, out
    finally:
        paddle.disable_static()


def _op_types(main):
    return [op.type for b in main.blocks for op in b.ops]


def test_tensor_conditions_emit_graph_control_flow():
    main, _ = _trace(golden_if, ([3], "float32"))
    assert _op_types(main).count("cond") == 1
    main, _ = _trace(golden_loop, ([3], "float32"), ([], "int64"))
    assert _op_types(main).count("while_loop") == 1


def python_conditions(x, n=3):
    for k in range(n):
        if k % 2 == 0 and n > 1:
            x = x + k
    while n > 0:
        n -= 1
    return x if n == 0 else -x


def test_python_conditions_emit_no_control_flow_op():
    main, out = _trace(python_conditions, ([3], "float32"))
    types = _op_types(main)
    assert "cond" not in types and "while_loop" not in types
    assert len(main.blocks) == 1


def one_branch(x):
    if x.sum() > 0:
        y = x * 2
    return y


def test_name_defined_in_one_branch_is_python_error_eagerly():
    with pytest.raises(NameError):
        one_branch(paddle.to_tensor([-1.0]))
    undefined = convert_function(one_branch)(paddle.to_tensor([-1.0]))
    with pytest.raises(NameError, match="'y'"):   # raised where the value is used
        undefined + 1
    assert float(convert_function(one_branch)(paddle.to_tensor([2.0]))) == 4.0


# --- errors -------------------------------------------------------------------------------------

def bad_line(x):
    y = x * 2
    z = y.reshape([7, 7])  # the user's failing line
    return z


def test_locate_maps_error_to_user_line():
    with pytest.raises(Exception) as info:
        _trace(bad_line, ([3], "float32"))
    loc = errors.locate(info.value)
    assert loc is not None
    filename, lineno, line = loc
    assert filename == __file__
    assert line == "z = y.reshape([7, 7])  # the user's failing line"
    assert lineno == inspect.getsourcelines(bad_line)[1] + 2
    err = errors.from_exception(info.value, what="function 'bad_line'")
    text = str(err)
    assert __file__ in text and f"line {lineno}" in text
    assert "z = y.reshape([7, 7])" in text and "bad_line" in text


def uses_numpy(x):
    if x.sum() > 0:
        x = x + 1
    return np.tanh(x)


def test_numpy_on_variable_is_unsupported_with_location():
    assert np.allclose(convert_function(uses_numpy)(paddle.to_tensor([1.0])), np.tanh(2.0))
    with pytest.raises(Unsupported) as info:
        _trace(uses_numpy, ([1], "float32"))
    assert info.value.filename == __file__
    assert info.value.source_line == "return np.tanh(x)"
    assert "numpy function tanh" in str(info.value)


def value_needed(x):
    return x.item() + 1


def branch_types_differ(x):
    tag = "a"
    if x.sum() > 0:
        tag = "b"
    return x, tag


def test_unsupported_constructs():
    with pytest.raises(Unsupported, match="item"):
        _trace(value_needed, ([1], "float32"))
    with pytest.raises(Unsupported, match="'tag'") as info:
        _trace(branch_types_differ, ([1], "float32"))
    assert info.value.source_line == "if x.sum() > 0:"
    assert issubclass(Unsupported, errors.Dy2StaticError)
    assert transform.Unsupported is errors.Unsupported


def dtype_mismatch(x):
    y = x
    if x.sum() > 0:
        y = x.astype("int64")
    return y


def test_branch_dtype_mismatch_names_variable():
    with pytest.raises(Unsupported, match="'y' is a int64 tensor .* float32"):
        _trace(dtype_mismatch, ([2], "float32"))


def test_condition_with_many_elements_is_clear_error():
    def many(x):
        if x > 0:
            x = x + 1
        return x
    with pytest.raises(errors.Dy2StaticError, match="exactly one element"):
        _trace(many, ([3], "float32"))


# --- the convert_function interface ----------------------------------------------------------

def test_unconvertible_functions_come_back_unchanged():
    ns = {}
    exec("def nosrc(x):\n    return x\n", ns)
    assert convert_function(ns["nosrc"]) is ns["nosrc"]
    assert convert_function(len) is len
    assert convert_function(np.tanh) is np.tanh
    ns = {}
    exec("lam = lambda x: x", ns)
    assert convert_function(ns["lam"]) is ns["lam"]
    two = [lambda x: x, lambda x: x]   # two alike lambdas on one line: ambiguous
    assert convert_function(two[0]) is two[0]

    def gen(x):
        yield x
    assert convert_function(gen) is gen


SIGN = lambda x, k=2.0: x * k if x.sum() > 0 else -x  # noqa: E731


def test_lambdas_in_files_are_converted():
    assert transformed_source(SIGN) == (
        "def <lambda>(x, k=2.0):\n    return _jst.convert_ifelse_expr(_jst.convert_call(x.sum)()"
        " > 0, lambda: x * k, lambda: -x)")
    main, out = _trace(SIGN, ([2], "float32"))
    assert _op_types(main).count("cond") == 1
    got = paddle.static.Executor().run(main, feed={"x0": np.array([1., 2.], "float32")},
                                       fetch_list=[out])[0]
    np.testing.assert_allclose(got, [2., 4.])


def test_not_to_static_mark_and_ignored_modules():
    def f(x):
        return x
    f._sampan_not_to_static = True
    assert convert_function(f) is f

    def g(x):
        return x
    g.__module__ = "my_ignored_pkg.sub"
    transform.IGNORED_MODULES.add("my_ignored_pkg")
    try:
        assert convert_function(g) is g
    finally:
        transform.IGNORED_MODULES.discard("my_ignored_pkg")
    assert convert_function(g) is not g
    assert convert_function(paddle.tanh) is paddle.tanh


def make_adder(k):
    def add(x, scale=2.0, *, bias=0.5):
        if x.sum() > 0:
            return x * scale + k + bias
        return x + k
    return add


def test_signature_closure_defaults_and_cache():
    a3, a5 = make_adder(3.0), make_adder(5.0)
    c3, c5 = convert_function(a3), convert_function(a5)
    assert convert_function(a3) is c3
    assert c3.__code__ is c5.__code__          # cached per code object
    assert inspect.signature(c3) == inspect.signature(a3)
    x = paddle.to_tensor([1.0])
    assert float(c3(x)) == float(a3(x)) == 1 * 2 + 3 + 0.5
    assert float(c5(x, 1.0, bias=0)) == 6.0
    assert c3.__name__ == "add" and c3.__qualname__ == a3.__qualname__


def test_closure_cells_are_shared_with_the_original():
    k = 1.0

    def f(x):
        return x + k
    c = convert_function(f)
    k = 10.0  # noqa: F841  (rebinding the cell is seen by the converted function)
    assert float(c(paddle.to_tensor([0.0]))) == 10.0


class Model:
    def __init__(self):
        self.k = 2.0

    def run(self, x):
        if x.sum() > 0:
            return x * self.k
        return x


def test_methods_convert_and_rebind():
    m = Model()
    c = convert_function(m.run)
    assert c.__self__ is m and c.__func__.__sampan_code__
    assert float(c(paddle.to_tensor([3.0]))) == 6.0


class _FakeStaticFunction:
    """Duck type of sampan.jit.api.StaticFunction for convert_call."""

    def __init__(self, fn):
        self.dygraph_function = fn
StaticFunction = type("StaticFunction", (_FakeStaticFunction,), {})


def test_convert_call_unwraps_static_functions_and_maps_builtins():
    sf = StaticFunction(golden_if)
    assert convert_call(sf) is convert_function(golden_if)
    assert convert_call(len) is not len and convert_call(print) is not print
    assert convert_call(paddle.matmul) is paddle.matmul


class Stateful:
    def __init__(self):
        self.calls = 0
        self.log = []

    def step(self, x):
        if x.sum() > 0:
            self.calls += 1
            self.log.append(x)
        return x * 2


def test_tensor_dependent_side_effects_are_unsupported():
    s = Stateful()
    c = convert_function(s.step)
    assert float(c(paddle.to_tensor([1.0]))) == 2.0 and s.calls == 1 and len(s.log) == 1
    assert "effects=('self.calls', 'self.log')" in c.__func__.__sampan_code__
    with pytest.raises(Unsupported, match="'self.calls' is changed inside a tensor-dependent if"):
        _trace(s.step, ([1], "float32"))


def test_converted_closures_do_not_keep_their_originals_alive():
    import gc
    import weakref
    fn = make_adder(1.0)
    ref = weakref.ref(fn)
    convert_function(fn)
    del fn
    gc.collect()
    assert ref() is None


def _bad_callee(y):
    return y.reshape([5, 5])  # callee line


def bad_in_loop(x, n):
    i = 0
    while i < n:
        x = _bad_callee(x) + 1
        i += 1
    return x


def test_locate_through_loop_body_and_callee():
    with pytest.raises(Exception) as info:
        _trace(bad_in_loop, ([3], "float32"), ([], "int64"))
    filename, lineno, line = errors.locate(info.value)
    assert (filename, line) == (__file__, "return y.reshape([5, 5])  # callee line")
    assert lineno == inspect.getsourcelines(_bad_callee)[1] + 1


def numpy_of_var(x):
    a = x.numpy()  # Paddle's converter strips `.numpy()`: `a` is x itself
    return x * 2 + a


def test_numpy_call_on_static_tensor_is_the_tensor():
    f = paddle.jit.to_static(numpy_of_var, full_graph=True)
    np.testing.assert_allclose(f(paddle.to_tensor([1.0, 2.0])).numpy(), [3.0, 6.0])
    np.testing.assert_allclose(f(paddle.to_tensor([3.0, 2.0])).numpy(), [9.0, 6.0])


def print_type_of_var(x):
    print("kind", type(x))
    return x + 1


def test_print_of_a_variable_class_is_plain_text(capsys):
    f = paddle.jit.to_static(print_type_of_var, full_graph=True)
    np.testing.assert_allclose(f(paddle.to_tensor([1.0])).numpy(), [2.0])
    assert "kind <class" in capsys.readouterr().out
