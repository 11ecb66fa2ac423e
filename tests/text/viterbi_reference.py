"""NumPy reference of paddle.text.viterbi_decode (used by tests/ops/db/text.py and tests/text)."""
import numpy as np


def viterbi_ref(potentials, transition_params, lengths, include_bos_eos_tag=True):
    """Per-row textbook Viterbi; Paddle's start row N-1, stop row N-2; zero-length rows score
    max(potentials[b, 0] (+ start)) with an all-zero path (Paddle's kernel)."""
    b = potentials.shape[0]
    max_len = int(lengths.max()) if b else 0
    start = transition_params[-1] if include_bos_eos_tag else 0
    scores = np.zeros(b, potentials.dtype)
    paths = np.zeros((b, max_len), np.int64)
    for i in range(b):
        alpha, history = potentials[i, 0] + start, []
        for t in range(1, int(lengths[i])):
            total = alpha[:, None] + transition_params
            history.append(total.argmax(0))
            alpha = total.max(0) + potentials[i, t]
        if include_bos_eos_tag and lengths[i] > 0:
            alpha = alpha + transition_params[-2]
        k = int(alpha.argmax())
        scores[i], path = alpha[k], [k]
        for h in reversed(history):
            k = int(h[k])
            path.append(k)
        paths[i, :lengths[i]] = path[::-1] if lengths[i] > 0 else []
    return scores, paths
