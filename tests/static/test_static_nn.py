"""paddle.static.nn layers: Paddle's parameter names, startup initialisation, outputs equal
the eager functionals on the same parameter values, running statistics, training, errors."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F
from sampan import static
from sampan.utils import unique_name
from tests.static_util import static_guard

RNG = np.random.default_rng(1)


def _build(fn, feeds: dict):
    """Build fn(*data vars) in fresh programs, run startup and main; return
    (outputs, {param name: value}, main, startup, scope)."""
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup), unique_name.guard():
        xs = [static.data(k, [None] + list(v.shape[1:]), str(v.dtype)) for k, v in feeds.items()]
        outs = fn(*xs)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    main.verify()
    scope = static.Scope()
    exe = static.Executor()
    with static.scope_guard(scope):
        exe.run(startup)
        params = {p.name: scope.get(p.name).copy() for p in main.all_parameters()}
        got = exe.run(main, feed=feeds, fetch_list=outs)
    return got, params, main, startup, scope


def _t(a):
    return paddle.to_tensor(a)


def test_conv2d_names_init_and_values():
    x = RNG.standard_normal((2, 3, 6, 6)).astype("float32")
    (out,), p, main, _, _ = _build(
        lambda v: static.nn.conv2d(v, 4, 3, stride=2, padding=1, act="relu"), {"x": x})
    assert list(p) == ["conv2d_0.w_0", "conv2d_0.b_0"]
    w, b = p["conv2d_0.w_0"], p["conv2d_0.b_0"]
    assert w.shape == (4, 3, 3, 3) and np.all(b == 0)
    assert 0.1 < w.std() < 0.5  # Normal(0, sqrt(2 / 27)) = 0.27
    ref = F.relu(F.conv2d(_t(x), _t(w), _t(b), stride=2, padding=1)).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    assert main.global_block().var("conv2d_0.w_0").is_parameter


def test_conv3d_and_groups_and_named_params():
    x = RNG.standard_normal((1, 4, 3, 4, 4)).astype("float32")
    (out,), p, _, _, _ = _build(
        lambda v: static.nn.conv3d(v, 2, [1, 2, 2], groups=2, name="c3",
                                   bias_attr=False), {"x": x})
    assert list(p) == ["c3.w_0"]
    ref = F.conv3d(_t(x), _t(p["c3.w_0"]), groups=2).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_conv2d_transpose_filter_size_from_output_size():
    x = RNG.standard_normal((2, 3, 4, 4)).astype("float32")
    (out,), p, _, _, _ = _build(
        lambda v: static.nn.conv2d_transpose(v, 2, output_size=[9, 9], stride=2), {"x": x})
    w = p["conv2d_transpose_0.w_0"]
    assert w.shape == (3, 2, 3, 3) and out.shape == (2, 2, 9, 9)
    ref = F.conv2d_transpose(_t(x), _t(w), _t(p["conv2d_transpose_0.b_0"]), stride=2).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_batch_norm_training_updates_running_stats_and_is_test_uses_them():
    x = (RNG.standard_normal((8, 3, 2, 2)) * 2 + 1).astype("float32")
    (out,), p, main, _, scope = _build(lambda v: static.nn.batch_norm(v, momentum=0.8),
                                       {"x": x})
    assert list(p) == ["batch_norm_0.w_0", "batch_norm_0.b_0", "batch_norm_0.w_1",
                       "batch_norm_0.w_2"]
    assert not main.global_block().var("batch_norm_0.w_1").trainable
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    ref = (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(scope.get("batch_norm_0.w_1"), 0.2 * mean, rtol=1e-5)
    np.testing.assert_allclose(scope.get("batch_norm_0.w_2"), 0.8 + 0.2 * var, rtol=1e-5)
    (out2,), _, _, _, _ = _build(lambda v: static.nn.batch_norm(v, is_test=True), {"x": x})
    np.testing.assert_allclose(out2, x / np.sqrt(1 + 1e-5), rtol=1e-5)


def test_batch_norm_channels_last_and_2d():
    x = RNG.standard_normal((5, 3, 3, 4)).astype("float32")
    (out,), _, _, _, _ = _build(lambda v: static.nn.batch_norm(v, data_layout="NHWC"),
                                {"x": x})
    m, s = x.mean(axis=(0, 1, 2)), x.std(axis=(0, 1, 2))
    np.testing.assert_allclose(out, (x - m) / np.sqrt(s ** 2 + 1e-5), rtol=1e-4, atol=1e-5)
    x2 = RNG.standard_normal((6, 4)).astype("float32")
    (out,), _, _, _, _ = _build(lambda v: static.nn.batch_norm(v), {"x": x2})
    np.testing.assert_allclose(out, (x2 - x2.mean(0)) / np.sqrt(x2.var(0) + 1e-5), rtol=1e-4,
                               atol=1e-5)


def test_layer_group_instance_norm_equal_functionals():
    x = RNG.standard_normal((2, 4, 3, 3)).astype("float32")
    got, p, _, _, _ = _build(lambda v: (static.nn.layer_norm(v, begin_norm_axis=2),
                                        static.nn.group_norm(v, 2),
                                        static.nn.instance_norm(v)), {"x": x})
    assert p["layer_norm_0.w_0"].shape == (9,) and np.all(p["layer_norm_0.w_0"] == 1)
    np.testing.assert_allclose(got[0], F.layer_norm(_t(x), [3, 3]).numpy(), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(got[1], F.group_norm(_t(x), 2).numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[2], F.instance_norm(_t(x)).numpy(), rtol=1e-4, atol=1e-5)


def test_layer_norm_without_scale_and_shift():
    x = RNG.standard_normal((2, 5)).astype("float32")
    (out,), p, _, _, _ = _build(lambda v: static.nn.layer_norm(v, scale=False, shift=False),
                                {"x": x})
    assert p == {}
    np.testing.assert_allclose(out, F.layer_norm(_t(x), 5).numpy(), rtol=1e-4, atol=1e-5)


def test_embedding_and_sparse_embedding():
    ids = np.array([[1, 0, 3], [2, 2, 4]], "int64")
    got, p, _, _, _ = _build(lambda v: (static.nn.embedding(v, [5, 4], padding_idx=0),
                                        static.nn.sparse_embedding(v[:, :1], [5, 2])),
                             {"ids": ids})
    w = p["embedding_0.w_0"]
    assert got[0].shape == (2, 3, 4)
    np.testing.assert_allclose(got[0], np.where((ids == 0)[..., None], 0, w[ids]))
    # Paddle's sparse_embedding (lookup_table): ids [N, 1] -> [N, emb_size]
    np.testing.assert_allclose(got[1], p["sparse_embedding_0.w_0"][ids[:, 0]])


@pytest.mark.parametrize("mode,shape", [("all", (1,)), ("channel", (3,)),
                                        ("element", (3, 2))])
def test_prelu_modes(mode, shape):
    x = RNG.standard_normal((4, 3, 2)).astype("float32")
    (out,), p, _, _, _ = _build(lambda v: static.nn.prelu(v, mode), {"x": x})
    alpha = p["prelu_0.w_0"]
    assert alpha.shape == shape and np.all(alpha == 0.25)
    a = alpha.reshape((1, 3, 1)) if mode == "channel" else alpha
    np.testing.assert_allclose(out, np.where(x > 0, x, a * x), rtol=1e-6)


def test_data_norm_normalizes_and_accumulates():
    x = RNG.standard_normal((5, 3)).astype("float32")
    (out,), p, _, _, scope = _build(lambda v: static.nn.data_norm(v), {"x": x})
    np.testing.assert_allclose(out, x, rtol=1e-5)  # initial stats: mean 0, scale 1
    decay = 0.9999999
    np.testing.assert_allclose(scope.get("data_norm_0.w_0"), 1e4 * decay + 5, rtol=1e-6)
    np.testing.assert_allclose(scope.get("data_norm_0.w_1"), x.sum(0), rtol=1e-4, atol=1e-3)


def test_param_attr_initializers_and_names():
    init = paddle.nn.initializer
    x = RNG.standard_normal((3, 4)).astype("float32")
    got, p, _, startup, _ = _build(lambda v: static.nn.fc(
        v, 5, weight_attr=paddle.ParamAttr(name="my_w", initializer=init.Constant(0.5)),
        bias_attr=paddle.ParamAttr(initializer=init.Uniform(1.0, 2.0))), {"x": x})
    np.testing.assert_allclose(p["my_w"], np.full((4, 5), 0.5))
    b = p["fc_0.b_0"]
    assert np.all((b >= 1) & (b < 2))
    assert [op.type for op in startup.global_block().ops] == ["full", "uniform"]
    # an initializer without a startup op (Kaiming) is computed once and assigned
    _, p, _, startup, _ = _build(lambda v: static.nn.fc(
        v, 5, weight_attr=paddle.ParamAttr(initializer=init.KaimingUniform())), {"x": x})
    w = p["fc_0.w_0"]
    assert np.abs(w).max() <= np.sqrt(6.0 / 4) and w.std() > 0.1


def test_conv_net_trains_with_minimize():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 1, 6, 6)).astype("float32")
    y = (x[:, 0, 2:4, 2:4].mean(axis=(1, 2)) > 0).astype("int64")[:, None]
    onehot = np.eye(2, dtype="float32")[y[:, 0]]
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        xv = static.data("x", [None, 1, 6, 6], "float32")
        yv = static.data("y", [None, 2], "float32")
        h = static.nn.conv2d(xv, 4, 3, act="relu")
        h = static.nn.batch_norm(h)
        h = static.nn.prelu(h, "all")
        logits = static.nn.fc(h, 2)
        loss = (paddle.logsumexp(logits, axis=1) - (logits * yv).sum(axis=1)).mean()
        paddle.optimizer.Adam(0.05, parameters=main.all_parameters()).minimize(loss)
    exe = static.Executor()
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        losses = [float(exe.run(main, feed={"x": x, "y": onehot}, fetch_list=[loss])[0])
                  for _ in range(40)]
    assert losses[-1] < 0.3 * losses[0]


def test_errors():
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [None, 3, 4, 4], "float32")
        with pytest.raises(ValueError, match="divisible by groups"):
            static.nn.conv2d(x, 4, 3, groups=2)
        with pytest.raises(ValueError, match="filter_size must be an int or 2 ints"):
            static.nn.conv2d(x, 4, [3, 3, 3])
        with pytest.raises(ValueError, match="give filter_size or output_size"):
            static.nn.conv2d_transpose(x, 4)
        with pytest.raises(ValueError, match="mode must be"):
            static.nn.prelu(x, "row")
        with pytest.raises(ValueError, match="size must be \\[vocab_size, emb_dim\\]"):
            static.nn.embedding(x, 10)
        with pytest.raises(ValueError, match="groups must be a positive divisor"):
            static.nn.group_norm(x, 2)
        with pytest.raises(ValueError, match="begin_norm_axis"):
            static.nn.layer_norm(x, begin_norm_axis=4)
        with pytest.raises(ValueError, match="data_layout"):
            static.nn.batch_norm(x, data_layout="NCL")
    with pytest.raises(RuntimeError, match="paddle.static.nn.fc: only supported in static "
                                           "graph mode"):
        static.nn.fc(paddle.ones([2, 3]), 4, name="myfc")
    with pytest.raises(RuntimeError, match="paddle.static.nn.conv2d: only supported"):
        static.nn.conv2d(paddle.ones([1, 3, 4, 4]), 2, 3)


def _clone_for_test(fn):
    x = RNG.standard_normal((4, 3, 2, 2)).astype("float32") * 3 + 2
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        out = fn(static.data("x", [None, 3, 2, 2], "float32"))
    test = main.clone(for_test=True)
    scope = static.Scope()
    exe = static.Executor()
    with static.scope_guard(scope):
        exe.run(startup)
        return x, exe.run(test, feed={"x": x}, fetch_list=[out])[0]


def test_clone_for_test_turns_dropout_off():
    x, got = _clone_for_test(lambda v: F.dropout(v, 0.5))
    np.testing.assert_allclose(got, x)


def test_clone_for_test_uses_running_stats_in_batch_norm():
    x, got = _clone_for_test(lambda v: static.nn.batch_norm(v))
    np.testing.assert_allclose(got, x / np.sqrt(1 + 1e-5), rtol=1e-5)


def test_conv3d_transpose_names_and_values():
    x = RNG.standard_normal((1, 3, 2, 3, 3)).astype("float32")
    (out,), p, _, _, _ = _build(
        lambda v: static.nn.conv3d_transpose(v, 4, filter_size=2, stride=2, padding=1,
                                             groups=1, act="relu"), {"x": x})
    assert list(p) == ["conv3d_transpose_0.w_0", "conv3d_transpose_0.b_0"]
    w = p["conv3d_transpose_0.w_0"]
    assert w.shape == (3, 4, 2, 2, 2) and out.shape == (1, 4, 2, 4, 4)
    ref = F.relu(F.conv3d_transpose(_t(x), _t(w), _t(p["conv3d_transpose_0.b_0"]), stride=2,
                                    padding=1)).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    (out,), p, _, _, _ = _build(
        lambda v: static.nn.conv3d_transpose(v, 2, output_size=[5, 7, 7], stride=2), {"x": x})
    # k = (out - (in - 1) * stride - 1) + 1 = 3 in every dim
    assert p["conv3d_transpose_0.w_0"].shape == (3, 2, 3, 3, 3) and out.shape == (1, 2, 5, 7, 7)


def test_bilinear_tensor_product_and_row_conv():
    x, y = RNG.standard_normal((3, 4)).astype("float32"), RNG.standard_normal((3, 2)) \
        .astype("float32")
    (out,), p, _, _, _ = _build(
        lambda a, b: static.nn.bilinear_tensor_product(a, b, 5, act="tanh"), {"x": x, "y": y})
    w, b = p["bilinear_tensor_product_0.w_0"], p["bilinear_tensor_product_0.b_0"]
    assert w.shape == (5, 4, 2) and b.shape == (1, 5)
    np.testing.assert_allclose(out, np.tanh(np.einsum("ni,kij,nj->nk", x, w, y) + b),
                               rtol=1e-5, atol=1e-6)
    seq = RNG.standard_normal((2, 5, 3)).astype("float32")
    (out,), p, _, _, _ = _build(lambda v: static.nn.row_conv(v, 2), {"x": seq})
    w = p["row_conv_0.w_0"]
    assert w.shape == (3, 3)
    padded = np.concatenate([seq, np.zeros((2, 2, 3), "float32")], axis=1)
    want = sum(padded[:, i:i + 5] * w[i] for i in range(3))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_spectral_norm_divides_by_the_largest_singular_value():
    w = RNG.standard_normal((4, 3, 2)).astype("float32")

    def fn(_):
        return static.nn.spectral_norm(static.data("weight", [4, 3, 2]), dim=1, power_iters=60)
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup), unique_name.guard():
        out = fn(None)
    scope, exe = static.Scope(), static.Executor()
    with static.scope_guard(scope):
        exe.run(startup)
        p = {v.name: scope.get(v.name) for v in main.all_parameters()}
        (out,) = exe.run(main, feed={"weight": w}, fetch_list=[out])
    assert [(n, v.shape) for n, v in p.items()] == [("spectral_norm_0.w_0", (3,)),
                                                    ("spectral_norm_0.w_1", (8,))]
    assert not any(v.trainable for v in main.all_parameters())
    sigma = np.linalg.svd(w.transpose(1, 0, 2).reshape(3, 8), compute_uv=False)[0]
    np.testing.assert_allclose(out, w / sigma, rtol=1e-4)
    with pytest.raises(ValueError, match=r"spectral_norm: dim must be in \[0, 2\]"):
        with static_guard(static.Program(), static.Program()):
            static.nn.spectral_norm(static.data("weight", [4, 3, 2]), dim=3)
    with pytest.raises(ValueError, match="row_conv: input must be 3-D"):
        _build(lambda v: static.nn.row_conv(v, 1), {"w": w[0]})
