"""Program passes: golden before/after text, verify() after the pass, and equal outputs of
the program before and after on random inputs (Executor)."""
import types

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.static import passes
from sampan.utils import unique_name
from tests.static_util import static_guard

F = paddle.nn.functional


def _build(fn):
    main = static.Program()
    with unique_name.guard(), static_guard(main, static.Program()):
        out = fn()
    return main, out


def _same_outputs(before, after, fetch, feed, scope=None, rtol=1e-6, atol=1e-6):
    exe = static.Executor()
    names = [f.name for f in fetch]
    want = exe.run(before, feed=feed, fetch_list=names, scope=scope)
    got = exe.run(after, feed=feed, fetch_list=names, scope=scope)
    for w, g, n in zip(want, got, names):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=n)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype("float32")


def test_registry_lists_every_pass():
    assert {"dead_code_elimination", "constant_folding", "common_subexpression_elimination",
            "fuse_elementwise", "inplace", "fuse_linear", "fuse_conv_bn"} <= set(passes.PASSES)
    main, _ = _build(lambda: paddle.exp(static.data("x", [2], "float32")))
    with pytest.raises(KeyError, match="no pass named 'nope'"):
        passes.apply(main, ["constant_folding", "nope"])
    with pytest.raises(TypeError, match="program must be a Program"):
        passes.apply("main", ["constant_folding"])


def test_constant_folding_golden_and_values():
    def fn():
        x = static.data("x", [2], "float32")
        c = paddle.full([2], 2.0, "float32")
        return x + paddle.exp(c * 3.0)
    main, out = _build(fn)
    before = str(main)
    after = passes.apply(main, "constant_folding", keep=[out])
    assert before == (
        "block 0:\n"
        "  data %x: float32[2]\n"
        "  const %const_0: float32[]\n"
        "  %tmp_0 = full(fill_value=2.0, shape=[2])  # float32[2]\n"
        "  %tmp_1 = multiply(x=%tmp_0, y=%const_0)  # float32[2]\n"
        "  %tmp_2 = exp(x=%tmp_1)  # float32[2]\n"
        "  %tmp_3 = add(x=%x, y=%tmp_2)  # float32[2]")
    assert str(after) == (
        "block 0:\n"
        "  data %x: float32[2]\n"
        "  const %const_0: float32[]\n"
        "  const %tmp_2: float32[2]\n"
        "  %tmp_3 = add(x=%x, y=%tmp_2)  # float32[2]")
    assert str(main) == before
    after.verify()
    np.testing.assert_allclose(after._consts["tmp_2"], np.exp(np.full(2, 6.0, "float32")))
    _same_outputs(main, after, [out], {"x": _rand(2)})


def test_constant_folding_leaves_random_ops():
    def fn():
        x = static.data("x", [3], "float32")
        return x + paddle.rand([3])
    main, out = _build(fn)
    after = passes.apply(main, "constant_folding")
    assert [op.type for op in after.global_block().ops] == ["uniform", "add"]


def test_cse_golden_and_values():
    def fn():
        x = static.data("x", [2, 3], "float32")
        a, b = paddle.exp(x), paddle.exp(x)
        return paddle.sum(a, axis=1) + paddle.sum(b, axis=1)
    main, out = _build(fn)
    after = passes.apply(main, "common_subexpression_elimination", keep=[out])
    assert str(main) == (
        "block 0:\n"
        "  data %x: float32[2, 3]\n"
        "  %tmp_0 = exp(x=%x)  # float32[2, 3]\n"
        "  %tmp_1 = exp(x=%x)  # float32[2, 3]\n"
        "  %tmp_2 = sum(x=%tmp_0, axis=1)  # float32[2]\n"
        "  %tmp_3 = sum(x=%tmp_1, axis=1)  # float32[2]\n"
        "  %tmp_4 = add(x=%tmp_2, y=%tmp_3)  # float32[2]")
    assert str(after) == (
        "block 0:\n"
        "  data %x: float32[2, 3]\n"
        "  %tmp_0 = exp(x=%x)  # float32[2, 3]\n"
        "  %tmp_2 = sum(x=%tmp_0, axis=1)  # float32[2]\n"
        "  %tmp_4 = add(x=%tmp_2, y=%tmp_2)  # float32[2]")
    after.verify()
    _same_outputs(main, after, [out], {"x": _rand(2, 3)})


