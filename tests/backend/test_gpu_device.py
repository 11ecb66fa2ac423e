"""Every op_db entry on a real GPU (CuPy), when one is usable: values and gradients equal the
CPU, or the op is listed CPU-only and says so. Skipped with the reason on machines without a
GPU (the fake device test covers the seam there); bench/gpu_check.py runs the same checks with
timings."""
from __future__ import annotations

import pytest

import sampan as paddle
from tests.backend.device_check import check_entry
from tests.ops.op_db import ENTRIES

if not paddle.is_compiled_with_cuda():
    pytest.skip("no usable GPU (needs CuPy, the `gpu` extra, and a CUDA device)",
                allow_module_level=True)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_op_on_gpu_equals_cpu(entry):
    if entry.op in ("send_recv", "recv") or entry.name in ("send_recv", "recv"):
        pytest.skip("MPI collectives exchange host buffers; they run on CPU tensors only")
    check_entry(entry, paddle.CUDAPlace(0), max_samples=2)
