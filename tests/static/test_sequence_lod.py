"""LoDTensor, create_lod_tensor, the `x@LOD` companions of static.data(lod_level=...) and the
Executor's LoD feed/fetch: values, validation errors, serialization."""
import numpy as np
import pytest

import sampan as paddle
from sampan.base import LoDTensor, create_lod_tensor, create_random_int_lodtensor
from tests.static_util import static_guard

snn = paddle.static.nn


def test_lodtensor_api_as_paddle():
    t = paddle.base.core.LoDTensor()
    t.set(np.arange(10, dtype="float32").reshape(5, 2), paddle.CPUPlace())
    assert t.lod() == [] and t.shape() == [5, 2]
    t.set_recursive_sequence_lengths([[2, 3]])
    assert t.lod() == [[0, 2, 5]] and t.recursive_sequence_lengths() == [[2, 3]]
    assert t.has_valid_recursive_sequence_lengths()
    t.set_lod([[0, 1, 4]])
    assert t.recursive_sequence_lengths() == [[1, 3]]
    assert not t.has_valid_recursive_sequence_lengths()   # 4 != 5 rows
    np.testing.assert_array_equal(np.array(t), np.arange(10).reshape(5, 2))
    with pytest.raises(ValueError, match="start.* at 0|starting at 0"):
        t.set_lod([[1, 3, 5]])
    with pytest.raises(ValueError, match="never decrease"):
        t.set_lod([[0, 3, 2]])
    two = create_lod_tensor(np.zeros((5, 1)), [[2, 1], [1, 1, 3]], None)
    assert two.lod() == [[0, 2, 3], [0, 1, 2, 5]] and two.has_valid_recursive_sequence_lengths()


def test_create_lod_tensor_from_lists_and_errors():
    t = create_lod_tensor([[1, 2], [3]], [[2, 1]], paddle.CPUPlace())
    assert t.shape() == [3, 1] and np.array(t).dtype == np.int64 and t.lod() == [[0, 2, 3]]
    with pytest.raises(ValueError, match=r"create_lod_tensor: recursive_seq_lens \[\[2, 2\]\]"):
        create_lod_tensor(np.zeros((5, 2)), [[2, 2]], None)
    with pytest.raises(ValueError, match="lengths of the sequences"):
        create_lod_tensor([[1, 2], [3]], [[1, 2]], None)
    np.random.seed(0)
    r = create_random_int_lodtensor([[2, 3]], [4], None, low=1, high=3)
    assert r.shape() == [5, 4] and r.lod() == [[0, 2, 5]]
    assert np.array(r).min() >= 1 and np.array(r).max() <= 3


def _pool_program(levels=1):
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [-1, 2], "float32", lod_level=levels)
        out = snn.sequence_pool(x, "sum")
    return main, x, out


def test_data_declares_offsets_companions():
    main, x, _ = _pool_program(2)
    block = main.global_block()
    assert x.lod_level == 2
    for name in ("x@LOD0", "x@LOD"):
        v = block.var(name)
        assert v.is_data and v.dtype == paddle.int64 and v.shape == [-1]
    with static_guard(main):
        paddle.static.data("x", [-1, 2], "float32")   # redeclared without LoD
    assert not block.has_var("x@LOD") and not block.has_var("x@LOD0")
    with static_guard(paddle.static.Program()), pytest.raises(ValueError, match="lod_level"):
        paddle.static.data("z", [2], "float32", lod_level=-1)


def test_bad_lod_fed_raises_naming_the_feed_and_offsets():
    main, _, out = _pool_program()
    exe = paddle.static.Executor()
    x = np.ones((5, 2), "float32")
    bad = LoDTensor(x, [[0, 2, 4]])   # ends at 4, x has 5 rows
    with pytest.raises(ValueError, match=r"feed 'x'.*\[0, 2, 4\].*row count 5"):
        exe.run(main, feed={"x": bad}, fetch_list=[out])
    with pytest.raises(ValueError, match=r"start at 0, never decrease"):
        exe.run(main, feed={"x": LoDTensor(x, [[1, 5]])}, fetch_list=[out])
    with pytest.raises(ValueError, match="lod_level=1 but the fed LoDTensor has 0"):
        exe.run(main, feed={"x": LoDTensor(x)}, fetch_list=[out])
    # a plain array has no offsets (Paddle: "... does not contain LoD information")
    with pytest.raises(ValueError, match=r"'x' \(read by op 'sequence_pool'\) does not contain "
                                         r"LoD information.*create_lod_tensor"):
        exe.run(main, feed={"x": x}, fetch_list=[out])


