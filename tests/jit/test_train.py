"""Training under to_static matches eager training step for step (a small CNN with BatchNorm
and Dropout; an LSTM), and Paddle's jit.save tutorial flow runs unchanged.

Dropout: random ops draw their seeds when the Program runs, in op order, from the global
generator, and tracing restores the generator state, so after the same paddle.seed() a
to_static step draws exactly the masks the eager step draws; no p=0 trick is needed.
SGD with momentum (not Adam): Adam's first steps are ~lr * sign(grad), which turns the
float rounding noise of gradients that are truly ~0 (a conv bias before BatchNorm) into
visible differences; momentum keeps the comparison a test of the gradients themselves.
"""
import numpy as np

import sampan as paddle
from sampan import nn


class _CNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2D(4)
        self.pool = nn.MaxPool2D(2)
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        h = self.pool(nn.functional.relu(self.bn(self.conv(x))))
        return self.fc(self.drop(paddle.flatten(h, 1)))


class _LSTMNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 5)
        self.head = nn.Linear(5, 1)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out[:, -1]) + c.mean()


def _train(make, static, batches, steps=4):
    paddle.seed(7)
    net = make()
    if static:
        paddle.jit.to_static(net)
    opt = paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9,
                                    parameters=net.parameters())
    losses = []
    for x, y in batches[:steps]:
        out = net(paddle.to_tensor(x))
        loss = ((out - paddle.to_tensor(y)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    net.eval()
    final = net(paddle.to_tensor(batches[-1][0])).numpy()
    return losses, final, {k: v.numpy() for k, v in net.state_dict().items()}


def _compare(make, batches):
    eager = _train(make, False, batches)
    static = _train(make, True, batches)
    np.testing.assert_allclose(static[0], eager[0], rtol=1e-5)
    np.testing.assert_allclose(static[1], eager[1], rtol=1e-4, atol=1e-5)
    for key in eager[2]:
        np.testing.assert_allclose(static[2][key], eager[2][key], rtol=1e-4, atol=1e-5,
                                   err_msg=key)


def test_cnn_with_batchnorm_and_dropout_matches_eager():
    rng = np.random.RandomState(0)
    batches = [(rng.randn(6, 1, 8, 8).astype("float32"), rng.randn(6, 3).astype("float32"))
               for _ in range(5)]
    _compare(_CNN, batches)


def test_lstm_matches_eager():
    rng = np.random.RandomState(1)
    batches = [(rng.randn(4, 6, 3).astype("float32"), rng.randn(4, 1).astype("float32"))
               for _ in range(5)]
    _compare(_LSTMNet, batches)


# --- Paddle's jit.save tutorial, unchanged but for the import and a smaller model ----------

BATCH_SIZE = 16
BATCH_NUM = 4
EPOCH_NUM = 4
IMAGE_SIZE = 784
CLASS_NUM = 10


class RandomDataset(paddle.io.Dataset):
    def __init__(self, num_samples):
        self.num_samples = num_samples

    def __getitem__(self, idx):
        image = np.random.random([IMAGE_SIZE]).astype('float32')
        label = np.random.randint(0, CLASS_NUM - 1, (1, )).astype('int64')
        return image, label

    def __len__(self):
        return self.num_samples


class LinearNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(IMAGE_SIZE, CLASS_NUM)

    @paddle.jit.to_static
    def forward(self, x):
        return self._linear(x)


def train(layer, loader, loss_fn, opt):
    losses = []
    for epoch_id in range(EPOCH_NUM):
        for batch_id, (image, label) in enumerate(loader()):
            out = layer(image)
            loss = loss_fn(out, label)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
    return losses


def test_tutorial_flow(tmp_path):
    np.random.seed(0)
    paddle.seed(0)
    layer = LinearNet()
    dataset = RandomDataset(BATCH_NUM * BATCH_SIZE)
    loader = paddle.io.DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True,
                                  drop_last=True, num_workers=0)
    loss_fn = nn.CrossEntropyLoss()
    adam = paddle.optimizer.Adam(learning_rate=0.001, parameters=layer.parameters())
    losses = train(layer, loader, loss_fn, adam)
    assert np.mean(losses[-4:]) < np.mean(losses[:4])
    path = str(tmp_path / "example.model" / "linear")
    paddle.jit.save(layer, path)

    loaded_layer = paddle.jit.load(path)
    loaded_layer.eval()
    x = paddle.randn([1, IMAGE_SIZE], 'float32')
    pred = loaded_layer(x)
    np.testing.assert_allclose(pred.numpy(), layer(x).numpy(), rtol=1e-5, atol=1e-6)
    loaded_layer.train()
    adam = paddle.optimizer.Adam(learning_rate=0.001, parameters=loaded_layer.parameters())
    more = train(loaded_layer, loader, loss_fn, adam)
    assert np.mean(more[-4:]) < np.mean(losses[:4])