def test_cse_respects_keep_random_and_rewritten_state():
    def fn():
        x = static.data("x", [3], "float32")
        w = static.create_global_var([3], 1.0, "float32", persistable=True, name="w")
        a = x * w
        w.add_(x)          # w = assign(w + x): a later x * w reads a new value
        b = x * w
        r1, r2 = paddle.rand([3]), paddle.rand([3])
        return a + b + r1 + r2 + paddle.exp(x) + paddle.exp(x)
    main, out = _build(fn)
    kept_exp = [op for op in main.global_block().ops if op.type == "exp"][1]
    after = passes.apply(main, "common_subexpression_elimination",
                         keep=[out, kept_exp.output_arg_names[0]])
    types_ = [op.type for op in after.global_block().ops]
    assert types_.count("multiply") == 2 and types_.count("uniform") == 2
    assert types_.count("exp") == 2   # the second exp's output is kept by name
    after.verify()
    again = passes.apply(main, "common_subexpression_elimination", keep=[out])
    assert [op.type for op in again.global_block().ops].count("exp") == 1


def test_fuse_elementwise_golden_values_and_decompose():
    def fn():
        x = static.data("x", [2, 3], "float32")
        y = static.data("y", [3], "float32")
        h = paddle.matmul(x, paddle.ones([3, 3], "float32"))
        return paddle.tanh(h * y + x) - y
    main, out = _build(fn)
    after = passes.apply(main, "fuse_elementwise", keep=[out])
    assert str(after) == (
        "block 0:\n"
        "  data %x: float32[2, 3]\n"
        "  data %y: float32[3]\n"
        "  %tmp_0 = full(fill_value=1, shape=[3, 3])  # float32[3, 3]\n"
        "  %tmp_1 = matmul(x=%x, y=%tmp_0)  # float32[2, 3]\n"
        "  %tmp_5 = fused_elementwise(xs=[%tmp_1, %y, %x], graph=[[\"multiply\", [0, 1], {}], "
        "[\"add\", [3, 2], {}], [\"tanh\", [4], {}], [\"subtract\", [5, 1], {}]])  "
        "# float32[2, 3]")
    after.verify()
    feed = {"x": _rand(2, 3), "y": _rand(3, seed=1)}
    _same_outputs(main, after, [out], feed)
    from sampan.ops.opdef import REGISTRY
    fused = after.global_block().ops[-1]
    xs = [paddle.to_tensor(v) for v in (feed["x"] @ np.ones((3, 3), "float32"), feed["y"],
                                        feed["x"])]
    dec = REGISTRY["fused_elementwise"].decompose(xs, **fused.attrs)
    np.testing.assert_allclose(dec.numpy(), static.Executor().run(
        after, feed=feed, fetch_list=[out])[0], rtol=1e-6)


def test_fuse_elementwise_keeps_fetched_and_shared_values():
    def fn():
        x = static.data("x", [4], "float32")
        a = paddle.exp(x)
        b = paddle.sin(a)          # a also read by the matmul-free sum below
        s = paddle.sum(a)
        return paddle.tanh(b) * 2.0, s
    main, (out, s) = _build(fn)
    after = passes.apply(main, "fuse_elementwise", keep=[out, s])
    types_ = [op.type for op in after.global_block().ops]
    assert types_ == ["exp", "sum", "fused_elementwise"]  # exp has a reader outside
    b_name = main.global_block().ops[1].output_arg_names[0]
    kept = passes.apply(main, "fuse_elementwise", keep=[out, s, b_name])
    assert [op.type for op in kept.global_block().ops] == ["exp", "sin", "sum",
                                                          "fused_elementwise"]
    for prog in (after, kept):
        prog.verify()
        _same_outputs(main, prog, [out, s], {"x": _rand(4)})


