"""Device placement for dispatch's slow path: pick the backend (`xp`) from the inputs'
places, refuse mixed places and CPU-only kernels, and put creation ops on the default place.

The NumPy fast path never comes here. Imports only `framework`.
"""
from __future__ import annotations

import numpy as np

from ..framework import flags as _flags
from ..framework import place as _place
from ..framework.tensor import Tensor, wrap

_ND = np.ndarray

#: ops whose kernels run only on the CPU (NumPy/SciPy-only code, host loops); a device
#: input raises an error naming the op and the place. Filled from the fake-device op tests.
CPU_ONLY = frozenset({
    # host-side kernels or vjp rules that build NumPy constants (fake-device op tests)
    "einsum", "cholesky", "cholesky_solve", "qr", "svd", "eigh", "eigvalsh", "eig",
    "slogdet", "triangular_solve", "pinv", "top_p_sampling", "roi_align", "_roi_align_grad",
    "psroi_pool", "_psroi_pool_grad", "_lstm_scan", "_gru_scan", "_rnn_scan",
    # samplers drawing from the host generator inside the kernel
    "bernoulli", "poisson", "exponential", "cauchy", "geometric", "multinomial",
    "standard_gamma", "binomial", "_uniform_dims", "_normal_dims", "_randint_dims",
    # MPI collectives and parameter-server ops exchange host buffers
    "send_recv", "recv", "distributed_lookup_table", "distributed_push_sparse",
    "distributed_push_dense", "distributed_step", "distributed_pull_dense", "listen_and_serv",
    "send_and_recv",
    # LoD sequence ops: offsets walked on the host (static Programs on a GPU run them there)
    "sequence_pool", "sequence_softmax", "sequence_expand", "sequence_expand_as",
    "sequence_conv", "sequence_concat", "sequence_pad", "sequence_unpad", "sequence_reverse",
    "sequence_slice", "sequence_reshape", "sequence_enumerate", "sequence_scatter",
})


def place_inputs(op, norm: list, flat: list):
    """(norm, flat, xp) with every input on the one device place of the call.

    CPU tensors that need no gradient and are integer/bool (indices, masks) or hold at most
    one element (Python constants, loss scalars, seeds) are copied to the device; any other
    CPU/device mix (floating data fed to a device op) or device/device mix is an error
    naming both places.
    """
    first, host = None, False
    for t in flat:
        if t is None:
            continue
        data = t._data
        if data.__class__ is _ND:
            host = True
        elif first is None:
            first = data
        elif data.__class__ is not first.__class__ or data.device != first.device:
            a, b = _place.place_of(first), _place.place_of(data)
            raise ValueError(f"{op.name}: inputs are on different places, {a} and {b}; "
                             f"move them to one place first (Tensor.cuda(), Tensor.cpu())")
    backend = _place.backend_of(first)
    if op.name in CPU_ONLY or op.name in getattr(backend, "CPU_ONLY", ()):
        raise NotImplementedError(f"{op.name}: this kernel runs only on the CPU; its input "
                                  f"is on {backend.place_of(first)}; call .cpu() on the "
                                  f"inputs first")
    if not host:  # the common case: every input already on the device
        return norm, flat, backend
    device = backend.place_of(first)
    moved = {}

    def place(t, slot):
        if t is None or t._data.__class__ is not _ND:
            return t
        data = t._data
        if not t.stop_gradient or (data.size > 1 and data.dtype.kind in "fc"):
            raise ValueError(f"{op.name}: input {op.input_names[slot]!r} is on Place(cpu) "
                             f"but other inputs are on {device}; move it with .cuda() or "
                             f"the others with .cpu()")
        if id(t) not in moved:
            moved[id(t)] = wrap(_place.move(t._data, device))
        return moved[id(t)]
    norm = [[place(v, i) for v in value] if isinstance(value, list) else place(value, i)
            for i, value in enumerate(norm)]
    flat = [moved.get(id(t), t) for t in flat]
    return norm, flat, backend


def adopt_outputs(op, xp, out):
    """The kernel's results as arrays of `xp`'s device (scalars lifted, host arrays refused
    or copied, as the backend decides)."""
    if op.multi_out:
        return type(out)(xp.adopt(o, op.name) for o in out)
    return xp.adopt(out, op.name)


def _has_tensor(inputs) -> bool:
    for value in inputs:
        if isinstance(value, (list, tuple)):
            if _has_tensor(value):
                return True
        elif isinstance(value, Tensor):
            return True
    return False


def _to_default_place(op, inputs, attrs, nxt):
    """Dispatch wrapper while the default place is a device: ops with no tensor input
    (creation, random, to_tensor's constants) put their outputs on that place."""
    out = nxt(op, inputs, attrs)
    if _has_tensor(inputs):
        return out
    place = _place.current_place()
    for t in out if isinstance(out, (tuple, list)) else (out,):
        if t.__class__ in (Tensor,) and t._data.__class__ is _ND:
            t._data = _place.move(t._data, place)
    return out


def _on_place_change(place) -> None:
    """Install (device place) or remove (CPU) `_to_default_place` in this thread."""
    state = _flags.STATE
    others = tuple(w for w in state.wrappers if w is not _to_default_place)
    state.wrappers = others if place.is_cpu_place() else others + (_to_default_place,)
    _flags._recompose()  # NOTE: flags composes the chain; set_place is a lasting switch


_place._PLACE_HOOKS.append(_on_place_change)
