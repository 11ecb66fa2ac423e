"""paddle.sparse.nn: activations, softmax, BatchNorm, Conv3D/SubmConv3D, MaxPool3D against
numbers recorded from Paddle 3.3.1 on CPU; gradients of the conv against central differences;
a sparse-input model trains."""
import numpy as np
import pytest

import sampan as paddle
from sampan import sparse
from sampan.sparse.nn import functional as F
from tests.gradcheck import numeric_grad

IDX = np.array([[0, 0, 0, 0, 0], [0, 1, 1, 2, 2], [0, 1, 2, 0, 2], [1, 0, 2, 2, 1]])
# Paddle 3.3.1 outputs for x = coo(IDX, randn(5, 2) seed 0, [1, 3, 3, 3, 2]),
# w = randn(3, 3, 3, 2, 3) from the same stream
SUBM_PAD1 = [[-3.91606, -1.27728, -0.19884], [2.86770, 0.74540, 5.73124],
             [-3.70269, 1.17490, -1.56787], [-1.20234, 0.97030, -0.53088],
             [-2.83859, 0.24079, -0.82323]]
CONV_S2 = [[3.95654, 2.30211, 1.02385]]
CONV_PAD1_NNZ, CONV_PAD1_SUM = 27, 21.57492
POOL_IDX = [[0] * 8, [0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 0, 0, 1, 1], [0, 1, 0, 1, 0, 1, 0, 1]]
POOL = [[1.76405, 2.24089], [1.76405, 0.40016], [0.97874, 2.24089], [1.86756, -0.97728],
        [0.97874, 2.24089], [0.95009, -0.15136], [0.97874, 2.24089], [1.86756, 0.41060]]
BN = [[0.94843, 0.01471], [-0.15892, 1.75579], [1.09438, -1.28815], [-0.19932, -0.50694],
      [-1.68456, 0.02459]]


def sample(dtype="float32"):
    rng = np.random.RandomState(0)
    vals = rng.randn(5, 2).astype("float32")
    w = rng.randn(3, 3, 3, 2, 3).astype("float32")
    x = sparse.sparse_coo_tensor(IDX, vals.astype(dtype), [1, 3, 3, 3, 2])
    return x, paddle.to_tensor(w.astype(dtype))


def test_subm_conv3d_matches_paddle():
    x, w = sample()
    out = F.subm_conv3d(x, w, padding=1)
    assert out.shape == [1, 3, 3, 3, 3]
    assert out.indices().numpy().tolist() == IDX.tolist()
    np.testing.assert_allclose(out.values().numpy(), SUBM_PAD1, atol=2e-5)


def test_conv3d_matches_paddle():
    x, w = sample()
    out = F.conv3d(x, w, padding=1)
    assert out.shape == [1, 3, 3, 3, 3] and out.nnz() == CONV_PAD1_NNZ
    np.testing.assert_allclose(out.to_dense().numpy().sum(), CONV_PAD1_SUM, rtol=1e-5)
    out2 = F.conv3d(x, w, stride=2)
    assert out2.shape == [1, 1, 1, 1, 3] and out2.indices().numpy().tolist() == [[0]] * 4
    np.testing.assert_allclose(out2.values().numpy(), CONV_S2, atol=2e-5)


def test_conv3d_equals_dense_convolution():
    x, w = sample("float64")
    dense = x.to_dense().numpy()[0]  # [D, H, W, C]
    out = F.conv3d(x, w, padding=1).to_dense().numpy()[0]
    padded = np.pad(dense, [(1, 1)] * 3 + [(0, 0)])
    want = np.zeros_like(out)
    for d, h, v in np.ndindex(3, 3, 3):
        patch = padded[d:d + 3, h:h + 3, v:v + 3]  # [3, 3, 3, C]
        want[d, h, v] = np.einsum("ijkc,ijkco->o", patch, w.numpy())
    np.testing.assert_allclose(out, want, atol=1e-12)


