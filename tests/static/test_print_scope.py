"""static.Print(first_n), name_scope op paths (Paddle's op_namescope), DCE inside control-flow
sub-blocks."""
import json

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.static.io import program_from_dict, program_to_dict
from tests.static_util import static_guard


def test_print_first_n(capsys):
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        y = static.Print(x, message="twice", first_n=2, print_phase="forward")
        z = static.Print(x, message="always")
        out = y + z
    exe = static.Executor()
    for _ in range(4):
        exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[out])
    text = capsys.readouterr().out
    assert text.count("twice") == 2 and text.count("always") == 4
    with static_guard(static.Program(), static.Program()):
        with pytest.raises(TypeError, match="first_n must be an int"):
            static.Print(static.data("x", [2], "float32"), first_n=1.5)


def test_print_refused_in_dynamic_mode():
    with pytest.raises(AssertionError, match=r"Print: only supported in static graph mode"):
        static.Print(paddle.ones([2]))


def test_name_scope_paths_like_paddle():
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [2, 3], "float32")
        with static.name_scope("enc"):
            y = x + 1.0
            with static.name_scope("inner"):
                z = paddle.nn.functional.relu(y)
            static.nn.fc(z, 2)
        with static.name_scope("enc"):
            z * 2
        x - 1.0
    scopes = [(op.type, op.attr("op_namescope")) for op in main.global_block().ops]
    # Paddle 3.3.1 (legacy static) gives the same paths for the same build
    assert scopes == [("add", "/enc/"), ("relu", "/enc/inner/"), ("matmul", "/enc/"),
                      ("add", "/enc/"), ("multiply", "/enc_1/"), ("subtract", "/")]
    assert y.name.startswith("tmp")   # variable names are not prefixed (as in Paddle)
    copy = program_from_dict(json.loads(json.dumps(program_to_dict(main))))
    assert [op.attr("op_namescope") for op in copy.global_block().ops] == \
        [s for _, s in scopes]
    assert [op.namescope for op in main.clone().global_block().ops] == [s for _, s in scopes]
    with pytest.raises(TypeError, match="prefix must be a str"):
        with static.name_scope(3):
            pass


def test_dce_prunes_dead_ops_inside_cond_branches():
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [3], "float32")

        def yes():
            (x * 5.0).exp()      # dead inside the branch
            return x + 1.0

        out = static.nn.cond(x.sum() > 0, yes, lambda: x - 1.0)
    sub_before = [len(b.ops) for b in main.blocks[1:]]
    pruned = static.passes.apply(main, "dead_code_elimination", keep=[out])
    sub_after = [len(b.ops) for b in pruned.blocks[1:]]
    assert sum(sub_after) == sum(sub_before) - 2
    exe = static.Executor()
    for v in (np.ones(3, "float32"), -np.ones(3, "float32")):
        np.testing.assert_array_equal(exe.run(pruned, feed={"x": v}, fetch_list=[out])[0],
                                      exe.run(main, feed={"x": v}, fetch_list=[out])[0])


# --- static-only / dynamic-only errors (Paddle's wording and AssertionError) ---------------------

@pytest.mark.parametrize("api, fn", [
    ("data", lambda: static.data("x", [2], "float32")),
    ("fc", lambda: static.nn.fc(paddle.ones([2, 3]), 2)),
    ("append_backward", lambda: static.append_backward(paddle.ones([2]).sum())),
    ("gradients", lambda: static.gradients([paddle.ones([2]).sum()], [paddle.ones([2])])),
    ("save_inference_model", lambda: static.save_inference_model(
        "/tmp/never_written", [paddle.ones([2])], [paddle.ones([2])], static.Executor())),
    ("serialize_program", lambda: static.serialize_program([paddle.ones([2])],
                                                           [paddle.ones([2])])),
])
def test_static_only_apis_in_dynamic_mode(api, fn):
    with pytest.raises(AssertionError, match=rf"{api}: only supported in static graph mode.*"
                                             rf"'{api}\(\)'.*paddle.enable_static\(\)"):
        fn()


def test_static_apis_paddle_allows_in_dynamic_mode():
    p = static.create_parameter([2, 3], "float32")
    assert isinstance(p, paddle.Tensor) and not p.stop_gradient and p.shape == [2, 3]
    g = static.create_global_var([2], 1.5, "float32", persistable=True)
    assert g.persistable and g.numpy().tolist() == [1.5, 1.5]
    with static.device_guard("cpu"):
        pass


def test_dynamic_only_methods_on_variables():
    with static_guard(static.Program(), static.Program()):
        x = static.data("x", [2], "float32")
        for call in (lambda: x.sum().backward(), x.gradient, x.clear_gradient):
            with pytest.raises(AssertionError, match="only can be called by `paddle.Tensor` "
                                                     "in dynamic graph mode.*append_backward"):
                call()
        with pytest.raises(TypeError, match="symbolic"):
            x.numpy()