def test_fused_program_gradients_equal_unfused():
    def fn():
        x = static.data("x", [3, 4], "float32")
        x.stop_gradient = False
        y = paddle.tanh(x * x + 1.0) * paddle.exp(-x)
        return paddle.sum(y), x
    main = static.Program()
    with static_guard(main, static.Program()):  # globally unique names
        loss, x = fn()
    fused = passes.apply(main, "fuse_elementwise", keep=[loss])
    assert any(op.type == "fused_elementwise" for op in fused.global_block().ops)
    feed = {"x": _rand(3, 4)}
    grads = []
    for prog in (main, fused):
        with static_guard(prog):
            lv = prog.global_block().var(loss.name)
            xv = prog.global_block().var(x.name)
            (g,) = static.gradients([lv], [xv])
        prog.verify()
        grads.append(static.Executor().run(prog, feed=feed, fetch_list=[g])[0])
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)


def test_inplace_golden_values_and_executor_guard():
    def fn():
        x = static.data("x", [2, 3], "float32")
        a = paddle.exp(x)
        return F.relu(a * 2.0), a
    main, (out, a) = _build(fn)
    after = passes.apply(main, "inplace")     # no keep: `a` looks dead after the multiply
    assert str(after) == (
        "block 0:\n"
        "  data %x: float32[2, 3]\n"
        "  const %const_0: float32[]\n"
        "  %tmp_0 = exp(x=%x)  # float32[2, 3]\n"
        "  %tmp_1 = fused_elementwise(xs=[%tmp_0, %const_0], graph=[[\"multiply\", [0, 1], "
        "{}]], inplace=0)  # float32[2, 3]\n"
        "  %tmp_2 = fused_elementwise(xs=[%tmp_1], graph=[[\"relu\", [0], {}]], inplace=0)"
        "  # float32[2, 3]")
    after.verify()
    xv = _rand(2, 3)
    _same_outputs(main, after, [out], {"x": xv})
    # fetching the reused input: the Executor ignores the mark, so `a` is still exp(x)
    got_out, got_a = static.Executor().run(after, feed={"x": xv}, fetch_list=[out, a])
    np.testing.assert_allclose(got_a, np.exp(xv), rtol=1e-6)
    np.testing.assert_allclose(got_out, np.maximum(np.exp(xv) * 2, 0), rtol=1e-6)
    kept = passes.apply(main, "inplace", keep=[out, a])
    assert kept.global_block().ops[1].type == "multiply"    # `a` is fetched: not marked


def test_inplace_really_reuses_the_buffer():
    from sampan.ops.opdef import REGISTRY
    op = REGISTRY["fused_elementwise"]
    a = np.arange(6, dtype="float32").reshape(2, 3)
    out = op.compute(np, [a, np.full((), 2.0, "float32")],
                     graph=[["multiply", [0, 1], {}], ["exp", [2], {}]], inplace=0)
    assert out is a                     # written into the dead input's buffer
    b = np.arange(6, dtype="float32").reshape(2, 3)
    out = op.compute(np, [b, np.ones((), "float32")],
                     graph=[["multiply", [0, 1], {}], ["exp", [2], {}]])
    assert out is not b and np.array_equal(b, np.arange(6, dtype="float32").reshape(2, 3))


def test_inplace_skips_fed_persistable_and_aliased_inputs():
    def fn():
        x = static.data("x", [4], "float32")
        r = paddle.reshape(paddle.exp(x), [2, 2])   # a view of exp's buffer
        e2 = paddle.exp(x)
        v = paddle.reshape(e2, [4])
        return x * 2.0, paddle.sin(r) + 1.0, paddle.cos(e2) * v
    main, outs = _build(fn)
    after = passes.apply(main, "inplace", keep=list(outs))
    marks = {op.output_arg_names[0]: op.attrs.get("inplace", -1)
             for op in after.global_block().ops}
    assert marks[outs[0].name] == -1    # x is fed
    after.verify()
    _same_outputs(main, after, list(outs), {"x": _rand(4)})
    e2_name = main.global_block().ops[2].output_arg_names[0]
    assert main.global_block().ops[2].type == "exp"
    for op in after.global_block().ops:   # e2 is aliased by a reshape: never reused
        if op.attrs.get("inplace", -1) >= 0:
            assert op.inputs["xs"][op.attrs["inplace"]] != e2_name
    assert "cos" in [op.type for op in after.global_block().ops]


