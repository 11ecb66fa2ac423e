"""Functions run by paddle.distributed.spawn in tests/distributed/test_launch.py."""
import os

import numpy as np

import sampan as paddle
import sampan.distributed as dist


def fit_two_ranks(save_dir):
    """Model.fit over a DataParallel network: both ranks end with equal parameters that fit
    the data; only rank 0 saves."""
    dist.init_parallel_env(timeout=60)
    rng = np.random.RandomState(0)
    x = rng.standard_normal((64, 4)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], "float32")).astype("float32")
    data = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
    paddle.seed(dist.get_rank())   # different initial weights: DataParallel broadcasts
    net = paddle.DataParallel(paddle.nn.Linear(4, 1))
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters()),
                  paddle.nn.MSELoss())
    model.fit(data, batch_size=8, epochs=6, verbose=0)
    model.save(os.path.join(save_dir, "final"))
    weights = []
    dist.all_gather_object(weights, net._layers.weight.numpy().tolist())
    np.testing.assert_allclose(weights[0], weights[1], rtol=1e-6)
    loss = float(((net(paddle.to_tensor(x)).numpy() - y) ** 2).mean())
    assert loss < 1e-2, loss


def fail_on_rank_one():
    dist.init_parallel_env(timeout=60)
    if dist.get_rank() == 1:
        raise KeyError("spawned rank 1 fails")
    dist.barrier()
