"""Corpus: while on tensor conditions, for over range(tensor) / tensors / lists / dicts /
enumerate / zip, break/continue/return inside loops, tensor arrays, loop state."""
import numpy as np

import sampan as paddle

from . import case, neg, pos, rand


def _n(k):
    return lambda: (rand(3), np.array(k, "int64"))


@case(_n(4), _n(0))
def while_tensor_count(x, n):
    i = 0
    while i < n:
        x = x + 1
        i += 1
    return x


@case(pos(3), neg(3))
def while_tensor_value(x):
    while x.sum() < 10:
        x = x + 1.5
    return x


@case(_n(5), _n(2))
def for_range_tensor(x, n):
    s = x * 0
    for i in range(n):
        s = s + x * i
    return s


@case(_n(6))
def for_range_tensor_start_step(x, n):
    s = x * 0
    for i in range(1, n, 2):
        s = s + i
    return s


@case(pos(4, 3), neg(4, 3))
def for_over_tensor_rows(x):
    s = x[0] * 0
    for row in x:
        s = s + row * 2
    return s


@case(lambda: (rand(4, 3),), dynamic=True)
def for_over_tensor_rows_dynamic(x):
    s = paddle.zeros([3])
    for row in x:
        s = s + row
    return s


@case(pos(3))
def for_over_list(x):
    for w in [1.0, 2.0, 3.0]:
        x = x * w
    return x


@case(pos(3))
def for_over_tuple_of_tensors(x):
    ts = (x, x * 2, x * 3)
    s = 0
    for t in ts:
        s = s + t
    return s


@case(pos(3))
def for_over_dict(x):
    d = {"a": 1.0, "b": 2.0}
    for k in d:
        x = x + d[k]
    for k, v in d.items():
        x = x * v
    return x


@case(pos(3))
def for_enumerate(x):
    out = x
    for i, w in enumerate([3.0, 4.0]):
        out = out + w * i
    return out


@case(pos(3))
def for_zip(x):
    for a, b in zip([1.0, 2.0], [3.0, 4.0]):
        x = x + a * b
    return x


@case(_n(5))
def for_enumerate_tensor_range(x, n):
    s = x * 0
    for k, i in enumerate(range(n)):
        s = s + k + i
    return s


@case(_n(6), _n(1))
def while_break(x, n):
    i = 0
    while i < n:
        if i >= 3:
            break
        x = x + 1
        i += 1
    return x


@case(_n(6), _n(2))
def for_range_break(x, n):
    for i in range(n):
        if i > 2:
            break
        x = x * 2
    return x


@case(_n(6))
def for_range_continue(x, n):
    s = x * 0
    for i in range(n):
        if i % 2 == 0:
            continue
        s = s + i
    return s


@case(pos(3), neg(3))
def python_loop_tensor_break(x):
    for k in range(5):
        if x.sum() > 3:
            break
        x = x + 1
    return x


@case(pos(3), neg(3))
def python_loop_tensor_continue(x):
    s = x * 0
    for k in range(4):
        if x.sum() > k:
            continue
        s = s + k
    return s


@case(pos(3), neg(3))
def return_in_python_loop(x):
    for i in range(10):
        if x.sum() > i:
            return x * i
        x = x + 1
    return x


@case(_n(8), _n(1))
def return_in_tensor_loop(x, n):
    i = 0
    while i < n:
        if i == 3:
            return x * 100
        x = x + 1
        i += 1
    return x


@case(_n(8), _n(2))
def return_in_for_range_tensor(x, n):
    for i in range(n):
        if i >= 3:
            return x - 1
        x = x * 2
    return x


@case(_n(4), _n(0))
def tensor_array_append(x, n):
    outs = []
    for i in range(n):
        outs.append(x * i)
    outs.append(x)
    return paddle.stack(outs)


@case(_n(3))
def tensor_array_concat_len(x, n):
    items = [x]
    i = 0
    while i < n:
        items.append(x + i)
        i += 1
    return paddle.concat(items), len(items)


@case(_n(3))
def tensor_array_index_last(x, n):
    hist = []
    for i in range(n):
        x = x * 2
        hist.append(x)
    return hist[-1]


@case(_n(4))
def loop_dict_state(x, n):
    st = {"h": x, "c": x * 0}
    i = 0
    while i < n:
        st["c"] = st["c"] + st["h"]
        st["h"] = st["h"] * 0.5
        i += 1
    return st["h"] + st["c"]


@case(_n(4))
def loop_tuple_state(x, n):
    a, b = x, x * 0
    for i in range(n):
        a, b = b + 1, a
    return a, b


@case(_n(3))
def loop_list_state_fixed_len(x, n):
    acc = [x, x]
    for i in range(n):
        acc = [acc[0] + 1, acc[1] * 2]
    return acc[0] + acc[1]


@case(_n(3), _n(2))
def nested_tensor_loops(x, n):
    s = x * 0
    for i in range(n):
        for j in range(n):
            s = s + i * j
    return s


@case(_n(3))
def tensor_loop_python_inner(x, n):
    i = 0
    while i < n:
        for w in (1.0, 2.0):
            x = x + w
        i += 1
    return x


@case(_n(5))
def while_with_if_inside(x, n):
    i = 0
    while i < n:
        if i % 2 == 0:
            x = x + i
        else:
            x = x - 1
        i += 1
    return x


@case(pos(3), neg(3))
def while_python_then_tensor(x):
    i = 0
    while i < 3:
        x = x + 1
        i += 1
    while x.sum() < 20:
        x = x * 2 + 1
    return x


@case(_n(4))
def loop_var_first_assigned_inside(x, n):
    for i in range(n):
        y = x * i  # noqa: F841  (a loop-local first assigned inside a tensor loop)
        x = x + 1
    return x


@case(_n(4))
def loop_accumulate_from_int(x, n):
    total = 0
    for i in range(n):
        total = total + x
    return total


@case(_n(5))
def for_else_no_break(x, n):
    for i in range(3):
        x = x + 1
    else:
        x = x * 2
    return x


@case(pos(3), neg(3))
def for_else_with_tensor_break(x):
    for i in range(3):
        if x.sum() > 1:
            break
        x = x + 1
    else:
        x = x * 100
    return x


@case(_n(6))
def while_true_break(x, n):
    i = 0
    while True:
        i = i + 1
        if i >= n:
            break
    return x * i


@case(pos(4, 2))
def for_over_tensor_enumerate(x):
    s = x[0] * 0
    for i, row in enumerate(x):
        s = s + row * i
    return s


@case(pos(3), neg(3))
def python_while_tensor_break(x):
    i = 0
    while i < 5:
        if x.sum() > i:
            break
        x = x + 1
        i += 1
    return x, i


@case(pos(3), neg(3))
def python_list_loop_tensor_return(x):
    for w in [0.5, 1.0, 2.0]:
        x = x * w
        if x.sum() > 2:
            return x, w
    return x, 0.0
