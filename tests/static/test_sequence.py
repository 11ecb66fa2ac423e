"""paddle.static.nn.sequence_* against PaddlePaddle 3.3.1 (old static IR, FLAGS_enable_pir_api=0,
CPU) and the Paddle 2.x documentation examples for the layers 3.3.1 no longer ships.

The PADDLE_* constants were printed by Paddle 3.3.1 for the same programs and inputs.
"""
import numpy as np
import pytest

import sampan as paddle
from sampan.base import create_lod_tensor
from tests.static_util import static_guard

snn = paddle.static.nn
X18 = np.arange(18, dtype="float32").reshape(6, 3)

PADDLE_POOL = {  # x = arange(18).reshape(6, 3), recursive_seq_lens [[1, 3, 2]]
    "sum": [[0, 1, 2], [18, 21, 24], [27, 29, 31]],
    "average": [[0, 1, 2], [6, 7, 8], [13.5, 14.5, 15.5]],
    "sqrt": [[0, 1, 2], [10.392305374145508, 12.124356269836426, 13.856407165527344],
             [19.091882705688477, 20.5060977935791, 21.920310974121094]],
    "max": [[0, 1, 2], [9, 10, 11], [15, 16, 17]],
    "last": [[0, 1, 2], [9, 10, 11], [15, 16, 17]],
    "first": [[0, 1, 2], [3, 4, 5], [12, 13, 14]],
}
PADDLE_SOFTMAX = [1.0, 0.2693074941635132, 0.32893291115760803, 0.4017595648765564,
                  0.4501659870147705, 0.5498340129852295]   # linspace(0, 1, 6), lens [1, 3, 2]

# sequence_conv: x = sin(arange(18)).reshape(6, 3), lens [[1, 3, 2]], no bias;
# c1: filter_size 3 (padding_start -1), W1; c2: filter_size 2, padding_start 0, W2, tanh;
# loss = mean(sequence_pool(c1, 'max')) + mean(sequence_pool(c2, 'sqrt')); gx = dloss/dx
W1 = np.arange(18, dtype="float32").reshape(9, 2) * 0.1 - 0.8
W2 = np.arange(12, dtype="float32").reshape(6, 2) * -0.1 + 0.5
PADDLE_C1 = [[0.181859, 0.356936], [0.853904, 0.833136], [0.016953, -0.117005],
             [-0.848825, -0.825321], [-0.376309, -0.34879], [-0.541422, -0.513903]]
PADDLE_C2 = [[0.330484, 0.166723], [-0.724098, -0.71407], [0.651738, 0.63801],
             [-0.057084, 0.055985], [0.429159, 0.406446], [0.141674, 0.19981]]
PADDLE_LOSS = 0.457324
PADDLE_GX = [[0.089045, 0.093612, 0.09818], [-0.00825, 0.03983, 0.087911],
             [0.186489, 0.212088, 0.237686], [0.069379, 0.00853, -0.052319],
             [0.037426, 0.065187, 0.092948], [0.22371, 0.205745, 0.18778]]


def _run(main, feed, fetch, startup=None, return_numpy=True):
    exe = paddle.static.Executor(paddle.CPUPlace())
    if startup is not None:
        exe.run(startup)
    return exe.run(main, feed=feed, fetch_list=fetch, return_numpy=return_numpy)


def _lod(data, lens):
    return create_lod_tensor(np.asarray(data), lens, paddle.CPUPlace())


def test_pool_and_softmax_match_paddle():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [-1, 3], "float32", lod_level=1)
        y = paddle.static.data("y", [-1, 1], "float32", lod_level=1)
        pools = [snn.sequence_pool(x, k.upper() if k == "sum" else k) for k in PADDLE_POOL]
        firsts = [snn.sequence_first_step(x), snn.sequence_last_step(x)]
        sm = snn.sequence_softmax(y)
    feed = {"x": _lod(X18, [[1, 3, 2]]),
            "y": _lod(np.linspace(0, 1, 6).astype("float32").reshape(6, 1), [[1, 3, 2]])}
    *outs, soft = _run(main, feed, pools + firsts + [sm], return_numpy=False)
    for got, want in zip(outs, list(PADDLE_POOL.values()) + [PADDLE_POOL["first"],
                                                             PADDLE_POOL["last"]]):
        np.testing.assert_allclose(np.array(got), want, rtol=1e-6)
    assert isinstance(soft, paddle.base.LoDTensor) and soft.lod() == [[0, 1, 4, 6]]
    np.testing.assert_allclose(np.array(soft).ravel(), PADDLE_SOFTMAX, rtol=1e-6)


