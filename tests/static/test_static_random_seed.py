"""Seeds of random ops in static Programs, as Paddle 3.3.1 (PIR) gives them (checked against
/work/pdenv; sampan/framework/random.py states the rules):

- building a Program draws nothing from the global generator; ops without a fixed seed
  record seed 0 and draw at every run, so `paddle.seed(s)` + build + run equals eager after
  `paddle.seed(s)`, two runs differ, and `paddle.seed(s)` between runs repeats a run;
- an op with a fixed seed (`paddle.uniform(..., seed=7)`) gives the same values each run,
  equal to eager with that seed;
- Program.random_seed: ignored by paddle.rand/uniform/normal; set on the main program
  before building, it fixes dropout's seed (same mask every run); set on the startup
  program before building, it fixes the initializers' seed; set after building, nothing.
- host-side draws (`next_seed`: samplers, random transform parameters) use the global
  stream in any mode.
"""
import numpy as np

import sampan as paddle
from sampan import static
from sampan.framework import random as fr
from tests.static_util import static_guard

X = np.ones([4, 8], "float32")


def _eager(seed):
    paddle.seed(seed)
    a, b = paddle.rand([3]), paddle.randn([2])
    d = paddle.nn.functional.dropout(paddle.to_tensor(X), 0.5)
    return a.numpy(), b.numpy(), d.numpy()


def _build(main, startup=None):
    with static_guard(main, startup or static.Program()):
        x = static.data("x", [4, 8], "float32")
        outs = [paddle.rand([3]), paddle.randn([2]), paddle.nn.functional.dropout(x, 0.5)]
    return outs


def _run(main, outs):
    return static.Executor().run(main, feed={"x": X}, fetch_list=outs)


def _seeds(program, op_type):
    return [op.attrs["seed"] for op in program.global_block().ops if op.type == op_type]


def test_seed_build_run_equals_eager_and_runs_redraw():
    ref = _eager(2024)
    main = static.Program()
    paddle.seed(2024)
    outs = _build(main)
    first, second = _run(main, outs), _run(main, outs)
    for got, want in zip(first, ref):
        np.testing.assert_array_equal(got, want)
    assert not np.array_equal(first[0], second[0])
    assert not np.array_equal(first[2], second[2])
    paddle.seed(2024)  # seeding between runs repeats the first run (Paddle's test_random_seed)
    for got, want in zip(_run(main, outs), first):
        np.testing.assert_array_equal(got, want)


def test_building_consumes_nothing_and_records_seed_zero():
    paddle.seed(7)
    state = fr.get_rng_state()[0]["state"]
    main = static.Program()
    _build(main)
    assert fr.get_rng_state()[0]["state"] == state
    assert _seeds(main, "uniform") == [0] and _seeds(main, "normal") == [0]
    assert _seeds(main, "dropout") == [0]


def test_seed_after_build_gives_eager_values():
    ref = _eager(11)
    main = static.Program()
    paddle.seed(99)
    outs = _build(main)
    paddle.seed(11)
    for got, want in zip(_run(main, outs), ref):
        np.testing.assert_array_equal(got, want)


def test_fixed_op_seed_repeats_and_equals_eager():
    want = paddle.uniform([5], seed=7).numpy()
    main = static.Program()
    with static_guard(main):
        r = paddle.uniform([5], seed=7)
        g = paddle.tensor.random.gaussian([5], seed=3)
    exe = static.Executor()
    a, b = exe.run(main, fetch_list=[r, g]), exe.run(main, fetch_list=[r, g])
    np.testing.assert_array_equal(a[0], want)
    np.testing.assert_array_equal(b[0], want)
    np.testing.assert_array_equal(a[1], b[1])
    assert _seeds(main, "uniform") == [7] and _seeds(main, "normal") == [3]


def test_main_random_seed_fixes_dropout_only():
    main = static.Program()
    main.random_seed = 5
    outs = _build(main)
    assert _seeds(main, "dropout") == [5] and _seeds(main, "uniform") == [0]
    first, second = _run(main, outs), _run(main, outs)
    np.testing.assert_array_equal(first[2], second[2])  # dropout: same mask every run
    assert not np.array_equal(first[0], second[0])      # rand: redrawn


def test_random_seed_set_after_build_changes_nothing():
    main = static.Program()
    outs = _build(main)
    main.random_seed = 5
    first, second = _run(main, outs), _run(main, outs)
    assert _seeds(main, "dropout") == [0]
    assert not np.array_equal(first[0], second[0])
    assert not np.array_equal(first[2], second[2])


def _startup_weight(random_seed, before_build, global_seed):
    paddle.seed(global_seed)
    main, start = static.Program(), static.Program()
    if before_build:
        start.random_seed = random_seed
    with static_guard(main, start):
        w = static.create_parameter([6], "float32",
                                    default_initializer=paddle.nn.initializer.Normal())
    if not before_build:
        start.random_seed = random_seed
    exe = static.Executor()
    exe.run(start)
    return _seeds(start, "normal"), exe.run(main, fetch_list=[w])[0]


def test_startup_random_seed_fixes_initializers_when_set_before_build():
    seeds, a = _startup_weight(3, True, 1)
    _, b = _startup_weight(3, True, 2)
    assert seeds == [3]
    np.testing.assert_array_equal(a, b)
    seeds, c = _startup_weight(3, False, 1)
    _, d = _startup_weight(3, False, 2)
    assert seeds == [0]
    assert not np.array_equal(c, d)


def test_startup_initializer_follows_global_seed():
    _, a = _startup_weight(0, True, 21)
    paddle.seed(21)
    want = paddle.nn.initializer.Normal()(paddle.zeros([6])).numpy()
    np.testing.assert_array_equal(a, want)


def test_op_seed_and_host_draws():
    paddle.seed(3)
    first = fr.op_seed()
    paddle.seed(3)
    assert fr.next_seed() == first and fr.op_seed(9) == 9
    main = static.Program()
    with static_guard(main):
        assert fr.op_seed() == 0 and fr.op_seed(4) == 4
        assert fr.op_seed(program=True) == fr.PROGRAM_SEED
        paddle.seed(3)
        assert fr.next_seed() == first  # host-side draws use the global stream while building


def test_manual_program_seed_seeds_default_and_new_programs():
    main, start = static.Program(), static.Program()
    with static_guard(main, start):
        fr._manual_program_seed(13)
        assert static.default_main_program().random_seed == 13
        assert static.default_startup_program().random_seed == 13
        assert static.Program().random_seed == 13
        fr._manual_program_seed(0)
    assert static.Program().random_seed == 0
