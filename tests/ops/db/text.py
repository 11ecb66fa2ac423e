"""Op database entries: viterbi_decode (paddle.text)."""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample
from tests.text.viterbi_reference import viterbi_ref


def _samples(rng, dtype):
    def case(b, t, n, lengths, **kw):
        return Sample((rng.standard_normal((b, t, n)).astype(dtype),
                       rng.standard_normal((n, n)).astype(dtype),
                       np.asarray(lengths, np.int64)), kw)
    return [case(3, 5, 4, [5, 2, 3]), case(3, 5, 4, [1, 4, 2], include_bos_eos_tag=False),
            case(2, 3, 3, [0, 2]), case(1, 1, 2, [1]), case(4, 6, 5, [3, 3, 6, 1])]


ENTRIES = [
    OpEntry("viterbi_decode", paddle.text.viterbi_decode, viterbi_ref, _samples, grad=False,
            onnx=False),  # a data-dependent path length and a Python-level backtrack
]
