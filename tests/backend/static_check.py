"""Static Programs and to_static trained on a place (shared by tests/backend/test_static_device.py
and bench/gpu_check.py, which runs them on a real GPU; no pytest needed)."""
from __future__ import annotations

import numpy as np

import sampan as paddle
from sampan.framework import place as _place
from tests.static_util import static_guard


def mlp_program():
    paddle.seed(0)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [None, 4], "float32")
        y = paddle.static.data("y", [None, 1], "int64")
        h = paddle.static.nn.fc(x, 8, activation="relu")
        out = paddle.static.nn.fc(h, 3)
        loss = paddle.nn.functional.cross_entropy(out, y)
        paddle.optimizer.Adam(0.01).minimize(loss)
    return main, startup, out, loss


def train_static(place, steps=3):
    main, startup, out, loss = mlp_program()
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(place)
    rng = np.random.default_rng(0)
    losses = []
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for _ in range(steps):
            feed = {"x": rng.standard_normal((5, 4)).astype("float32"),
                    "y": rng.integers(0, 3, (5, 1))}
            lv, ov = exe.run(main, feed=feed, fetch_list=[loss, out])
            losses.append(lv)
    return losses, ov, scope


def cond_program():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [3], "float32")
        i = paddle.full([1], 0, "int64")
        n = paddle.full([1], 3, "int64")
        _, acc = paddle.static.nn.while_loop(lambda i, a: i < n,
                                             lambda i, a: [i + 1, a * 2.0 + 1.0], [i, x])
        out = paddle.static.nn.cond(acc.sum() > 10.0, lambda: acc - 1.0, lambda: acc + 1.0)
    return main, out


def train_to_static(place):
    old = _place.current_place()
    _place.set_place(place)
    try:
        paddle.seed(0)
        net = paddle.nn.Sequential(paddle.nn.Conv2D(3, 4, 3, padding=1, stride=2),
                                   paddle.nn.BatchNorm2D(4), paddle.nn.ReLU(),
                                   paddle.nn.Flatten(), paddle.nn.Linear(4 * 3 * 3, 5))
        static_net = paddle.jit.to_static(net)
        opt = paddle.optimizer.Momentum(0.1, parameters=net.parameters())
        x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 3, 6, 6))
                             .astype("float32"))
        for _ in range(2):
            loss = static_net(x).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
        assert loss.place == place
        assert {p.place for p in net.parameters()} == {place}
        return [p.numpy() for p in net.state_dict().values()]
    finally:
        _place.set_place(old)