def test_conv_grads_against_differences():
    x, w = sample("float64")
    vals = x.values().numpy()
    cot = np.random.RandomState(5).randn(5, 3)

    def loss(v, wv, bias=np.array([0.1, 0.2, 0.3])):
        xs = sparse.sparse_coo_tensor(IDX, v, [1, 3, 3, 3, 2], stop_gradient=False)
        wt = paddle.to_tensor(wv, stop_gradient=False)
        bt = paddle.to_tensor(bias, stop_gradient=False)
        out = F.subm_conv3d(xs, wt, bt, padding=1)
        return xs, wt, bt, (out.values() * paddle.to_tensor(cot)).sum()

    xs, wt, bt, total = loss(vals, w.numpy())
    total.backward()
    np.testing.assert_allclose(xs.grad.values().numpy(),
                               numeric_grad(lambda v: float(loss(v, w.numpy())[3]), vals),
                               rtol=1e-6, atol=1e-8)
    wn = w.numpy()
    gw = numeric_grad(lambda m: float(loss(vals, m)[3]), wn)
    np.testing.assert_allclose(wt.grad.numpy(), gw, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(bt.grad.numpy(), cot.sum(0))


def test_max_pool3d_matches_paddle_and_grad():
    x, _ = sample("float64")
    x.stop_gradient = False
    out = F.max_pool3d(x, 2, stride=1)
    assert out.shape == [1, 2, 2, 2, 2] and out.indices().numpy().tolist() == POOL_IDX
    np.testing.assert_allclose(out.values().numpy(), POOL, atol=1e-5)
    out.values().sum().backward()
    # each input value gets one per output window where it is the max
    vals = x.values().numpy()
    counts = [[(np.isclose(np.array(POOL)[:, c], vals[i, c], atol=1e-5)).sum()
               for c in range(2)] for i in range(5)]
    np.testing.assert_allclose(x.grad.values().numpy(), counts)


def test_batch_norm_matches_paddle():
    x, _ = sample()
    bn = sparse.nn.BatchNorm(2)
    out = bn(x)
    np.testing.assert_allclose(out.values().numpy(), BN, atol=2e-5)
    vals = x.values().numpy()
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * vals.mean(0), rtol=1e-5)
    bn.eval()
    np.testing.assert_allclose(bn(x).values().numpy(),
                               (vals - bn._mean.numpy()) / np.sqrt(bn._variance.numpy() + 1e-5)
                               , rtol=1e-5)


def test_activations_and_softmax_match_paddle():
    i = [[0, 1, 1, 2], [1, 0, 2, 1]]
    x = sparse.sparse_coo_tensor(i, [-1.0, 2.0, -3.0, 4.0], [3, 3])
    assert sparse.nn.ReLU()(x).values().numpy().tolist() == [0.0, 2.0, 0.0, 4.0]  # Paddle
    assert sparse.nn.ReLU6()(sparse.multiply(x, 2.0)).values().numpy().tolist() == \
        [0.0, 4.0, 0.0, 6.0]
    np.testing.assert_allclose(sparse.nn.LeakyReLU(0.1)(x).values().numpy(),
                               [-0.1, 2.0, -0.3, 4.0])
    csr = sparse.sparse_coo_tensor(i, [1.0, 2.0, 3.0, 4.0], [3, 3]).to_sparse_csr()
    sm = sparse.nn.Softmax()(csr)
    assert sm.is_sparse_csr()
    # Paddle 3.3.1
    np.testing.assert_allclose(sm.values().numpy(), [1.0, 0.26894143, 0.7310586, 1.0],
                               rtol=1e-6)


def test_softmax_grad():
    vals = np.array([0.5, -1.0, 2.0, 0.3, 1.1])
    i = [[0, 0, 1, 1, 1], [0, 2, 0, 1, 2]]
    cot = np.array([1.0, -2.0, 0.5, 3.0, 1.5])

    def loss(v):
        x = sparse.sparse_coo_tensor(i, v, [2, 3], stop_gradient=False)
        return x, (F.softmax(x).values() * paddle.to_tensor(cot)).sum()

    x, total = loss(vals)
    total.backward()
    np.testing.assert_allclose(x.grad.values().numpy(),
                               numeric_grad(lambda v: float(loss(v)[1]), vals), rtol=1e-6)


def test_nn_errors():
    x, w = sample()
    with pytest.raises(ValueError, match="subm_conv3d: stride must be 1"):
        F.subm_conv3d(x, w, stride=2)
    with pytest.raises(ValueError, match=r"conv3d: weight must be \[kD, kH, kW, 2, C_out\]"):
        F.conv3d(x, paddle.ones([3, 3, 3, 4, 2]))
    with pytest.raises(ValueError, match="conv3d: x must be a sparse COO tensor"):
        F.conv3d(sparse.sparse_coo_tensor([[0]], [1.0], [2]), w)
    with pytest.raises(ValueError, match="softmax: only axis=-1"):
        F.softmax(sparse.sparse_coo_tensor([[0], [0]], [1.0], [2, 2]), axis=0)


class SparseNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = sparse.nn.SubmConv3D(1, 4, 3, padding=1)
        self.bn = sparse.nn.BatchNorm(4)
        self.relu = sparse.nn.ReLU()
        self.pool = sparse.nn.MaxPool3D(2)
        self.fc = paddle.nn.Linear(32, 2)

    def forward(self, x):
        h = self.pool(self.relu(self.bn(self.conv(x))))
        return self.fc(h.to_dense().reshape([x.shape[0], 32]))  # pooled grid 2x2x2x4