def test_sequence_op_kernel_refuses_bad_offsets_eagerly():
    from sampan.ops.dispatch import call
    x = paddle.ones([4, 2])
    with pytest.raises(ValueError, match=r"sequence_pool: invalid LoD offsets \[0, 3, 2, 4\]"):
        call("sequence_pool", x, paddle.to_tensor(np.array([0, 3, 2, 4])))
    with pytest.raises(ValueError, match=r"sequence_reverse: invalid LoD offsets \[0, 2\]"):
        call("sequence_reverse", x, paddle.to_tensor(np.array([0, 2])))


def test_fetch_lod_variable():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [-1, 1], "float32", lod_level=1)
        y = snn.sequence_softmax(x)
        s = snn.sequence_pool(x, "sum")
    exe = paddle.static.Executor()
    feed = {"x": create_lod_tensor(np.ones((3, 1), "float32"), [[1, 2]], None)}
    with pytest.raises(RuntimeError, match="holds LoD.*return_numpy=False"):
        exe.run(main, feed=feed, fetch_list=[y])
    got_y, got_s, got_x = exe.run(main, feed=feed, fetch_list=[y, s, x], return_numpy=False)
    assert isinstance(got_y, LoDTensor) and got_y.lod() == [[0, 1, 3]]
    np.testing.assert_allclose(np.array(got_y).ravel(), [1, .5, .5])
    assert isinstance(got_s, paddle.Tensor)   # pooled: no LoD left
    assert got_x.lod() == [[0, 1, 3]]
    assert exe.run(main, feed=feed, fetch_list=[s])[0].ravel().tolist() == [1, 2]


def test_lod_program_round_trips_through_inference_model(tmp_path):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [-1, 2], "float32", lod_level=1)
        h = snn.sequence_conv(x, 3, 2, act="relu")
        out = paddle.static.nn.fc(snn.sequence_pool(h, "average"), 2)
    exe = paddle.static.Executor()
    exe.run(startup)
    feed = {"x": create_lod_tensor(np.arange(10, dtype="float32").reshape(5, 2) / 10,
                                   [[2, 3]], None)}
    want, = exe.run(main, feed=feed, fetch_list=[out])
    prefix = str(tmp_path / "seq")
    with static_guard(main, startup):
        paddle.static.save_inference_model(prefix, [x], [out], exe)
        prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
    assert feeds == ["x"]   # as Paddle; the LoDTensor fed as x brings its offsets
    got, = exe.run(prog, feed=feed, fetch_list=fetches)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_predictor_runs_a_lod_model_through_handles(tmp_path):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [-1, 1], "float32", lod_level=1)
        soft = snn.sequence_softmax(x)
        pooled = snn.sequence_pool(x, "sum")
    exe = paddle.static.Executor()
    prefix = str(tmp_path / "seq")
    with static_guard(main, startup):
        paddle.static.save_inference_model(prefix, [x], [soft, pooled], exe)
    config = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    predictor = paddle.inference.create_predictor(config)
    assert predictor.get_input_names() == ["x"]
    handle = predictor.get_input_handle("x")
    handle.set_lod([[0, 1, 3]])
    handle.copy_from_cpu(np.array([[0.], [1.], [1.]], "float32"))
    predictor.run()
    out_soft, out_pool = (predictor.get_output_handle(n) for n in predictor.get_output_names())
    np.testing.assert_allclose(out_soft.copy_to_cpu().ravel(), [1, .5, .5])
    assert out_soft.lod() == [[0, 1, 3]] and out_pool.lod() == []
    np.testing.assert_allclose(out_pool.copy_to_cpu().ravel(), [0, 2])