def test_pool_pad_value_and_empty_sequence():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [-1, 2], "float64", lod_level=1)
        out = snn.sequence_pool(x, "max", pad_value=-7.0)
    got, = _run(main, {"x": _lod(np.ones((2, 2)), [[0, 2, 0]])}, [out])
    np.testing.assert_array_equal(got, [[-7, -7], [1, 1], [-7, -7]])


def test_conv_and_pool_gradients_match_paddle():
    main, startup = paddle.static.Program(), paddle.static.Program()
    init = paddle.nn.initializer.Assign
    with static_guard(main, startup):
        x = paddle.static.data("x", [-1, 3], "float32", lod_level=1)
        x.stop_gradient = False
        c1 = snn.sequence_conv(x, 2, 3, bias_attr=False,
                               param_attr=paddle.ParamAttr(initializer=init(W1)))
        c2 = snn.sequence_conv(x, 2, 2, padding_start=0, bias_attr=False, act="tanh",
                               param_attr=paddle.ParamAttr(initializer=init(W2)))
        loss = (paddle.mean(snn.sequence_pool(c1, "max"))
                + paddle.mean(snn.sequence_pool(c2, "sqrt")))
        gx, = paddle.static.gradients([loss], [x])
    xv = np.sin(np.arange(18, dtype="float32")).reshape(6, 3)
    r1, r2, lv, g = _run(main, {"x": _lod(xv, [[1, 3, 2]])}, [c1, c2, loss, gx], startup,
                         return_numpy=False)
    assert r1.lod() == r2.lod() == [[0, 1, 4, 6]]
    np.testing.assert_allclose(np.array(r1), PADDLE_C1, atol=2e-6)
    np.testing.assert_allclose(np.array(r2), PADDLE_C2, atol=2e-6)
    np.testing.assert_allclose(np.array(lv), PADDLE_LOSS, atol=2e-6)
    np.testing.assert_allclose(np.array(g), PADDLE_GX, atol=2e-6)


def test_expand_matches_paddle():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [-1, 1], "float32", lod_level=1)
        x0 = paddle.static.data("x0", [-1, 1], "float32")
        y = paddle.static.data("y", [-1, 1], "float32", lod_level=2)
        o1 = snn.sequence_expand(x, y, ref_level=0)
        o2 = snn.sequence_expand(x0, y, ref_level=-1)
        o3 = snn.sequence_pool(y, "sum")
        o4 = snn.sequence_first_step(y)
    xs = np.array([[1], [2], [3], [4]], "float32")
    feed = {"x": _lod(xs, [[2, 2]]), "x0": xs,
            "y": _lod(np.arange(8, dtype="float32").reshape(8, 1), [[2, 2], [3, 3, 1, 1]])}
    r1, r2, r3, r4 = _run(main, feed, [o1, o2, o3, o4], return_numpy=False)
    # Paddle 3.3.1: o1 [1,2,1,2,3,4,3,4] lod [[0,2,4,6,8]]; o2 [1,1,1,2,2,2,3,4] no LoD;
    # pooling the last of two levels keeps the first: [3,12,6,7] / [0,3,6,7], lod [[0,2,4]]
    assert np.array(r1).ravel().tolist() == [1, 2, 1, 2, 3, 4, 3, 4]
    assert r1.lod() == [[0, 2, 4, 6, 8]]
    assert not isinstance(r2, paddle.base.LoDTensor)
    assert np.array(r2).ravel().tolist() == [1, 1, 1, 2, 2, 2, 3, 4]
    assert np.array(r3).ravel().tolist() == [3, 12, 6, 7] and r3.lod() == [[0, 2, 4]]
    assert np.array(r4).ravel().tolist() == [0, 3, 6, 7] and r4.lod() == [[0, 2, 4]]


# --- the Paddle 2.x documentation examples of the layers Paddle 3.3.1 no longer has ----------

def test_pad_and_unpad_doc_examples():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [-1, 2], "float32", lod_level=1)
        pad = paddle.static.data("pad", [2], "float32")
        out, length = snn.sequence_pad(x, pad)
        out4, _ = snn.sequence_pad(x, 0.0, maxlen=4)
        back = snn.sequence_unpad(out4, length)
    xs = np.arange(1, 11, dtype="float32").reshape(5, 2)
    o, n, o4, b = _run(main, {"x": _lod(xs, [[2, 3]]), "pad": np.array([-1, -2], "float32")},
                       [out, length, out4, back], return_numpy=False)
    np.testing.assert_array_equal(np.array(o), [[[1, 2], [3, 4], [-1, -2]],
                                                [[5, 6], [7, 8], [9, 10]]])
    assert np.array(n).tolist() == [2, 3] and np.array(o4).shape == (2, 4, 2)
    np.testing.assert_array_equal(np.array(b), xs)
    assert b.lod() == [[0, 2, 5]]


