"""static.Print(print_tensor_layout=) (Paddle 3.3.1 prints '  - layout: NCHW' after the shape
by default and omits it with False)."""
import inspect

import numpy as np

from sampan import static
from tests.static_util import static_guard


def test_print_tensor_layout(capsys):
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        a = static.Print(x, message="with", print_phase="forward")
        b = static.Print(x, message="without", print_tensor_layout=False, print_phase="forward")
        out = a + b
    static.Executor().run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[out])
    text = capsys.readouterr().out
    first, second = text.split("without")
    assert "  - shape: [2]\n  - layout: NCHW" in first
    assert "layout" not in second
    names = list(inspect.signature(static.Print).parameters)
    assert names.index("print_tensor_layout") == names.index("print_tensor_shape") + 1
