"""A loaded TranslatedLayer inside a Program being built: jit.save of a loaded (fine-tuned)
model (docs/guides/jit/basic_usage_cn.md re-saves one), a loaded layer called from a
to_static function, and from a static Program. Its ops are copied into the current block."""
import numpy as np
import pytest

import sampan as paddle
from sampan.static import InputSpec
from tests.static_util import static_guard


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        return paddle.nn.functional.relu(self.fc(x)) * 2.0 + 1.0


def _loaded(tmp_path):
    paddle.seed(3)
    net = Net()
    path = str(tmp_path / "m" / "net")
    paddle.jit.save(net, path, input_spec=[InputSpec([None, 4], "float32", "x")])
    return net, paddle.jit.load(path)


def test_resave_loaded_layer_after_fine_tuning(tmp_path):
    net, loaded = _loaded(tmp_path)
    x = paddle.to_tensor(np.random.RandomState(0).rand(5, 4).astype("float32"))
    loaded.train()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=loaded.parameters())
    loss = loaded(x).mean()
    loss.backward()
    opt.step()
    loaded.eval()
    ref = loaded(x).numpy()
    assert not np.allclose(ref, net(x).numpy())          # the fine-tuning changed it
    path = str(tmp_path / "ft" / "net")
    paddle.jit.save(loaded, path, input_spec=[x])
    again = paddle.jit.load(path)
    np.testing.assert_allclose(again(x).numpy(), ref, rtol=1e-6)


def test_loaded_layer_inside_to_static_trains(tmp_path):
    net, loaded = _loaded(tmp_path)

    class Outer(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.inner = loaded
            self.head = paddle.nn.Linear(3, 1)

        @paddle.jit.to_static
        def forward(self, x):
            return self.head(self.inner(x))

    outer = Outer()
    x = paddle.to_tensor(np.ones([2, 4], np.float32))
    out = outer(x)
    np.testing.assert_allclose(out.numpy(), outer.head(net(x)).numpy(), rtol=1e-5)
    out.sum().backward()
    w = loaded.parameters()[0]
    assert w.grad is not None and float(paddle.abs(w.grad).sum()) > 0


def test_loaded_layer_in_static_program(tmp_path):
    net, loaded = _loaded(tmp_path)
    main, startup = paddle.static.Program(), paddle.static.Program()
    xv = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
    with static_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        y = loaded(x)
        exe = paddle.static.Executor()
        out, = exe.run(main, feed={"x": xv}, fetch_list=[y])
    np.testing.assert_allclose(out, net(paddle.to_tensor(xv)).numpy(), rtol=1e-5)


def test_wrong_input_count_still_refused(tmp_path):
    _, loaded = _loaded(tmp_path)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        with pytest.raises(TypeError, match="takes 1 inputs"):
            loaded(x, x)
