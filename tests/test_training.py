"""End-to-end training: a CNN, an LSTM classifier and a Transformer encoder learn generated
tasks to a set accuracy in a custom loop (layers + losses + optimizers + autograd together)."""
import numpy as np

import sampan as paddle
from sampan import nn
import sampan.nn.functional as F  # noqa: E402


def _accuracy(model, x, y) -> float:
    model.eval()
    with paddle.no_grad():
        pred = model(paddle.to_tensor(x)).argmax(axis=-1).numpy()
    model.train()
    return float((pred == y).mean())


def _fit(model, opt, x, y, epochs, batch=32):
    rng = np.random.default_rng(0)
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for i in range(0, len(x), batch):
            idx = order[i:i + batch]
            loss = F.cross_entropy(model(paddle.to_tensor(x[idx])), paddle.to_tensor(y[idx]))
            loss.backward()
            opt.step()
            opt.clear_grad()
    return float(loss)


def _bars(n, rng):
    """8x8 images with a vertical (label 0), horizontal (1) or diagonal (2) bar, plus noise."""
    x = rng.normal(0, 0.3, (n, 1, 8, 8)).astype("float32")
    y = rng.integers(0, 3, n)
    for i, label in enumerate(y):
        k = rng.integers(1, 7)
        if label == 0:
            x[i, 0, :, k] += 1.5
        elif label == 1:
            x[i, 0, k, :] += 1.5
        else:
            x[i, 0, np.arange(8), np.arange(8)] += 1.5
    return x, y


def test_cnn_learns_bar_orientation():
    paddle.seed(1)
    rng = np.random.default_rng(1)
    x, y = _bars(384, rng)
    model = nn.Sequential(nn.Conv2D(1, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(),
                          nn.MaxPool2D(2), nn.Conv2D(8, 8, 3, padding=1), nn.ReLU(),
                          nn.AdaptiveAvgPool2D(1), nn.Flatten(), nn.Linear(8, 3))
    opt = paddle.optimizer.Momentum(0.05, momentum=0.9, parameters=model.parameters())
    _fit(model, opt, x, y, epochs=6)
    xt, yt = _bars(200, np.random.default_rng(2))
    assert _accuracy(model, xt, yt) >= 0.9


class SeqClassifier(nn.Layer):
    """Embedding -> LSTM -> last state -> Linear."""

    def __init__(self, vocab=10, hidden=24, classes=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, 16)
        self.rnn = nn.LSTM(16, hidden)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, tokens):
        _, (h, _) = self.rnn(self.emb(tokens))
        return self.fc(h[-1])


def _first_marker(n, rng, length=10):
    """Label = which of the marker tokens 1 or 2 appears first (others are noise 3..9)."""
    x = rng.integers(3, 10, (n, length))
    y = rng.integers(0, 2, n)
    for i in range(n):
        a, b = sorted(rng.choice(length, 2, replace=False))
        x[i, a], x[i, b] = (1, 2) if y[i] == 0 else (2, 1)
    return x.astype("int64"), y


def test_lstm_learns_order_task():
    paddle.seed(2)
    rng = np.random.default_rng(3)
    x, y = _first_marker(512, rng)
    model = SeqClassifier()
    opt = paddle.optimizer.Adam(0.02, parameters=model.parameters())
    _fit(model, opt, x, y, epochs=8)
    xt, yt = _first_marker(200, np.random.default_rng(4))
    assert _accuracy(model, xt, yt) >= 0.9


class TinyEncoder(nn.Layer):
    def __init__(self, vocab=8, d=32, length=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = self.create_parameter([length, d],
                                         default_initializer=nn.initializer.Normal(0, 0.1))
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.fc = nn.Linear(d, 2)

    def forward(self, tokens):
        h = self.enc(self.emb(tokens) + self.pos)
        return self.fc(h.mean(axis=1))


def _majority(n, rng, length=8):
    """Tokens from {1, 2}: label 1 when token 2 is the majority (odd length of counts)."""
    x = rng.integers(1, 3, (n, length))
    x[:, -1] = rng.integers(3, 8, n)  # one distractor position
    y = ((x == 2).sum(axis=1) > (x == 1).sum(axis=1)).astype("int64")
    return x.astype("int64"), y


def test_transformer_encoder_learns_majority():
    paddle.seed(3)
    rng = np.random.default_rng(5)
    x, y = _majority(512, rng)
    model = TinyEncoder()
    opt = paddle.optimizer.AdamW(3e-3, parameters=model.parameters(), weight_decay=0.01)
    _fit(model, opt, x, y, epochs=10)
    xt, yt = _majority(200, np.random.default_rng(6))
    assert _accuracy(model, xt, yt) >= 0.9
