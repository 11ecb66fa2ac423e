"""Op database entries for sampan/ops/nn_rnn.py."""
import numpy as np  # noqa: F401

from tests.ops.op_db import OpEntry, Sample  # noqa: F401

ENTRIES = []
