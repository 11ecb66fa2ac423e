"""Program.random_seed / global_seed / parse_from_string / state_dict / set_state_dict and
Executor.close/flush, compared with Paddle 3.3.1 (legacy static)."""
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from tests.static_util import static_guard


def test_random_seed_property_and_global_seed():
    prog = static.Program()
    assert prog.random_seed == 0
    prog.random_seed = 5
    assert prog.random_seed == 5 and prog.clone().random_seed == 5
    with pytest.raises(ValueError, match="random_seed's input seed must be an integer"):
        prog.random_seed = 1.5
    try:
        prog.global_seed(102)
        assert prog.random_seed == 102 and static.Program().random_seed == 102
    finally:
        prog.global_seed(0)
    assert static.Program().random_seed == 0


def test_paddle_seed_makes_runs_repeatable():
    main = static.Program()
    with static_guard(main, static.Program()):
        y = paddle.rand([4])
    exe = static.Executor()
    assert not np.array_equal(*(exe.run(main, fetch_list=[y])[0] for _ in range(2)))
    main.random_seed = 3  # Paddle 3.3.1: ignored by paddle.rand (test_static_random_seed.py)
    assert not np.array_equal(*(exe.run(main, fetch_list=[y])[0] for _ in range(2)))
    paddle.seed(3)
    a = exe.run(main, fetch_list=[y])[0]
    paddle.seed(3)
    np.testing.assert_array_equal(exe.run(main, fetch_list=[y])[0], a)


def _adam_program():
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        x = static.data("x", [-1, 2], "float32")
        y = static.nn.fc(x, 1)
        loss = paddle.mean(y)
        paddle.optimizer.Adam(0.1, parameters=main.all_parameters()).minimize(loss)
    return main, startup, x, y


def test_state_dict_modes_and_set_state_dict():
    main, startup, x, y = _adam_program()
    scope = static.Scope()
    exe = static.Executor()
    with static.scope_guard(scope):
        exe.run(startup)
        params = sorted(main.state_dict("param"))
        opt = main.state_dict("opt")
        assert params == [n for n in params if n.startswith("fc_")] and len(params) == 2
        assert opt and not set(opt) & set(params)
        assert sorted(main.state_dict()) == sorted(params + list(opt))
        w_name = [n for n in params if ".w_" in n][0]
        b_name = [n for n in params if ".b_" in n][0]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            main.set_state_dict({w_name: np.ones((2, 1), "float32"), "nope": np.ones(1),
                                 b_name: np.ones(3, "float32")})
        msgs = [str(m.message) for m in w]
        assert "Skip loading for 'nope'. Because 'nope' not in the program." in msgs
        assert any(f"{b_name} expected a shape [1], but the received shape is [3]" in m
                   for m in msgs)
        np.testing.assert_array_equal(main.state_dict("param")[w_name].numpy(),
                                      np.ones((2, 1)))
        out = exe.run(main, feed={"x": np.array([[1.0, 2.0]], "float32")}, fetch_list=[y])[0]
        assert out.shape == (1, 1)
    with pytest.raises(ValueError, match="`mode` string should be 'param', 'opt' or 'all'"):
        main.state_dict("xx")
    with pytest.raises(TypeError, match="`state_dict` should be dict"):
        main.set_state_dict([1])
    with static.scope_guard(static.Scope()):
        with pytest.raises(ValueError, match="Can not find Variable .* in the scope"):
            main.state_dict()


def test_parse_from_string_round_trip():
    main, startup, x, y = _adam_program()
    data = static.serialize_program([x], [y], program=main)
    for blob in (data, data.decode("utf-8")):
        prog = static.Program.parse_from_string(blob)
        assert isinstance(prog, static.Program) and prog.num_blocks == 1
        assert [op.type for op in prog.global_block().ops] == \
            [op.type for op in static.deserialize_program(data).global_block().ops]
    with pytest.raises(ValueError, match="not a serialized sampan program"):
        static.Program.parse_from_string(b"\x00garbage")


def test_executor_close_and_flush():
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        y = x * 2.0
    exe = static.Executor()
    exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])
    assert exe._cache
    assert exe.flush() is None
    exe.close()
    assert not exe._cache
    np.testing.assert_array_equal(
        exe.run(main, feed={"x": np.ones(2, "float32")}, fetch_list=[y])[0], [2.0, 2.0])
