"""save_inference_model without `program`: uses the fetches' program; files written atomically."""
import os

import numpy as np

import sampan as paddle
from sampan import static
from tests.static_util import static_guard


def test_program_defaults_to_the_fetches_program(tmp_path):
    paddle.enable_static()
    try:
        main, start = static.Program(), static.Program()
        with static_guard(main, start):
            x = static.data("image", [None, 3], "float32")
            y = static.nn.fc(x, 2)
        exe = static.Executor()
        exe.run(start)
        prefix = str(tmp_path / "m" / "model")
        static.save_inference_model(prefix, [x], [y], exe)
        xv = np.ones((2, 3), "float32")
        want, = exe.run(main, feed={"image": xv}, fetch_list=[y])
        program, feeds, fetches = static.load_inference_model(prefix, exe)
        got, = exe.run(program, feed={feeds[0]: xv}, fetch_list=fetches)
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert sorted(os.listdir(tmp_path / "m")) == ["model.pdiparams", "model.pdmodel"]