def _linear_program():
    def fn():
        x = static.data("x", [2, 3], "float32")
        w = static.create_parameter([3, 4], "float32", name="w")
        b = static.create_parameter([4], "float32", name="b")
        h = F.relu(paddle.matmul(x, w) + b)
        w2 = static.create_parameter([4, 2], "float32", name="w2")
        b2 = static.create_parameter([2], "float32", name="b2")
        return F.gelu(F.linear(h, w2, b2))
    return _build(fn)


def _init_scope(program, seed=0):
    scope = static.Scope()
    rng = np.random.default_rng(seed)
    for v in program.global_block().vars.values():
        if v.is_parameter:
            scope.set(v.name, rng.uniform(-1, 1, v.shape).astype("float32"))
    return scope


def test_fuse_linear_golden_and_values():
    main, out = _linear_program()
    after = passes.apply(main, "fuse_linear", keep=[out])
    assert str(after) == (
        "block 0:\n"
        "  data %x: float32[2, 3]\n"
        "  param %w: float32[3, 4]\n"
        "  param %b: float32[4]\n"
        "  param %w2: float32[4, 2]\n"
        "  param %b2: float32[2]\n"
        "  %tmp_2 = fused_linear(x=%x, weight=%w, bias=%b, activation=\"relu\")  "
        "# float32[2, 4]\n"
        "  %tmp_4 = fused_linear(x=%tmp_2, weight=%w2, bias=%b2, activation=\"gelu\")  "
        "# float32[2, 2]")
    after.verify()
    scope = _init_scope(main)
    _same_outputs(main, after, [out], {"x": _rand(2, 3)}, scope=scope)


def test_fuse_linear_needs_plain_matmul_and_private_intermediates():
    def fn():
        x = static.data("x", [2, 3], "float32")
        w = static.create_parameter([4, 3], "float32", name="w")
        b = static.create_parameter([4], "float32", name="b")
        t = paddle.matmul(x, w, transpose_y=True) + b     # transposed: no match
        w2 = static.create_parameter([4, 4], "float32", name="w2")
        h = paddle.matmul(t, w2)
        return F.relu(h + b), h                            # h is also an output
    main, (out, h) = _build(fn)
    after = passes.apply(main, "fuse_linear", keep=[out, h])
    types_ = [op.type for op in after.global_block().ops]
    assert types_ == ["matmul", "add", "matmul", "add", "relu"]
    after.verify()


def _conv_bn_program(with_bias=True):
    paddle.seed(3)

    def fn():
        x = static.data("x", [2, 3, 6, 6], "float32")
        conv = paddle.nn.Conv2D(3, 4, 3, padding=1, bias_attr=None if with_bias else False)
        bn = paddle.nn.BatchNorm2D(4)
        bn.eval()
        rng = np.random.default_rng(4)
        bn._mean.set_value(rng.standard_normal(4).astype("float32"))
        bn._variance.set_value(rng.uniform(0.5, 2.0, 4).astype("float32"))
        bn.weight.set_value(rng.uniform(0.5, 1.5, 4).astype("float32"))
        bn.bias.set_value(rng.standard_normal(4).astype("float32"))
        return F.relu(bn(conv(x)))
    return _build(fn)


