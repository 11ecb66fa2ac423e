"""Corpus: if/elif/else on tensors, early return, nested ifs, and/or/not, comparisons,
ternaries, Python-valued conditions."""
import numpy as np

from . import case, neg, pos, rand


@case(pos(3), neg(3))
def if_else(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = -x
    return y


@case(pos(3), neg(3))
def if_no_else(x):
    y = x + 1
    if x.mean() > 0:
        y = y * 3
    return y


@case(pos(3), neg(3), lambda: (np.zeros(3, "float32"),))
def if_elif_else(x):
    s = x.sum()
    if s > 0.5:
        out = x + 10
    elif s < -0.5:
        out = x - 10
    else:
        out = x * 0
    return out


@case(pos(3), neg(3))
def if_early_return(x):
    if x.sum() > 0:
        return x * 5
    return x - 5


@case(pos(3), neg(3))
def if_return_both(x):
    if x.max() > 0:
        return x + 1, x.sum()
    else:
        return x - 1, x.mean()


@case(pos(2, 3), neg(2, 3))
def nested_if(x):
    if x.sum() > 0:
        if x.max() > 1.0:
            y = x * 2
        else:
            y = x * 3
    else:
        if x.min() < -1.0:
            y = x / 2
        else:
            y = x / 3
    return y


@case(pos(3), neg(3))
def if_creates_var_used_both(x):
    if x.sum() > 0:
        a = x + 1
        b = a * 2
    else:
        a = x - 1
        b = a * 3
    return a + b


@case(pos(3), neg(3))
def if_python_number_vs_tensor(x):
    scale = 1.0
    if x.sum() > 0:
        scale = x.mean()
    return x * scale


@case(pos(3), neg(3))
def if_int_flags(x):
    flag = 0
    if x.sum() > 0:
        flag = 1
    return x + flag


@case(pos(3), neg(3))
def and_or_tensor(x):
    if x.sum() > 0 and x.max() > 0.5:
        y = x + 1
    elif x.sum() < 0 or x.min() > 100:
        y = x - 1
    else:
        y = x
    return y


@case(pos(3), neg(3))
def not_tensor(x):
    if not x.sum() > 0:
        return x * -1
    return x


@case(pos(3), neg(3))
def chained_compare(x):
    if -100.0 < x.sum() < 100.0:
        y = x * 2
    else:
        y = x
    return y


@case(pos(3), neg(3))
def ternary_tensor(x):
    y = x * 2 if x.sum() > 0 else x * 3
    return y


@case(pos(3), lambda: (rand(3), 3))
def python_condition(x, n=1):
    if n > 2:
        x = x + n
    if isinstance(n, int) and n:
        x = x * 2
    return x


@case(pos(3), neg(3))
def python_and_tensor_mix(x, use=True):
    if use and x.sum() > 0:
        x = x + 100
    return x


@case(pos(3), neg(3))
def if_shape_condition(x):
    if x.shape[0] == 3:
        return x.sum()
    return x.mean()


@case(pos(3), neg(3))
def if_bool_tensor_cond(x):
    c = x.sum() > 0
    if c:
        x = x * 10
    return x


@case(pos(3), neg(3))
def if_nonbool_cond(x):
    if x.sum():
        x = x + 1
    return x


@case(pos(3), neg(3))
def if_in_python_if(x, mode="train"):
    if mode == "train":
        if x.mean() > 0:
            x = x * 2
    return x


@case(pos(3), neg(3))
def if_tuple_state(x):
    pair = (x, x * 2)
    if x.sum() > 0:
        pair = (x + 1, x + 2)
    return pair[0] + pair[1]


@case(pos(3), neg(3))
def if_dict_state(x):
    d = {"a": x, "b": x * 0}
    if x.sum() > 0:
        d["b"] = x * 5
    else:
        d["a"] = x * 7
    return d["a"] + d["b"]


@case(pos(3), neg(3))
def if_list_same_len(x):
    ys = [x, x]
    if x.sum() > 0:
        ys = [x * 2, x * 3]
    return ys[0] - ys[1]


@case(pos(3), neg(3))
def if_return_in_nested(x):
    if x.sum() > 0:
        if x.max() > 10:
            return x * 100
        x = x + 1
    return x


@case(pos(3), neg(3))
def if_only_in_one_branch_returns(x):
    y = x * 2
    if x.sum() < 0:
        return y
    y = y + 1
    return y * 3


@case(pos(3), neg(3))
def ternary_numbers(x):
    k = 2 if x.sum() > 0 else 3
    return x * k


@case(pos(3), neg(3))
def logical_values_python(x):
    a = 0 or 5
    b = 3 and 7
    c = not 0
    return x * (a + b + int(c))


@case(pos(3), neg(3))
def if_elif_chain_return(x):
    s = x.sum()
    if s > 100:
        return x * 1
    elif s > 0:
        return x * 2
    elif s > -100:
        return x * 3
    return x * 4
