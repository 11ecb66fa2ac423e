"""Corpus: syntax around the converted constructs — try/with, walrus, item assignment,
nested unpacking, defs inside branches, recursion, generators, keyword-/positional-only
arguments, user decorators, while-else, starred assignment, breaking out of nested loops."""
import functools

import sampan as paddle

from . import case, neg, pos

@case(pos(3), neg(3))
def try_except(x):
    try:
        if x.sum() > 0:
            y = x * 2
        else:
            y = x * 3
    except ValueError:
        y = x
    return y

@case(pos(3), neg(3))
def with_block(x):
    with paddle.static.name_scope("blk"):
        if x.sum() > 0:
            return x + 1
    return x - 1


@case(pos(3), neg(3))
def with_no_grad(x):
    with paddle.no_grad():
        y = x * 2
    return y + x

@case(pos(3), neg(3))
def walrus(x):
    if (s := x.sum()) > 0:
        x = x * s
    return x

@case(pos(3), neg(3))
def setitem(x):
    y = x * 1
    if x.sum() > 0:
        y[0] = 100.0
    return y

@case(pos(3), neg(3))
def unpack_for(x):
    pairs = [(1.0, (2.0, 3.0)), (4.0, (5.0, 6.0))]
    for a, (b, c) in pairs:
        if x.sum() > a:
            x = x + b * c
    return x

@case(pos(3), neg(3))
def def_in_branch(x):
    if x.sum() > 0:
        def g(t):
            return t * 2
        y = g(x)
    else:
        y = x
    return y

def rec(x, n):
    if n == 0:
        return x
    return rec(x * 2, n - 1)

@case(pos(3), neg(3))
def recursion(x):
    return rec(x, 3)

@case(pos(3), neg(3))
def gen_loop(x):
    s = x * 0
    for t in (x * k for k in range(3)):
        s = s + t
    return s

@case(pos(3), neg(3))
def kwonly(x, *, k=2.0, **kw):
    if x.sum() > 0:
        x = x * k
    return x

@case(pos(3), neg(3))
def posonly(x, k=3.0, /):
    return kwonly(x, k=k)

def deco(f):
    @functools.wraps(f)
    def wrapper(*a, **k):
        return f(*a, **k) + 1
    return wrapper

@deco
def decorated(x):
    if x.sum() > 0:
        return x * 2
    return x

@case(pos(3), neg(3))
def use_decorated(x):
    return decorated(x)

@case(pos(3), neg(3))
def while_else_break(x):
    i = 0
    while i < 3:
        if x.sum() > 100:
            break
        x = x + 1
        i += 1
    else:
        x = x * 10
    return x

@case(pos(3), neg(3))
def star_assign(x):
    a, *rest = [x, x * 2, x * 3]
    if x.sum() > 0:
        a, *rest = [x * 4, x, x]
    return a + rest[0] + rest[1]

@case(pos(3), neg(3))
def nested_loops_break_outer(x):
    found = x * 0
    for i in range(3):
        for j in range(3):
            if (x * i * j).sum() > 2:
                found = x * i
                break
        if found.sum() != 0:
            break
    return found


@case(pos(3), neg(3))
def aug_in_loop_python_list(x):
    acc = []
    for i in range(3):
        acc += [x * i]
    return paddle.add_n(acc)

@case(pos(3), neg(3))
def while_cond_fn_call(x):
    def cond(v):
        return v.sum() < 10
    while cond(x):
        x = x + 1
    return x

@case(pos(3), neg(3))
def chained_static(x):
    y = x.sum()
    if 0 < y < 100 and not y > 50:
        return x
    return -x

@case(pos(3), neg(3))
def lambda_sort(x):
    vals = sorted([3, 1, 2], key=lambda v: -v)
    return x * vals[0]


@case(pos(3), neg(3))
def match_in_tensor_branch(x, spec=("scale", 3.0)):
    if x.sum() > 0:
        match spec:
            case ("scale", k):
                y = x * k
            case _:
                y = x
    else:
        y = -x
    return y


@case(pos(3), neg(3))
def match_with_jumps(x, kinds=("skip", "grow", "stop", "grow")):
    for kind in kinds:
        match kind:
            case "skip":
                continue
            case "stop":
                if x.sum() > 1:
                    return x * 10
                break
            case _:
                x = x + 1
    return x