def test_fuse_conv_bn_golden_and_values():
    main, out = _conv_bn_program()
    after = passes.apply(main, "fuse_conv_bn", keep=[out])
    assert str(after) == (
        "block 0:\n"
        "  data %x: float32[2, 3, 6, 6]\n"
        "  param %conv2d_0.w_0: float32[4, 3, 3, 3]\n"
        "  param %conv2d_0.b_0: float32[4]\n"
        "  param %batch_norm2d_0.w_1: float32[4]\n"
        "  param %batch_norm2d_0.w_2: float32[4]\n"
        "  param %batch_norm2d_0.w_0: float32[4]\n"
        "  param %batch_norm2d_0.b_0: float32[4]\n"
        "  const %conv2d_0.w_0.bn_folded_0: float32[4, 3, 3, 3]\n"
        "  const %conv2d_0.w_0.bn_bias_0: float32[4]\n"
        "  %tmp_1 = conv2d(x=%x, weight=%conv2d_0.w_0.bn_folded_0, "
        "bias=%conv2d_0.w_0.bn_bias_0, padding=[1, 1, 1, 1])  # float32[2, 4, 6, 6]\n"
        "  %tmp_6 = relu(x=%tmp_1)  # float32[2, 4, 6, 6]")
    after.verify()
    _same_outputs(main, after, [out], {"x": _rand(2, 3, 6, 6)}, rtol=1e-5, atol=1e-5)


def test_fuse_conv_bn_without_conv_bias_and_not_in_training():
    main, out = _conv_bn_program(with_bias=False)
    after = passes.apply(main, "fuse_conv_bn", keep=[out])
    assert [op.type for op in after.global_block().ops] == ["conv2d", "relu"]
    after.verify()
    _same_outputs(main, after, [out], {"x": _rand(2, 3, 6, 6)}, rtol=1e-5, atol=1e-5)

    def train():
        x = static.data("x", [2, 3, 6, 6], "float32")
        return paddle.nn.BatchNorm2D(4)(paddle.nn.Conv2D(3, 4, 3)(x))
    main, out = _build(train)
    after = passes.apply(main, "fuse_conv_bn", keep=[out])
    assert [op.type for op in after.global_block().ops] == [
        op.type for op in main.global_block().ops]    # batch statistics: nothing folded


def test_build_strategy_selects_passes():
    strategy = types.SimpleNamespace(fuse_elewise_add_act_ops=True, enable_inplace=True,
                                     fuse_gemm_epilogue=False, enable_constant_folding=True)
    assert passes.strategy_pass_names(strategy) == ["constant_folding", "fuse_elementwise",
                                                    "inplace"]
    strategy.passes = ["fuse_linear", "inplace"]
    assert passes.strategy_pass_names(strategy) == ["constant_folding", "fuse_elementwise",
                                                    "inplace", "fuse_linear"]
    main, out = _linear_program()
    after = passes.apply_build_strategy(main, strategy, keep=[out])
    after.verify()
    assert "fused_linear" in {op.type for op in after.global_block().ops}
    assert passes.apply_build_strategy(main, None) is main
    scope = _init_scope(main)
    _same_outputs(main, after, [out], {"x": _rand(2, 3)}, scope=scope)


def test_all_passes_on_a_training_program_keep_values():
    def fn():
        x = static.data("x", [8, 5], "float32")
        w = static.create_parameter([5, 3], "float32", name="tw")
        h = F.relu(paddle.matmul(x, w))
        loss = paddle.mean(paddle.tanh(h) * 2.0 + 1.0)
        for p, g in static.append_backward(loss):
            p.subtract_(g * 0.1)
        return loss
    main, loss = _build(fn)
    names = ["constant_folding", "common_subexpression_elimination", "fuse_elementwise",
             "inplace"]
    after = passes.apply(main, names, keep=[loss])
    after.verify()
    assert len(after.global_block().ops) < len(main.global_block().ops)
    xv = _rand(8, 5)
    results = []
    for prog in (main, after):
        scope = _init_scope(main, seed=5)
        exe = static.Executor()
        ls = [exe.run(prog, feed={"x": xv}, fetch_list=[loss], scope=scope)[0]
              for _ in range(3)]
        results.append((ls, scope.get("tw")))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6)