def test_concat_slice_reverse_reshape_doc_examples():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [-1, 2], "float32", lod_level=1)
        y = paddle.static.data("y", [-1, 2], "float32", lod_level=1)
        off = paddle.static.data("off", [-1, 1], "int64")
        ln = paddle.static.data("ln", [-1, 1], "int64")
        cat = snn.sequence_concat([x, y])
        sl = snn.sequence_slice(x, off, ln)
        rev = snn.sequence_reverse(x)
        rs = snn.sequence_reshape(x, new_dim=4)
    xs = np.arange(12, dtype="float32").reshape(6, 2)
    ys = -np.arange(1, 7, dtype="float32").reshape(3, 2)
    feed = {"x": _lod(xs, [[2, 4]]), "y": _lod(ys, [[1, 2]]),
            "off": np.array([[0], [1]]), "ln": np.array([[1], [2]])}
    c, s, r, h = _run(main, feed, [cat, sl, rev, rs], return_numpy=False)
    assert c.lod() == [[0, 3, 9]]
    np.testing.assert_array_equal(np.array(c)[:, 0], [0, 2, -1, 4, 6, 8, 10, -3, -5])
    assert s.lod() == [[0, 1, 3]] and np.array(s)[:, 0].tolist() == [0, 6, 8]
    assert r.lod() == [[0, 2, 6]] and np.array(r)[:, 0].tolist() == [2, 0, 10, 8, 6, 4]
    assert h.lod() == [[0, 1, 3]] and np.array(h).shape == (3, 4)


def test_enumerate_scatter_expand_as_doc_examples():
    main = paddle.static.Program()
    with static_guard(main):
        ids = paddle.static.data("ids", [-1, 1], "int64", lod_level=1)
        en = snn.sequence_enumerate(ids, win_size=2, pad_value=0)
        base = paddle.static.data("base", [3, 6], "float32")
        idx = paddle.static.data("idx", [-1, 1], "int64", lod_level=1)
        upd = paddle.static.data("upd", [-1, 1], "float32", lod_level=1)
        sc = snn.sequence_scatter(base, idx, upd)
        ea = snn.sequence_expand_as(paddle.static.data("v", [2, 1], "float32"), ids)
    lens = [[3, 5, 4]]
    feed = {"ids": _lod(np.array([[1], [2], [3], [4], [5]]), [[3, 2]]),
            "base": np.ones((3, 6), "float32"),
            "idx": _lod(np.array([[0], [1], [2], [5], [4], [3], [2], [1], [3], [2], [5],
                                  [4]]), lens),
            "upd": _lod(np.array([[.3], [.3], [.4], [.1], [.2], [.3], [.4], [0], [.2], [.3],
                                  [.1], [.4]], "float32"), lens),
            "v": np.array([[7], [8]], "float32")}
    e, s, a = _run(main, feed, [en, sc, ea], return_numpy=False)
    assert np.array(e).tolist() == [[1, 2], [2, 3], [3, 0], [4, 5], [5, 0]]
    assert e.lod() == [[0, 3, 5]]
    np.testing.assert_allclose(np.array(s), [[1.3, 1.3, 1.4, 1, 1, 1],
                                             [1, 1, 1.4, 1.3, 1.2, 1.1],
                                             [1, 1, 1.3, 1.2, 1.4, 1.1]], rtol=1e-6)
    assert np.array(a).ravel().tolist() == [7, 7, 7, 8, 8] and a.lod() == [[0, 3, 5]]


def test_layers_refuse_dynamic_mode_and_inputs_without_lod():
    with pytest.raises(AssertionError, match="sequence_pool"):
        snn.sequence_pool(paddle.ones([2, 2]), "sum")
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [-1, 2], "float32")
        with pytest.raises(ValueError, match=r"sequence_softmax: input 'x' carries no LoD"):
            snn.sequence_softmax(x)
        xl = paddle.static.data("xl", [-1, 2], "float32", lod_level=1)
        with pytest.raises(ValueError, match="pool_type must be one of"):
            snn.sequence_pool(xl, "median")
        with pytest.raises(ValueError, match="ref_level"):
            snn.sequence_expand(x, xl, ref_level=1)
