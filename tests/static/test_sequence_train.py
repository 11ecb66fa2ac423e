"""A Paddle-1.x/2.x style text classifier on LoD input, trained by an Executor loop:
words (lod_level=1) -> embedding -> sequence_conv -> sequence_pool(max) -> fc -> softmax
cross entropy, fed with create_lod_tensor. The task: does the sentence contain one of the
'trigger' words {1, 2, 3}? (A max-pooled convolution detects it wherever it sits.)"""
import numpy as np

import sampan as paddle
from sampan.base import create_lod_tensor
from tests.static_util import static_guard

VOCAB, TRIGGERS = 24, (1, 2, 3)


def _batch(rng, n):
    sents, labels = [], []
    for i in range(n):
        length = int(rng.integers(2, 9))
        words = rng.integers(4, VOCAB, length)
        if i % 2:
            words[rng.integers(0, length)] = rng.choice(TRIGGERS)
        sents.append(words)
        labels.append(i % 2)
    data = np.concatenate(sents).reshape(-1, 1).astype(np.int64)
    t = create_lod_tensor(data, [[len(s) for s in sents]], paddle.CPUPlace())
    return t, np.asarray(labels, np.int64).reshape(-1, 1)


def _build():
    words = paddle.static.data("words", [-1, 1], "int64", lod_level=1)
    label = paddle.static.data("label", [-1, 1], "int64")
    emb = paddle.static.nn.embedding(words, size=[VOCAB, 16])     # [rows, 1, 16], words' LoD
    emb = paddle.squeeze(emb, axis=1)
    conv = paddle.static.nn.sequence_conv(emb, num_filters=16, filter_size=3, act="tanh")
    pooled = paddle.static.nn.sequence_pool(conv, pool_type="max")
    logits = paddle.static.nn.fc(pooled, 2)
    loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, label))
    acc = paddle.static.accuracy(paddle.nn.functional.softmax(logits), label)
    return loss, acc


def test_text_classifier_trains_with_lod_feeds():
    paddle.seed(7)
    rng = np.random.default_rng(0)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        loss, acc = _build()
        test_prog = main.clone(for_test=True)
        paddle.optimizer.Adam(learning_rate=0.02).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    losses = []
    for _ in range(60):
        words, labels = _batch(rng, 32)
        lv, = exe.run(main, feed={"words": words, "label": labels}, fetch_list=[loss])
        losses.append(float(lv))
    words, labels = _batch(np.random.default_rng(1), 200)
    test_acc, = exe.run(test_prog, feed={"words": words, "label": labels}, fetch_list=[acc])
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5]), losses
    assert float(test_acc) >= 0.9, float(test_acc)
