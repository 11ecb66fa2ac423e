"""viterbi_decode / ViterbiDecoder against PaddlePaddle 3.3.1 outputs (recorded) and a NumPy
reference (viterbi_reference.py), static mode, and errors."""
import numpy as np
import pytest

import sampan as paddle
from tests.text.viterbi_reference import viterbi_ref
from tests.static_util import static_guard

# Paddle 3.3.1, doc example inputs: paddle.seed(2023); rand((2, 4, 3)); randint(1, 5, [2]);
# rand((3, 3)) -- recorded, since sampan's generator draws other numbers
EMISSION = [[[0.8658361434936523, 0.5201472043991089, 0.2596093714237213],
             [0.9052532315254211, 0.42400088906288147, 0.40641286969184875],
             [0.9702089428901672, 0.744373619556427, 0.5178512930870056],
             [0.7329286932945251, 0.9778658151626587, 0.04315904155373573]],
            [[0.42639419436454773, 0.7195836901664734, 0.2081146091222763],
             [0.19731509685516357, 0.3842434883117676, 0.14603184163570404],
             [0.2271377444267273, 0.44607511162757874, 0.2165786176919937],
             [0.6768539547920227, 0.4646017551422119, 0.9238285422325134]]]
LENGTH = [2, 2]
TRANSITION = [[0.79534912109375, 0.7549810409545898, 0.22295498847961426],
              [0.8220144510269165, 0.15737386047840118, 0.851823091506958],
              [0.9846131801605225, 0.4902213215827942, 0.8027632832527161]]
PADDLE_OUT = {False: ([2.5664384365081787, 1.7389131784439087], [[0, 0], [1, 0]]),
              True: ([4.373065948486328, 3.2256860733032227], [[0, 0], [0, 0]])}


@pytest.mark.parametrize("bos", [False, True])
def test_paddle_doc_example_values(bos):
    emission = paddle.to_tensor(EMISSION, dtype="float32")
    transition = paddle.to_tensor(TRANSITION, dtype="float32")
    scores, path = paddle.text.viterbi_decode(emission, transition,
                                              paddle.to_tensor(LENGTH, dtype="int64"), bos)
    assert scores.dtype == paddle.float32 and path.dtype == paddle.int64
    np.testing.assert_allclose(scores.numpy(), PADDLE_OUT[bos][0], rtol=1e-6)
    assert path.numpy().tolist() == PADDLE_OUT[bos][1]
    decoder = paddle.text.ViterbiDecoder(transition, include_bos_eos_tag=bos)
    s2, p2 = decoder(emission, paddle.to_tensor(LENGTH, dtype="int64"))
    np.testing.assert_array_equal(s2.numpy(), scores.numpy())
    np.testing.assert_array_equal(p2.numpy(), path.numpy())


def test_random_batches_match_reference_with_ragged_and_zero_lengths():
    rng = np.random.default_rng(0)
    for _ in range(50):
        b, t, n = rng.integers(1, 5), rng.integers(1, 7), rng.integers(2, 6)
        emis, trans = rng.standard_normal((b, t, n)), rng.standard_normal((n, n))
        lengths = rng.integers(0, t + 1, b).astype(np.int64)
        for bos in (False, True):
            scores, path = paddle.text.viterbi_decode(
                paddle.to_tensor(emis), paddle.to_tensor(trans), paddle.to_tensor(lengths), bos)
            ref_scores, ref_path = viterbi_ref(emis, trans, lengths, bos)
            np.testing.assert_allclose(scores.numpy(), ref_scores, rtol=1e-12)
            np.testing.assert_array_equal(path.numpy(), ref_path)


def test_brute_force_best_path():
    rng = np.random.default_rng(3)
    emis, trans = rng.standard_normal((1, 4, 3)), rng.standard_normal((3, 3))
    best = max(((emis[0, range(4), p].sum() + sum(trans[p[i], p[i + 1]] for i in range(3)), p)
                for p in np.ndindex(3, 3, 3, 3)))
    scores, path = paddle.text.viterbi_decode(paddle.to_tensor(emis), paddle.to_tensor(trans),
                                              paddle.to_tensor([4]), False)
    np.testing.assert_allclose(scores.numpy()[0], best[0])
    assert tuple(path.numpy()[0]) == best[1]


def test_static_program_matches_eager():
    rng = np.random.default_rng(1)
    emis, trans = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 4))
    lengths = np.array([3, 1], np.int64)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        e = paddle.static.data("e", [2, 3, 4], "float64")
        t = paddle.static.data("t", [4, 4], "float64")
        n = paddle.static.data("n", [2], "int64")
        scores, path = paddle.text.viterbi_decode(e, t, n)
    exe = paddle.static.Executor()
    got = exe.run(main, feed={"e": emis, "t": trans, "n": lengths}, fetch_list=[scores, path])
    ref = viterbi_ref(emis, trans, lengths, True)
    np.testing.assert_allclose(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])


@pytest.mark.parametrize("args, kw, err, words", [
    ((np.zeros((2, 3)), np.zeros((3, 3)), np.array([1, 1])), {}, ValueError, "3-D"),
    ((np.zeros((1, 3, 3)), np.zeros((2, 2)), np.array([1])), {}, ValueError, "num_tags = 3"),
    ((np.zeros((1, 3, 3)), np.zeros((3, 3), np.float32), np.array([1])), {}, TypeError,
     "differs"),
    ((np.zeros((2, 3, 3)), np.zeros((3, 3)), np.array([1])), {}, ValueError, "one length"),
    ((np.zeros((1, 3, 3)), np.zeros((3, 3)), np.array([1], np.int32)), {}, ValueError, "int64"),
    ((np.zeros((1, 3, 3)), np.zeros((3, 3)), np.array([4])), {}, ValueError, "[0, seq_len=3]"),
    ((np.zeros((1, 3, 1)), np.zeros((1, 1)), np.array([2])), {}, ValueError, "at least 2 tags"),
    ((np.zeros((1, 3, 3)), np.zeros((3, 3)), np.array([2])), {"include_bos_eos_tag": 1},
     TypeError, "bool"),
])
def test_errors(args, kw, err, words):
    tensors = [paddle.to_tensor(a) for a in args]
    with pytest.raises(err) as info:
        paddle.text.viterbi_decode(*tensors, **kw)
    assert words in str(info.value) and "viterbi_decode" in str(info.value)
