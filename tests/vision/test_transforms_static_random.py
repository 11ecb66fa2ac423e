"""Random transforms on static Variables draw their parameters when the Program runs (one
py_func op per transform), as Paddle 3.3.1's random transforms on static Variables do (there
they build random ops): building draws nothing, each run draws anew, and the draws come from
the global generator in program order, so a Program equals the eager calls after the same
`paddle.seed`."""
import numpy as np

import sampan as paddle
from sampan.framework import random as fr
from sampan.vision.transforms import transforms

from ..static_util import static_guard

IMG = (np.random.default_rng(1).random((3, 10, 12)) * 255).astype(np.float32)


def _program(make):
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data(name="img", shape=[3, 10, 12], dtype="float32")
        noise = paddle.rand([4])
        out = make()(x)
    return main, noise, out


def _run(main, fetch):
    return paddle.static.Executor().run(main, feed={"img": IMG}, fetch_list=fetch)


def test_building_draws_nothing_and_appends_one_py_func():
    paddle.seed(3)
    state = fr.get_rng_state()[0]["state"]
    main, _, out = _program(lambda: transforms.RandomCrop((5, 6)))
    assert fr.get_rng_state()[0]["state"] == state
    assert [op.type for op in main.global_block().ops][-1] == "py_func"
    assert list(out.shape) == [3, 5, 6]


def test_each_run_draws_anew_and_seed_repeats_a_run():
    main, _, out = _program(lambda: transforms.RandomCrop((5, 6)))
    paddle.seed(8)
    runs = [_run(main, [out])[0] for _ in range(4)]
    assert len({r.tobytes() for r in runs}) > 1
    paddle.seed(8)
    np.testing.assert_array_equal(_run(main, [out])[0], runs[0])


def test_program_order_draws_equal_eager():
    make = lambda: transforms.RandomRotation(40)  # noqa: E731
    paddle.seed(21)
    noise = paddle.rand([4]).numpy()
    want = make()(paddle.to_tensor(IMG)).numpy()
    main, n, out = _program(make)
    paddle.seed(21)
    got = _run(main, [n, out])
    np.testing.assert_array_equal(got[0], noise)
    np.testing.assert_allclose(got[1], want, rtol=0, atol=1e-5)


def test_output_size_that_varies_with_the_draw_is_unknown():
    main, _, out = _program(lambda: transforms.RandomRotation(45, expand=True))
    assert list(out.shape) == [3, -1, -1]
    paddle.seed(4)
    sizes = {_run(main, [out])[0].shape for _ in range(6)}
    assert all(s[0] == 3 for s in sizes) and len(sizes) > 1
