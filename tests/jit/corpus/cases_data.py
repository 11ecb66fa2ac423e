"""Corpus: combined constructs — small models and algorithms mixing branches, loops,
early exits, tensor arrays and calls, with dtype variety."""
import numpy as np

import sampan as paddle

from . import case, neg, pos, rand


def _ints():
    return (np.array([3, 1, 4, 1, 5], "int64"),)


@case(_ints)
def int_tensor_branch(x):
    if x.max() > 4:
        x = x * 2
    return x


@case(pos(3), neg(3))
def relu_manual(x):
    out = []
    for i in range(3):
        v = x[i]
        if v > 0:
            out.append(v)
        else:
            out.append(v * 0)
    return paddle.stack(out)


@case(lambda: (np.array(10, "int64"),), lambda: (np.array(1, "int64"),))
def fibonacci(n):
    a, b = 0, 1
    i = 0
    while i < n:
        a, b = b, a + b
        i += 1
    return a


@case(lambda: (np.array(27, "int64"),), lambda: (np.array(6, "int64"),))
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@case(lambda: (rand(5), np.array(0.5, "float32")))
def count_above(x, t):
    c = 0
    for v in x:
        if v > t:
            c = c + 1
    return c


@case(lambda: (np.array([0.9, 0.1, 0.3], "float32"), np.array(4, "int64")))
def newton_sqrt(x, iters):
    y = x
    for _ in range(iters):
        y = 0.5 * (y + x / y)
    return y


@case(pos(4, 3), neg(4, 3))
def rnn_like_loop(x):
    h = paddle.zeros([3])
    for t in range(x.shape[0]):
        h = paddle.tanh(x[t] + h * 0.5)
        if h.sum() > 2.5:
            break
    return h


@case(lambda: (rand(6), np.array(4, "int64")))
def greedy_decode(logits, max_len):
    tokens = []
    state = logits
    step = 0
    while step < max_len:
        tok = paddle.argmax(state)
        tokens.append(tok)
        if tok == 0:
            break
        state = state * 0.9 - 0.1
        step += 1
    return paddle.stack(tokens), step


@case(pos(3), neg(3))
def early_exit_search(x):
    for i in range(3):
        for j in range(3):
            if x[i] * j > 1.0:
                return x * (i + j)
    return x


@case(pos(2, 3), neg(2, 3))
def mixed_ternary_and_loop(x):
    total = x.sum(1)
    for i in range(2):
        total = total + (1.0 if i == 0 else 2.0)
        total = total * 2 if total.mean() > 0 else total - 1
    return total


@case(pos(3), neg(3))
def float64_branch(x):
    y = x.astype("float64")
    if y.sum() > 0:
        y = y * 1e-3
    return y


@case(pos(3), neg(3))
def bool_ops_on_tensors(x):
    m = (x > 0) & (x < 10)
    if paddle.all(m) or paddle.any(x < -5):
        return m.astype("float32")
    return (~m).astype("float32")


@case(lambda: (rand(3), np.array(2, "int64")), lambda: (rand(3), np.array(7, "int64")))
def switch_like_elifs(x, k):
    if k == 0:
        y = x
    elif k == 1:
        y = x * 2
    elif k == 2:
        y = x * 3
    else:
        y = x * 4
    return y


@case(lambda: (rand(3), np.array(5, "int64")))
def loop_return_tuple(x, n):
    i = 0
    s = x * 0
    while i < n:
        s = s + x
        if s.sum() > 100:
            return s, i
        i += 1
    return s, i


@case(pos(3), neg(3))
def dict_output(x):
    out = {"y": x}
    if x.sum() > 0:
        out["z"] = x * 2
    else:
        out["z"] = x * 3
    return out


@case(pos(3), neg(3))
def list_output_python_loop(x):
    outs = []
    for k in range(3):
        if x.sum() > k:
            outs.append(x + k)
        else:
            outs.append(x - k)
    return outs


@case(lambda: (rand(4, 3),), dynamic=True)
def dynamic_batch_branch(x):
    if x.mean() > 0:
        x = x * 2
    return x.sum(0)


@case(lambda: (rand(4, 3),), dynamic=True)
def dynamic_batch_len_loop(x):
    s = paddle.zeros([3])
    i = 0
    while i < len(x):
        s = s + x[i]
        i += 1
    return s


@case(pos(3), neg(3))
def while_tensor_cond_and_python(x):
    i = 0
    while i < 5 and x.sum() < 10:
        x = x + 1
        i += 1
    return x, i


@case(lambda: (rand(4, 6),), dynamic=True)
def dynamic_shape_arithmetic(x):
    b = x.shape[0]
    mean = x.sum() / b
    flat = x.reshape([x.shape[0], -1])
    s = 0
    for i in range(x.shape[0]):
        s = s + i
    return mean, flat.reshape([b, 3, 2]).sum(2), s


@case(lambda: (rand(4, 6),), dynamic=True)
def dynamic_flatten_mlp(x):
    h = paddle.tanh(x.reshape([x.shape[0], 2, 3])).reshape([-1, 6])
    if h.mean() > 0:
        h = h * 2
    return h.sum(1)
