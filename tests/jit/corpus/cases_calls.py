"""Corpus: calls into user functions and methods (converted recursively), nested functions,
closures, lambdas, default args, *args/**kwargs, super(), properties, @paddle.no_grad
helpers, layers and sublayers, captured eager tensors and parameters."""
import numpy as np

import sampan as paddle

from . import case, neg, pos, rand

paddle.seed(2024)
W = paddle.to_tensor(rand(3, seed=7))        # an eager tensor captured from module scope
LIN = paddle.nn.Linear(3, 3)


def _helper_branch(x):
    if x.sum() > 0:
        return x * 2
    return x * -2


def _helper_loop(x, n):
    i = 0
    while i < n:
        x = x + 1
        i += 1
    return x


@case(pos(3), neg(3))
def call_user_function(x):
    return _helper_branch(x) + 1


@case(lambda: (rand(3), np.array(3, "int64")))
def call_user_loop_function(x, n):
    return _helper_loop(x, n) * 2


@case(pos(3), neg(3))
def call_recursive_chain(x):
    y = _helper_branch(_helper_branch(x))
    return call_user_function(y)


@case(pos(3), neg(3))
def nested_def_closure(x):
    k = 3.0

    def inner(y):
        if y.sum() > 0:
            return y * k
        return y

    return inner(x) + inner(-x)


@case(pos(3), neg(3))
def closure_rebinding(x):
    scale = 1.0

    def bump():
        nonlocal scale
        scale = scale * 2

    bump()
    bump()
    if x.sum() > 0:
        x = x * scale
    return x


@case(pos(3), neg(3))
def lambda_inside(x):
    f = lambda t: t * 2 if t.sum() > 0 else t * 3  # noqa: E731
    return f(x)


@case(pos(3), neg(3))
def default_args(x, a=2.0, b=None):
    if b is None:
        b = 1.0
    if x.sum() > 0:
        x = x * a + b
    return x


def _varargs(*xs, **kw):
    s = 0
    for t in xs:
        s = s + t
    if kw.get("double", False):
        s = s * 2
    return s


@case(pos(3), neg(3))
def star_args_kwargs(x):
    return _varargs(x, x * 2, double=True) + _varargs(x)


@case(lambda: (rand(3), rand(3, seed=3)))
def def_star_args(*xs):
    out = xs[0]
    for t in xs[1:]:
        if t.sum() > out.sum():
            out = t
    return out


@case(pos(3), neg(3))
def captured_eager_tensor(x):
    if (x * W).sum() > 0:
        return x + W
    return x - W


@case(pos(3), neg(3))
def captured_parameter(x):
    y = LIN(x.reshape([1, 3]))
    if y.sum() > 0:
        y = y * 2
    return y


@paddle.no_grad()
def _no_grad_helper(x):
    if x.sum() > 0:
        return x * 4
    return x


@case(pos(3), neg(3))
def no_grad_helper(x):
    return _no_grad_helper(x) + 1


class Base(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self._scale = 2.0

    @property
    def scale(self):
        return self._scale

    def forward(self, x):
        y = self.fc(x)
        if y.mean() > 0:
            y = y * self.scale
        return y


class Child(Base):
    def __init__(self):
        super().__init__()
        self.__private = 3.0

    def helper(self, y):
        for i in range(2):
            y = y + self.__private
        return y

    def forward(self, x):
        y = super().forward(x)
        if y.sum() > 0:
            y = super().forward(y)
        return self.helper(y)


class Outer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.inner = Child()
        self.blocks = paddle.nn.LayerList([paddle.nn.Linear(3, 3) for _ in range(2)])

    def forward(self, x):
        h = self.inner(x)
        for blk in self.blocks:
            h = blk(h)
            if h.sum() < 0:
                h = -h
        return h


paddle.seed(5)
BASE, CHILD, OUTER = Base(), Child(), Outer()


def _rows():
    return (rand(2, 3),)


@case(_rows, lambda: (-rand(2, 3, seed=4),))
def layer_forward_property(x):
    return BASE(x)


@case(_rows, lambda: (-rand(2, 3, seed=4),))
def layer_super_private(x):
    return CHILD(x)


@case(_rows)
def layer_sublayers_layerlist(x):
    return OUTER(x)


@case(_rows)
def bound_method_call(x):
    return CHILD.helper(x)


class Counter:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        if x.sum() > 0:
            return x + self.k
        return x - self.k


_COUNTER = Counter(5.0)


@case(pos(3), neg(3))
def callable_object(x):
    return _COUNTER(x)


@case(pos(3), neg(3))
def builtins_len_isinstance(x):
    n = len(x)
    ok = isinstance(x, paddle.Tensor)
    if ok and n == 3:
        x = x + n
    return x


@case(pos(3), neg(3))
def casts_of_tensors(x):
    a = int(x.sum() > 0)
    b = float(x.max())
    c = bool(x.min() > -100)
    return x * b + a + int(c)


@case(pos(3), neg(3))
def print_and_assert(x):
    assert len(x.shape) == 1, "x must be a vector"
    y = x * 2
    print("y is", y)
    return y


@case(pos(3), neg(3))
def tensor_methods_and_functions(x):
    y = paddle.tanh(x) + x.abs().sqrt()
    if paddle.any(y > 1):
        y = paddle.clip(y, 0, 1)
    return y


@case(pos(3), neg(3))
def comprehension_inside(x):
    ys = [x * k for k in range(3)]
    if ys[1].sum() > 0:
        return paddle.stack(ys).sum(0)
    return ys[2]


@case(pos(3), neg(3))
def global_constant_use(x):
    global _GLOBAL_K  # noqa: F824  (a declared global that is only read)
    if x.sum() > 0:
        x = x * _GLOBAL_K
    return x


_GLOBAL_K = 7.0


class DecoratedSub(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)

    @paddle.jit.to_static
    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            y = paddle.nn.functional.relu(y)
        return y


class WithDecoratedSub(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.sub = DecoratedSub()

    def forward(self, x):
        h = self.sub(x)
        for _ in range(2):
            h = self.sub(h) + x
        return h


@paddle.jit.to_static
def _static_helper(x):
    if x.mean() > 0:
        return x * 3
    return x


paddle.seed(11)
WITH_SUB = WithDecoratedSub()


@case(_rows, lambda: (-rand(2, 3, seed=4),))
def sublayer_forward_decorated(x):
    return WITH_SUB(x)


@case(pos(3), neg(3))
def calls_to_static_function(x):
    return _static_helper(x) + _static_helper(-x)


_LAMBDA = lambda t, k=2.0: t * k if t.sum() > 0 else t - k  # noqa: E731


@case(pos(3), neg(3))
def call_global_lambda(x):
    return _LAMBDA(x) + _LAMBDA(x, k=5.0)


class Gate(paddle.nn.Layer):
    def forward(self, x):
        if x.mean() > 0:
            return x * 2
        return x - 1


paddle.seed(13)
SEQ = paddle.nn.Sequential(paddle.nn.Linear(3, 3), Gate(), paddle.nn.Linear(3, 3), Gate())


@case(_rows, lambda: (-rand(2, 3, seed=4),))
def sequential_with_user_layers(x):
    return SEQ(x)
