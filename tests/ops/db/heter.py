"""Op database entry for sampan/ops/heter.py (send_and_recv), run against a fake heter
worker that answers a fixed function of what it is sent (out0 = 2 * x0 + x1, out1 = the sum
of x0); tests/distributed/test_heter*.py run it against a real section."""
import numpy as np

from sampan.ops import heter
from sampan.ops.dispatch import call
from tests.ops.op_db import OpEntry, Sample


class FakeWorker:
    def __init__(self):
        self.requests = []

    def send_and_recv(self, message_name, feed, names):
        self.requests.append((message_name, sorted(feed), list(names)))
        x0, x1 = np.asarray(feed["a"]), np.asarray(feed["b"])
        return [2 * x0 + x1, x0.sum()]


def _exchange(x0, x1):
    heter.set_heter_client(FakeWorker())   # stays entered: the static tests run later
    return call("send_and_recv", [x0, x1], message_name="sec", send_var_name=["a", "b"],
                recv_var_name=["o", "s"], out_shapes=[list(x0.shape), []],
                out_dtypes=[x0.dtype.name, x0.dtype.name])


def _exchange_ref(x0, x1):
    return 2 * x0 + x1, np.asarray(x0.sum(), x0.dtype)


def _samples(rng, dt):
    return [Sample((rng.standard_normal((3, 2)).astype(dt),
                    rng.standard_normal((3, 2)).astype(dt))),
            Sample((np.asarray(1.5, dt), np.asarray(-2.0, dt)), {}, "0-d"),
            Sample((np.zeros((0, 2), dt), np.zeros((0, 2), dt)), {}, "empty")]


ENTRIES = [
    # onnx=False: the op talks to another process; it has no inference-graph meaning
    OpEntry("send_and_recv", _exchange, _exchange_ref, _samples, grad=False, onnx=False),
]
