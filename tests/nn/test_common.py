"""Common functions and layers: linear/bilinear/embedding/dropout family, distances,
extension functions, and the Linear, Embedding, Dropout*, Flatten, ... layers (defaults,
state_dict keys, reprs, train vs eval). OpDef forward/gradients are covered by
tests/ops/db/nn_common.py."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn as nn
import sampan.nn.functional as F
from sampan.ops import REGISTRY
from tests.gradcheck import numeric_grad


def _t(a, grad=False):
    t = paddle.to_tensor(np.asarray(a))
    t.stop_gradient = not grad
    return t


def _check_grad(fn, x, atol=1e-6):
    """d/dx sum(fn(x) * w) through the tape vs central differences (float64)."""
    w = np.cos(np.arange(fn(_t(x)).numpy().size)).reshape(fn(_t(x)).shape)
    t = _t(x, grad=True)
    (g,) = paddle.grad([(fn(t) * _t(w)).sum()], [t])
    want = numeric_grad(lambda a: float((fn(_t(a)).numpy() * w).sum()), x)
    np.testing.assert_allclose(g.numpy(), want, atol=atol, rtol=1e-5)


# --- linear / bilinear -----------------------------------------------------------------

def test_linear_compute_equals_decompose_and_errors():
    rng = np.random.default_rng(0)
    x, w, b = (_t(rng.standard_normal(s)) for s in ((2, 3, 4), (4, 5), (5,)))
    op = REGISTRY["linear"]
    np.testing.assert_allclose(F.linear(x, w, b).numpy(), op.decompose(x, w, b).numpy(),
                               atol=1e-12)
    with pytest.raises(ValueError, match=r"linear: the last dim of x .* in_features"):
        F.linear(x, _t(np.ones((3, 5))))
    with pytest.raises(TypeError, match="linear: weight .*float32.* dtype of x"):
        F.linear(x, _t(np.ones((4, 5), np.float32)))
    with pytest.raises(ValueError, match="linear: bias .* without enlarging"):
        F.linear(x, w, _t(np.ones((1, 1, 3, 5))))


def test_linear_layer_defaults_repr_and_state_dict():
    paddle.seed(1)
    fc = nn.Linear(20, 30)
    assert repr(fc) == "Linear(in_features=20, out_features=30, dtype=float32)"
    assert list(fc.state_dict()) == ["weight", "bias"]
    assert fc.weight.shape == [20, 30] and fc.bias.shape == [30]
    bound = np.sqrt(6 / 50)  # XavierUniform with fan_in=20, fan_out=30
    w = fc.weight.numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert not fc.bias.numpy().any()
    x = paddle.randn([3, 20])
    np.testing.assert_allclose(fc(x).numpy(), x.numpy() @ w + fc.bias.numpy(), rtol=1e-5,
                               atol=1e-6)
    assert nn.Linear(2, 3, bias_attr=False).bias is None
    assert list(nn.Linear(2, 3, bias_attr=False).state_dict()) == ["weight"]
    assert repr(nn.Linear(2, 3, name="fc")).endswith("dtype=float32, name=fc)")
    with pytest.raises(ValueError, match="Linear: in_features must be an int >= 0, got -1"):
        nn.Linear(-1, 3)
    with pytest.raises(ValueError, match="Linear: out_features must be an int >= 0, got 2.0"):
        nn.Linear(3, 2.0)
    np_sized = nn.Linear(np.int64(4), np.prod([1, 2]))  # NumPy ints, as Paddle takes them
    assert repr(np_sized).startswith("Linear(in_features=4, out_features=2,")
    assert np_sized.weight.shape == [4, 2] and nn.Embedding(np.int32(5), 2).weight.shape == [5, 2]
    empty = nn.Linear(0, 3)  # zero-size weight as in Paddle: the output is the bias
    assert empty.weight.shape == [0, 3] and empty(paddle.ones([2, 0])).shape == [2, 3]


def test_common_error_messages_name_function_and_shapes():
    F = nn.functional
    with pytest.raises(ValueError, match=r"bilinear: x2.shape\[1\] must equal weight.shape\[2\]"):
        nn.Bilinear(3, 4, 5)(paddle.ones([2, 3]), paddle.ones([2, 3]))
    with pytest.raises(ValueError, match=r"bilinear: x2.shape\[0\] must equal the batch size"):
        nn.Bilinear(3, 4, 5)(paddle.ones([2, 3]), paddle.ones([3, 4]))
    with pytest.raises(ValueError, match=r"cosine_similarity: shape of x1 \[2, 3\] and shape "
                                         r"of x2 \[2, 4\]"):
        nn.CosineSimilarity()(paddle.ones([2, 3]), paddle.ones([2, 4]))
    with pytest.raises(TypeError, match="one_hot: x must be an int32 or int64 tensor, got "
                                        "float32"):
        F.one_hot(paddle.to_tensor([1.0, 2.0]), 4)


def test_linear_layer_trains_weight_and_bias():
    fc = nn.Linear(3, 2)
    x = paddle.randn([4, 3])
    fc(x).sum().backward()
    np.testing.assert_allclose(fc.weight.grad.numpy(),
                               np.repeat(x.numpy().sum(0)[:, None], 2, 1), rtol=1e-5)
    np.testing.assert_allclose(fc.bias.grad.numpy(), [4.0, 4.0])


def test_bilinear_matches_numpy_and_grad():
    rng = np.random.default_rng(2)
    x1, x2 = rng.standard_normal((3, 2)), rng.standard_normal((3, 4))
    w, b = rng.standard_normal((5, 2, 4)), rng.standard_normal((1, 5))
    got = F.bilinear(_t(x1), _t(x2), _t(w), _t(b)).numpy()
    np.testing.assert_allclose(got, np.einsum("ni,oij,nj->no", x1, w, x2) + b, rtol=1e-10)
    _check_grad(lambda t: F.bilinear(t, _t(x2), _t(w), _t(b)), x1)
    layer = nn.Bilinear(2, 4, 5)
    assert [list(v.shape) for v in layer.state_dict().values()] == [[5, 2, 4], [1, 5]]
    assert repr(layer) == "Bilinear(in1_features=2, in2_features=4, out_features=5, dtype=float32)"
    assert layer(_t(x1.astype("float32")), _t(x2.astype("float32"))).shape == [3, 5]
    with pytest.raises(ValueError, match="bilinear: expected x1"):
        F.bilinear(_t(x1[0]), _t(x2), _t(w))


# --- embedding / one_hot ---------------------------------------------------------------

def test_embedding_padding_rows_and_weight_grad():
    w = _t(np.arange(15, dtype=np.float64).reshape(5, 3), grad=True)
    ids = _t(np.array([[0, 2, 4], [2, 2, 1]]))
    out = F.embedding(ids, w, padding_idx=-3)
    assert not out.numpy()[0, 1].any() and out.numpy()[0, 2].tolist() == [12.0, 13.0, 14.0]
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy()[:, 0], [1, 1, 0, 0, 1])
    with pytest.raises(ValueError, match=r"embedding: padding_idx must be in \[-5, 5\)"):
        F.embedding(ids, w, padding_idx=5)
    with pytest.raises(ValueError, match=r"embedding: ids must be in \[0, 5\)"):
        F.embedding(_t(np.array([5])), w)
    with pytest.raises(TypeError, match="embedding: x must be an integer tensor"):
        F.embedding(_t(np.array([1.0])), w)


def test_embedding_max_norm_renormalizes_looked_up_rows():
    w = _t(np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]]))
    out = F.embedding(_t(np.array([0, 1])), w, max_norm=1.0)
    np.testing.assert_allclose(np.linalg.norm(out.numpy(), axis=1), [1.0, 0.5], rtol=1e-6)
    np.testing.assert_allclose(w.numpy()[2], [6.0, 8.0])  # not looked up: unchanged


def test_embedding_layer():
    paddle.seed(3)
    emb = nn.Embedding(10, 4, padding_idx=2, sparse=True)
    assert repr(emb) == "Embedding(10, 4, padding_idx=2, sparse=True, scale_grad_by_freq=False)"
    assert list(emb.state_dict()) == ["weight"] and emb.weight.shape == [10, 4]
    assert not emb.weight.numpy()[2].any()
    assert np.abs(emb.weight.numpy()).max() <= np.sqrt(6 / 14)
    out = emb(_t(np.array([[1, 2]])))
    assert out.shape == [1, 2, 4] and not out.numpy()[0, 1].any()
    assert repr(nn.Embedding(3, 2)) == "Embedding(3, 2, sparse=False, scale_grad_by_freq=False)"
    with pytest.raises(ValueError, match="Embedding: padding_idx"):
        nn.Embedding(3, 2, padding_idx=3)


def test_one_hot_infers_num_classes():
    out = F.one_hot(_t(np.array([1, 3])))
    assert out.shape == [2, 4] and out.dtype == paddle.float32
    assert F.one_hot(_t(np.array([0])), num_classes=2).tolist() == [[1.0, 0.0]]


# --- dropout family --------------------------------------------------------------------

def test_dropout_statistics_train_and_eval():
    paddle.seed(7)
    x = paddle.ones([200, 100])
    y = F.dropout(x, p=0.3).numpy()
    zero = (y == 0).mean()
    assert abs(zero - 0.3) < 0.02
    np.testing.assert_allclose(np.unique(y), [0.0, 1 / 0.7], rtol=1e-6)
    y2 = F.dropout(x, p=0.3, mode="downscale_in_infer").numpy()
    np.testing.assert_allclose(np.unique(y2), [0.0, 1.0])
    assert F.dropout(x, 0.3, training=False) is x
    np.testing.assert_allclose(F.dropout(x, 0.3, training=False,
                                         mode="downscale_in_infer").numpy(), 0.7)
    assert F.dropout(x, 0.0) is x
    assert not F.dropout(x, 1.0).numpy().any()


def test_dropout_is_reproducible_and_its_grad_is_the_mask():
    x = _t(np.random.default_rng(0).standard_normal((6, 5)), grad=True)
    paddle.seed(11)
    y = F.dropout(x, p=0.5)
    paddle.seed(11)
    np.testing.assert_array_equal(F.dropout(x, p=0.5).numpy(), y.numpy())
    (g,) = paddle.grad([y.sum()], [x])
    np.testing.assert_allclose(g.numpy(), np.where(y.numpy() != 0, 2.0, 0.0))


def test_dropout_axis_and_dropout2d_drop_whole_channels():
    paddle.seed(5)
    y = F.dropout(paddle.ones([50, 8]), p=0.5, axis=1).numpy()
    assert (y == y[0]).all()  # one mask value per column, shared by every row
    y = F.dropout2d(paddle.ones([4, 6, 3, 3]), p=0.5).numpy()
    per_channel = y.reshape(4, 6, 9)
    assert (per_channel == per_channel[..., :1]).all()
    assert set(np.unique(y)) <= {0.0, 2.0}
    y = F.dropout2d(paddle.ones([4, 3, 3, 6]), p=0.5, data_format="NHWC").numpy()
    assert (y == y[:, :1, :1, :]).all()
    y = F.dropout1d(paddle.ones([3, 6, 4]), p=0.5).numpy()
    assert (y == y[..., :1]).all() and set(np.unique(y)) <= {0.0, 2.0}
    y = F.dropout1d(paddle.ones([6, 4]), p=0.5).numpy()  # unbatched [C, L]
    assert (y == y[:, :1]).all()
    with pytest.raises(ValueError, match="dropout1d: input must be 2-D or 3-D"):
        F.dropout1d(paddle.ones([3]))
    y = F.dropout3d(paddle.ones([2, 5, 2, 2, 2]), p=0.5).numpy().reshape(2, 5, 8)
    assert (y == y[..., :1]).all()
    with pytest.raises(ValueError, match="dropout2d: x must be 4-D"):
        F.dropout2d(paddle.ones([2, 3]))
    with pytest.raises(ValueError, match="dropout3d: data_format"):
        F.dropout3d(paddle.ones([2, 3, 1, 1, 1]), data_format="NCHW")


def test_dropout_errors_and_inplace():
    x = paddle.ones([3, 3])
    with pytest.raises(ValueError, match=r"dropout: p must be in \[0, 1\], got 1.5"):
        F.dropout(x, 1.5)
    with pytest.raises(TypeError, match="dropout: p must be a float"):
        F.dropout(x, "0.5")
    with pytest.raises(ValueError, match="dropout: mode must be"):
        F.dropout(x, 0.5, mode="bad")
    with pytest.raises(TypeError, match="dropout: axis must be an int"):
        F.dropout(x, 0.5, axis=1.0)
    paddle.seed(2)
    y = F.dropout(x, 0.5, inplace=True)
    assert y is x and set(np.unique(x.numpy())) <= {0.0, 2.0}


def test_alpha_dropout_keeps_mean_and_variance():
    paddle.seed(9)
    x = paddle.randn([40000])
    y = F.alpha_dropout(x, p=0.2).numpy()
    assert abs(y.mean()) < 0.03 and abs(y.std() - 1) < 0.03
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = (0.8 * (1 + 0.2 * alpha_p ** 2)) ** -0.5
    dropped = np.isclose(y, a * alpha_p + (-a * alpha_p * 0.2), atol=1e-6)
    assert abs(dropped.mean() - 0.2) < 0.02
    assert F.alpha_dropout(x, 0.2, training=False) is x
    y = F.feature_alpha_dropout(paddle.randn([30, 4, 5]), p=0.5).numpy()
    assert y.shape == (30, 4, 5)
    with pytest.raises(ValueError, match="feature_alpha_dropout: x must be at least 2-D"):
        F.feature_alpha_dropout(paddle.randn([3]), 0.5)
    assert not F.alpha_dropout(x, 1.0).numpy().any()


def test_dropout_layers_train_eval_and_repr():
    paddle.seed(4)
    drop = nn.Dropout(0.4)
    x = paddle.ones([100, 50])
    assert (drop(x).numpy() == 0).any()
    drop.eval()
    assert drop(x) is x
    down = nn.Dropout(0.4, mode="downscale_in_infer")
    down.eval()
    np.testing.assert_allclose(down(x).numpy(), 0.6)
    assert repr(nn.Dropout(0.3)) == ("Dropout(p=0.3, axis=None, mode=upscale_in_train, "
                                     "inplace=False)")
    assert repr(nn.Dropout2D()) == "Dropout2D(p=0.5, data_format=NCHW)"
    assert repr(nn.Dropout3D()) == "Dropout3D(p=0.5, data_format=NCDHW)"
    assert repr(nn.AlphaDropout(0.2)) == "AlphaDropout(p=0.2)"
    assert repr(nn.FeatureAlphaDropout(0.2)) == "FeatureAlphaDropout(p=0.2)"
    for layer in (nn.Dropout2D(), nn.Dropout3D(), nn.AlphaDropout(), nn.FeatureAlphaDropout()):
        layer.eval()
        y = paddle.ones([2, 3, 2, 2] if isinstance(layer, nn.Dropout2D) and
                        not isinstance(layer, nn.Dropout3D) else [2, 3, 2, 2, 2])
        np.testing.assert_array_equal(layer(y).numpy(), y.numpy())
    with pytest.raises(ValueError, match=r"Dropout: p must be in \[0, 1\]"):
        nn.Dropout(2.0)


# --- shape layers ----------------------------------------------------------------------

def test_identity_flatten_unflatten():
    x = paddle.randn([2, 3, 4])
    assert nn.Identity(1, a=2)(x) is x
    assert nn.Flatten()(x).shape == [2, 12]
    assert nn.Flatten(0, 1)(x).shape == [6, 4]
    assert repr(nn.Flatten()) == "Flatten()"
    un = nn.Unflatten(1, [3, 1])
    assert un(x).shape == [2, 3, 1, 4]
    assert repr(un) == "Unflatten(axis=1, shape=[3, 1])"


# --- similarity, distances -------------------------------------------------------------

def test_cosine_similarity_matches_numpy_with_broadcast():
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((1, 4))
    got = F.cosine_similarity(_t(a), _t(b), axis=1).numpy()
    want = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    # broadcast along the reduced axis counts b's norm 4 times, as Paddle does
    got = F.cosine_similarity(_t(a), _t(a[:1]), axis=0).numpy()
    want = (a * a[:1]).sum(0) / np.sqrt((a * a).sum(0) * 3 * a[0] ** 2)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    zero = F.cosine_similarity(_t(np.zeros((2, 3))), _t(np.ones((2, 3))))
    assert not zero.numpy().any()
    _check_grad(lambda t: F.cosine_similarity(t, _t(b)), a)
    layer = nn.CosineSimilarity(axis=0, eps=1e-6)
    assert repr(layer) == "CosineSimilarity(axis=0, eps=1e-06)"
    assert layer(_t(a), _t(a)).shape == [4]


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf"), -float("inf"), 0.0])
def test_pairwise_distance_matches_numpy(p):
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    d = x - y + 1e-6
    want = (np.count_nonzero(d, axis=-1).astype(float) if p == 0 else
            np.abs(d).max(-1) if p == float("inf") else np.abs(d).min(-1)
            if p == -float("inf") else (np.abs(d) ** p).sum(-1) ** (1 / p))
    np.testing.assert_allclose(F.pairwise_distance(_t(x), _t(y), p=p).numpy(), want,
                               rtol=1e-10)
    layer = nn.PairwiseDistance(p=p, keepdim=True)
    assert layer(_t(x), _t(y)).shape == [3, 1]


def test_pairwise_distance_shapes_grad_and_pdist():
    assert F.pairwise_distance(_t([1.0, 2.0]), _t([2.0, 1.0])).shape == []
    assert F.pairwise_distance(_t([1.0, 2.0]), _t([2.0, 1.0]), keepdim=True).shape == [1]
    rng = np.random.default_rng(6)
    y = rng.standard_normal((3, 4))
    _check_grad(lambda t: F.pairwise_distance(t, _t(y)), rng.standard_normal((3, 4)))
    assert repr(nn.PairwiseDistance()) == "PairwiseDistance(p=2.0)"
    x = rng.standard_normal((4, 3))
    want = [np.linalg.norm(x[i] - x[j]) for i in range(4) for j in range(i + 1, 4)]
    np.testing.assert_allclose(F.pdist(_t(x)).numpy(), want, rtol=1e-10)
    assert F.pdist(_t(x[:1])).shape == [0]


# --- label_smooth and extension functions -------------------------------------------------

def test_label_smooth():
    label = _t(np.array([[0.0, 1.0, 0.0]]))
    np.testing.assert_allclose(F.label_smooth(label, epsilon=0.1).numpy(),
                               [[0.1 / 3, 0.9 + 0.1 / 3, 0.1 / 3]])
    prior = _t(np.array([[0.2, 0.3, 0.5]]))
    np.testing.assert_allclose(F.label_smooth(label, prior, epsilon=0.1).numpy(),
                               [[0.02, 0.93, 0.05]])
    with pytest.raises(ValueError, match=r"label_smooth: epsilon must be in \[0, 1\]"):
        F.label_smooth(label, epsilon=1.5)


def test_sequence_mask():
    out = F.sequence_mask(_t(np.array([[1, 3], [0, 2]])))
    assert out.dtype == paddle.int64
    assert out.tolist() == [[[1, 0, 0], [1, 1, 1]], [[0, 0, 0], [1, 1, 0]]]
    out = F.sequence_mask(_t(np.array([2])), maxlen=_t(np.array(4)), dtype="float32")
    assert out.tolist() == [[1.0, 1.0, 0.0, 0.0]] and out.dtype == paddle.float32


def _temporal_shift_ref(x, seg, ratio):
    nt, c = x.shape[:2]
    v = x.reshape(nt // seg, seg, c, *x.shape[2:])
    out = np.zeros_like(v)
    c1, c2 = int(c * ratio), int(c * 2 * ratio)
    out[:, 1:, :c1] = v[:, :-1, :c1]
    out[:, :-1, c1:c2] = v[:, 1:, c1:c2]
    out[:, :, c2:] = v[:, :, c2:]
    return out.reshape(x.shape)


def test_temporal_shift_matches_numpy_both_layouts_and_grad():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 8, 2, 2))
    np.testing.assert_array_equal(F.temporal_shift(_t(x), 3).numpy(),
                                  _temporal_shift_ref(x, 3, 0.25))
    got = F.temporal_shift(_t(x.transpose(0, 2, 3, 1)), 2, 0.125, data_format="NHWC")
    np.testing.assert_array_equal(got.numpy(),
                                  _temporal_shift_ref(x, 2, 0.125).transpose(0, 2, 3, 1))
    _check_grad(lambda t: F.temporal_shift(t, 2), rng.standard_normal((4, 4, 1, 1)))
    with pytest.raises(ValueError, match="temporal_shift: seg_num"):
        F.temporal_shift(_t(x), 4)


def test_gather_tree_and_diag_embed():
    ids = _t(np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]]))
    parents = _t(np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]]))
    assert F.gather_tree(ids, parents).tolist() == [[[2, 2], [1, 6]], [[3, 3], [6, 1]],
                                                    [[0, 1], [9, 0]]]  # Paddle's example
    with pytest.raises(ValueError, match="gather_tree: ids .* and parents .* same shape"):
        F.gather_tree(ids, parents[:2])
    out = F.diag_embed(_t(np.array([[1.0, 2.0]])))
    assert out.tolist() == [[[1.0, 0.0], [0.0, 2.0]]]


def test_class_center_sample_keeps_positives_and_draws_negatives():
    F = nn.functional
    paddle.seed(7)
    label = paddle.to_tensor([5, 2, 5, 9, 1])
    remapped, centers = F.class_center_sample(label, 12, 3)  # more positives than samples
    assert centers.tolist() == [1, 2, 5, 9] and remapped.tolist() == [2, 1, 2, 3, 0]
    remapped, centers = F.class_center_sample(label.astype("int32"), 12, 7)
    c = centers.numpy()
    assert centers.dtype == paddle.int32 and remapped.dtype == paddle.int32
    assert c[:4].tolist() == [1, 2, 5, 9] and len(set(c.tolist())) == 7
    assert not set(c[4:].tolist()) & {1, 2, 5, 9} and c.max() < 12
    np.testing.assert_array_equal(c[remapped.numpy()], label.numpy())
    assert remapped.stop_gradient and centers.stop_gradient
    with pytest.raises(ValueError, match=r"class_center_sample: num_samples \(13\) must not "
                                         r"exceed num_classes \(12\)"):
        F.class_center_sample(label, 12, 13)
    with pytest.raises(ValueError, match=r"class_center_sample: label values must be in "
                                         r"\[0, 6\)"):
        F.class_center_sample(label, 6, 3)