def _batch(rng, n=8):
    """Point clouds in a 4^3 grid: class 1 has its points in the upper half (d >= 2)."""
    coords, vals, labels = [], [], []
    for b in range(n):
        label = b % 2
        pts = {(int(rng.randint(2) + 2 * label), int(rng.randint(4)), int(rng.randint(4)))
               for _ in range(5)}
        for p in sorted(pts):
            coords.append((b,) + p)
            vals.append([1.0])
        labels.append(label)
    x = sparse.sparse_coo_tensor(np.array(coords).T, np.array(vals, "float32"), [n, 4, 4, 4, 1])
    return x, paddle.to_tensor(np.array(labels, "int64"))


def test_sparse_model_trains():
    paddle.seed(0)
    rng = np.random.RandomState(0)
    net = SparseNet()
    opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=net.parameters())
    losses = []
    for _ in range(25):
        x, y = _batch(rng)
        loss = paddle.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5])
    net.eval()
    x, y = _batch(np.random.RandomState(9), 16)
    acc = float((net(x).argmax(-1) == y).astype("float32").mean())
    assert acc >= 0.9
    assert len(net.parameters()) == 8  # as Paddle: BatchNorm statistics are parameters too


# Paddle 3.3.1, seed 1: idx2 below, vals randn(4, 2), w randn(3, 3, 2, 3), shape [2, 3, 3, 2]
IDX2 = np.array([[0, 0, 0, 1], [0, 1, 2, 1], [1, 0, 2, 1]])
SUBM2D = [[-3.38880, -0.48187, -1.99682], [-1.71866, 2.95358, 1.98578],
          [-0.56554, 1.84009, -1.12042], [-1.18935, -0.62422, -1.34964]]
CONV2D = [[0.56340, 1.96601, -2.70580], [-1.18935, -0.62422, -1.34964]]


def test_conv2d_matches_paddle():
    rng = np.random.RandomState(1)
    vals = rng.randn(4, 2).astype("float32")
    w = paddle.to_tensor(rng.randn(3, 3, 2, 3).astype("float32"))
    x = sparse.sparse_coo_tensor(IDX2, vals, [2, 3, 3, 2])
    out = F.subm_conv2d(x, w, padding=1)
    assert out.shape == [2, 3, 3, 3] and out.indices().numpy().tolist() == IDX2.tolist()
    np.testing.assert_allclose(out.values().numpy(), SUBM2D, atol=2e-5)
    np.testing.assert_allclose(F.subm_conv2d_igemm(x, w, padding=1).values().numpy(), SUBM2D,
                               atol=2e-5)
    out = F.conv2d(x, w)
    assert out.shape == [2, 1, 1, 3] and out.indices().numpy().tolist() == [[0, 1], [0, 0],
                                                                             [0, 0]]
    np.testing.assert_allclose(out.values().numpy(), CONV2D, atol=2e-5)
    layer = sparse.nn.SubmConv2D(2, 3, 3, padding=1)
    assert layer.weight.shape == [3, 3, 2, 3] and layer(x).shape == [2, 3, 3, 3]
    with pytest.raises(ValueError, match="conv2d: data_format must be 'NHWC'"):
        F.conv2d(x, w, data_format="NDHWC")


def test_attention_against_numpy():
    # Paddle 3.3.1 has no CPU kernel for sparse attention: compare with a dense reference
    rng = np.random.RandomState(4)
    q, k, v = (rng.randn(1, 2, 3, 4) for _ in range(3))
    layout = np.array([[[1, 0, 0], [1, 1, 0], [0, 1, 1]]] * 2, "float64")
    mask = paddle.to_tensor(layout).to_sparse_csr()
    qt = paddle.to_tensor(q, stop_gradient=False)
    out = F.attention(qt, paddle.to_tensor(k), paddle.to_tensor(v), mask,
                      attn_mask=paddle.to_tensor(np.array([[1, 1, 1], [0, 1, 1], [1, 1, 1.]])))
    scores = np.einsum("bhsd,bhtd->bhst", q, k) / 2.0
    keep = layout.reshape(1, 2, 3, 3).astype(bool) & np.array([[1, 1, 1], [0, 1, 1],
                                                              [1, 1, 1]], bool)
    scores = np.where(keep, scores, -np.inf)
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    np.testing.assert_allclose(out.numpy(), probs @ v, rtol=1e-10)
    out.sum().backward()
    assert qt.grad.shape == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="attention: sparse_mask must be"):
        F.attention(qt, qt, qt, paddle.ones([3, 3]).to_sparse_csr())


def test_sync_batch_norm_and_dense_methods():
    net = paddle.nn.Sequential(sparse.nn.BatchNorm(2))
    sparse.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert isinstance(net[0], sparse.nn.SyncBatchNorm)
    x, _ = sample()
    np.testing.assert_allclose(net(x).values().numpy(), BN, atol=2e-5)
    assert x.sparse_dim() == 4 and x.dense_dim() == 1
    dense = paddle.ones([2, 2])
    assert dense.sparse_dim() == 0 and dense.to_dense() is dense
