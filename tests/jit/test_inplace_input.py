"""An in-place op on a to_static input rebinds the handle, not the fed input."""
import numpy as np

import sampan as paddle


def test_an_in_place_op_on_an_input_still_feeds_the_input():
    @paddle.jit.to_static(full_graph=True)
    def f(t):
        t.exp_()
        return t * 2

    x = paddle.to_tensor([0.0, 1.0])
    np.testing.assert_allclose(f(x).numpy(), 2 * np.exp([0.0, 1.0]), rtol=1e-6)
