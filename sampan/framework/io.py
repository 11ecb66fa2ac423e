"""paddle.save / paddle.load: pickle checkpoints in PaddlePaddle's own file layout.

Files interoperate with PaddlePaddle both ways. Loading is safe by default (a restricted
unpickler that only rebuilds containers and NumPy arrays); writes to a path are atomic.
Imports only `framework` (Layers are recognised by class name, without importing nn).
"""
from __future__ import annotations

import _compat_pickle
import builtins
import collections
import math
import os
import pickle
import tempfile
import warnings

import numpy as np

from . import dtype as _dt
from .dense_tensor import DenseTensorHolder
from .tensor import Tensor

__all__ = ["save", "load"]

_NAME_TABLE = "StructuredToParameterName@@"
_UNPACK_INFO = "UnpackBigParamInfor@@"  # Paddle's spelling
# Protocols 2 and 3 cannot pickle one object over 4 GB: Paddle splits big arrays in slices.
_MAX_SLICE_BYTES = 2 ** 30 - 1
_BF16 = _dt.convert_dtype("bfloat16").np
_LOAD_CONFIGS = ("model_filename", "params_filename", "keep_name_table", "return_numpy",
                 "safetensors", "trusted")
_SAVE_CONFIGS = ("use_binary_format", "pickle_protocol", "safetensors")


# paddle.save(program) writes the Program's serialized form, not a pickle (as Paddle writes
# its program desc), and paddle.load reads it back. Program and its serializer live in
# `static`, a higher room, which registers them here when it is imported.
_PROGRAM_FORMAT: dict = {}


def register_program_format(cls: type, dump, sniff, parse) -> None:
    """Called by sampan.static: `dump(program) -> bytes`, `sniff(head bytes) -> bool`,
    `parse(bytes) -> Program`."""
    _PROGRAM_FORMAT.update(cls=cls, dump=dump, sniff=sniff, parse=parse)


def _is_program(obj) -> bool:
    return bool(_PROGRAM_FORMAT) and isinstance(obj, _PROGRAM_FORMAT["cls"])


class UnsafeCheckpointError(pickle.UnpicklingError):
    """A checkpoint references a class or function outside the safe allow-list."""


class CorruptCheckpointError(ValueError, pickle.UnpicklingError):
    """A checkpoint is truncated or is not a pickle file."""


class CheckpointNotFoundError(FileNotFoundError, ValueError):
    """The file to load does not exist (a ValueError too, as Paddle raises one)."""


# --------------------------------------------------------------------------- save
def save(obj, path, protocol: int = 4, **configs) -> None:
    """Save a state_dict, Tensor, ndarray or nested containers of them to `path`.

    The file is a pickle in PaddlePaddle's layout: a dict of Tensors (a Layer's or an
    Optimizer's state_dict) is stored as NumPy arrays plus Paddle's name table; other
    Tensors are stored as `(name, ndarray)` tuples. Writing to a path is atomic: a crash
    mid-write leaves any previous file intact.

    Args:
        obj: the object to save (Layer objects themselves cannot be saved, as in Paddle;
            save `layer.state_dict()`).
        path (str|PathLike|file-like): a file path (parent folders are created) or a
            binary file-like object such as io.BytesIO.
        protocol (int): pickle protocol, 2, 3 or 4. Default 4.
        **configs: `pickle_protocol` (deprecated alias of protocol); `use_binary_format`
            and `safetensors` are not supported.

    Returns:
        None.

    Note:
        Tensors, arrays, numbers, strings and builtin containers load back with the default
        safe loader. Any other Python object is pickled as is, and ``paddle.load`` refuses
        such a file unless called with ``trusted=True`` (see ``paddle.load``). Use
        ``paddle.load(path, return_numpy=True)`` to get NumPy arrays back instead of Tensors.

    Examples:
        >>> import sampan as paddle
        >>> import io
        >>> buf = io.BytesIO()
        >>> paddle.save({'w': paddle.ones([2])}, buf)
        >>> _ = buf.seek(0)
        >>> paddle.load(buf)['w'].shape
        paddle.Size([2])
    """
    for key in configs:
        if key not in _SAVE_CONFIGS:
            raise ValueError(f"paddle.save: the config {key!r} is not supported; supported "
                             f"configs are {list(_SAVE_CONFIGS)}")
    if configs.get("pickle_protocol") is not None:
        warnings.warn("paddle.save: 'pickle_protocol' is deprecated, use 'protocol'")
        protocol = configs["pickle_protocol"]
    for key in ("use_binary_format", "safetensors"):
        if configs.get(key):
            raise NotImplementedError(f"paddle.save: {key}=True is not supported by sampan")
    if isinstance(protocol, bool) or not isinstance(protocol, int):
        raise ValueError(f"paddle.save: the 'protocol' MUST be `int`, but received "
                         f"{type(protocol).__name__}")
    if not 1 < protocol < 5:
        raise ValueError(f"paddle.save: expected 1 < protocol < 5, but received "
                         f"protocol={protocol}")
    _check_savable(obj)
    if _is_program(obj):
        data = _PROGRAM_FORMAT["dump"](obj)
        if hasattr(path, "write"):
            path.write(data)
        else:
            write_atomic(_check_path("save", path), lambda f: f.write(data))
        return
    if _is_state_dict(obj):
        if not obj:
            warnings.warn("paddle.save: the input state dict is empty")
        payload = _split_big_arrays(_state_dict_payload(obj), protocol)
    else:
        payload = obj
    if hasattr(path, "write"):
        _Pickler(path, protocol).dump(payload)
        return
    _atomic_write(_check_path("save", path), payload, protocol)


def _is_state_dict(obj) -> bool:
    """Paddle's rule: a dict whose values are Tensors, or dicts holding no Tensor."""
    if not isinstance(obj, dict):
        return False
    for value in obj.values():
        if isinstance(value, dict):
            if any(_contains(v, _is_tensor_or_layer) for v in value.values()):
                return False
        elif not isinstance(value, Tensor):
            return False
    return True


def _is_tensor_or_layer(obj) -> bool:
    return isinstance(obj, Tensor) or _is_layer(obj)


def _is_layer(obj) -> bool:
    return any(c.__name__ == "Layer" and c.__module__.startswith("sampan.nn")
               for c in type(obj).__mro__)


def _contains(obj, cond) -> bool:
    if cond(obj):
        return True
    if type(obj) in (dict, collections.OrderedDict):
        return any(_contains(v, cond) for v in obj.values())
    if type(obj) in (list, tuple):
        return any(_contains(v, cond) for v in obj)
    return False


def _check_savable(obj) -> None:
    if _contains(obj, _is_layer):
        raise ValueError("paddle.save: saving a `paddle.nn.Layer` object is not supported "
                         "(as in Paddle); save `layer.state_dict()` instead")


def _to_numpy(t: Tensor) -> np.ndarray:
    arr = t.numpy()  # host values: a device tensor is copied to the CPU
    # Paddle stores bfloat16 as its raw uint16 bits (np.array(tensor) gives uint16).
    return arr.view(np.uint16) if arr.dtype == _BF16 else arr


def _state_dict_payload(state: dict) -> dict:
    out, names = {}, {}
    for key, value in state.items():
        if isinstance(value, Tensor):
            out[key] = _to_numpy(value)
            names[key] = value.name
        else:
            out[key] = value
    out[_NAME_TABLE] = names
    return out


def _split_big_arrays(payload: dict, protocol: int) -> dict:
    """Slice arrays over 1 GB (protocols 2/3 only), as Paddle's UnpackBigParamInfor."""
    if protocol >= 4:
        return payload
    limit, info = _MAX_SLICE_BYTES, {}
    for key, value in list(payload.items()):
        if not isinstance(value, np.ndarray) or value.dtype.itemsize == 0:
            continue
        per_slice = max(1, int(limit / value.dtype.itemsize))
        if value.size <= per_slice:
            continue
        flat = value.reshape(-1)
        parts = [f"{key}@@.{i}" for i in range(int(math.ceil(value.size / per_slice)))]
        info[key] = {"OriginShape": value.shape, "slices": parts}
        del payload[key]
        for i, part in enumerate(parts):
            payload[part] = flat[i * per_slice:(i + 1) * per_slice]
    if info:
        payload[_UNPACK_INFO] = info
    return payload


class _Pickler(pickle.Pickler):
    """Pickles every Tensor as Paddle does: `tuple((name, ndarray))`."""

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return (tuple, ((obj.name, _to_numpy(obj)),))
        if isinstance(obj, DenseTensorHolder):   # x.get_tensor(), a scope variable's tensor
            name = getattr(obj, "_name", None) or obj._tensor.name
            return (tuple, ((name, np.array(obj.numpy())),))
        return NotImplemented


def _check_path(api: str, path) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"paddle.{api}: path must be a str, os.PathLike or a binary "
                        f"file-like object, got {type(path).__name__}")
    path = os.fspath(path)
    if api == "save" and os.path.basename(path) == "":
        raise ValueError(f"paddle.save: the path must be of the form dirname/filename, "
                         f"but the filename is empty in {path!r}")
    return path


def _atomic_write(path: str, payload, protocol: int) -> None:
    """Pickle `payload` to `path` atomically."""
    write_atomic(path, lambda f: _Pickler(f, protocol).dump(payload))


def write_atomic(path: str, write) -> None:
    """Call write(f) on a temp file in the target's folder, fsync it, then os.replace it in:
    a crash never leaves a truncated file at `path` (the old one survives)."""
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_folder(folder)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_folder(folder: str) -> None:
    """Make the rename durable (POSIX); best effort elsewhere."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- load
def _encode_latin1(obj, encoding="latin1", errors="strict"):
    """`_codecs.encode` as protocol-2 pickles use it for bytes; only latin-1 is allowed."""
    if encoding not in ("latin1", "latin-1") or not isinstance(obj, str):
        raise UnsafeCheckpointError(f"paddle.load: refusing _codecs.encode with encoding "
                                    f"{encoding!r}")
    return obj.encode("latin1", errors)


def _safe_globals() -> dict:
    try:
        from numpy._core import multiarray, numeric
    except ImportError:  # NumPy < 1.26
        from numpy.core import multiarray, numeric
    table = {("builtins", name): getattr(builtins, name)
             for name in ("tuple", "list", "dict", "set", "frozenset", "complex", "bytearray",
                          "slice", "range", "bool", "int", "float", "str", "bytes")}
    table[("collections", "OrderedDict")] = collections.OrderedDict
    table[("_codecs", "encode")] = _encode_latin1
    for mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
        table[(mod, "_reconstruct")] = multiarray._reconstruct
        table[(mod, "scalar")] = multiarray.scalar
    table[("numpy", "ndarray")] = np.ndarray
    table[("numpy", "dtype")] = np.dtype
    for mod in ("numpy.core.numeric", "numpy._core.numeric"):
        table[(mod, "_frombuffer")] = numeric._frombuffer
    return table


_SAFE = None


class _SafeUnpickler(pickle.Unpickler):
    """Rebuilds only builtin containers, OrderedDict and NumPy arrays/scalars/dtypes."""

    def find_class(self, module, name):
        global _SAFE
        if _SAFE is None:
            _SAFE = _safe_globals()
        # Protocol-2 files use Python 2 names (__builtin__.tuple); map them as pickle does.
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        found = _SAFE.get((module, name))
        if found is None and module == "numpy.dtypes" and name.endswith("DType"):
            found = getattr(np.dtypes, name, None)
        if found is None:
            raise UnsafeCheckpointError(
                f"paddle.load: the file references {module}.{name}, which is not allowed "
                f"when loading (only containers and NumPy arrays are; a checkpoint from an "
                f"untrusted source could run code). If you trust this file, load it with "
                f"paddle.load(path, trusted=True)")
        return found


def load(path, **configs):
    """Load an object saved by paddle.save (sampan's or PaddlePaddle's).

    Arrays come back as Tensors (state_dict entries keep their saved names) unless
    `return_numpy=True`. Only builtin containers, OrderedDict and NumPy arrays are
    rebuilt: a file that references anything else is refused, naming the class.

    Args:
        path (str|PathLike|file-like): a file path or a binary file-like object.
        **configs: keyword options:

            - return_numpy (bool, optional): return NumPy arrays instead of Tensors.
              Default False.
            - keep_name_table (bool, optional): keep the ``StructuredToParameterName@@``
              name table that Paddle stores in a state_dict. Default False.
            - trusted (bool, optional, sampan only): allow objects other than builtin
              containers, OrderedDict, NumPy arrays and Tensors, with Python's
              unrestricted pickle loader. Unpickling can run arbitrary code: pass True only
              for files you created or trust. Default False (such files are refused with an
              error naming the class).
            - model_filename, params_filename: accepted for Paddle compatibility.

    Returns:
        The saved object.

    Examples:
        >>> import sampan as paddle
        >>> import io
        >>> buf = io.BytesIO()
        >>> paddle.save([paddle.to_tensor([1, 2]), 3], buf)
        >>> _ = buf.seek(0)
        >>> paddle.load(buf, return_numpy=True)
        [array([1, 2]), 3]
    """
    for key in configs:
        if key not in _LOAD_CONFIGS:
            raise ValueError(f"paddle.load: the config {key!r} is not supported; supported "
                             f"configs are {list(_LOAD_CONFIGS)}")
    if configs.get("safetensors"):
        raise NotImplementedError("paddle.load: safetensors=True is not supported by sampan")
    return_numpy = bool(configs.get("return_numpy", False))
    if hasattr(path, "read"):
        program = _read_program(path)
        result = program if program is not None else _unpickle(
            path, "the file-like object", configs.get("trusted", False))
    else:
        path = _check_path("load", path)
        if not os.path.isfile(path):
            what = "is a folder, not a file" if os.path.isdir(path) else "does not exist"
            raise CheckpointNotFoundError(f"paddle.load: the path {path!r} {what}")
        with open(path, "rb") as f:
            program = _read_program(f)
            result = program if program is not None else _unpickle(
                f, repr(path), configs.get("trusted", False))
    if program is not None:
        return program
    return _restore(result, return_numpy, bool(configs.get("keep_name_table", False)))


def _read_program(f):
    """The Program a file holds (paddle.save(program)), or None with `f` rewound."""
    if not _PROGRAM_FORMAT or not hasattr(f, "seek"):
        return None
    start = f.tell()
    head = f.read(4096)
    if not _PROGRAM_FORMAT["sniff"](head):
        f.seek(start)
        return None
    return _PROGRAM_FORMAT["parse"](head + f.read())


def _unpickle(f, where: str, trusted: bool):
    cls = pickle.Unpickler if trusted else _SafeUnpickler
    try:
        return cls(f, encoding="latin1").load()
    except UnsafeCheckpointError:
        raise
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError,
            AttributeError, OverflowError, UnicodeDecodeError) as err:
        raise CorruptCheckpointError(
            f"paddle.load: can not parse {where}: it is truncated, corrupted or not a "
            f"file written by paddle.save ({type(err).__name__}: {err})") from err


def _restore(obj, return_numpy: bool, keep_name_table: bool):
    """Apply Paddle's load-time conversions to the unpickled object."""
    if isinstance(obj, dict):
        _join_big_arrays(obj)
        if _NAME_TABLE in obj:
            for key, name in obj[_NAME_TABLE].items():
                if isinstance(obj.get(key), np.ndarray):
                    obj[key] = _as_tensor(obj[key], return_numpy, name)
            if not keep_name_table:
                del obj[_NAME_TABLE]
            return obj
    if _contains(obj, _is_named_array):
        return _convert(obj, _is_named_array,
                        lambda t: _as_tensor(t[1], return_numpy, t[0]))
    return _convert(obj, lambda v: isinstance(v, np.ndarray),
                    lambda a: _as_tensor(a, return_numpy))


def _join_big_arrays(obj: dict) -> None:
    info = obj.pop(_UNPACK_INFO, None)
    if not info:
        return
    for key, entry in info.items():
        parts = [obj.pop(part) for part in entry["slices"]]
        obj[key] = np.concatenate(parts).reshape(entry["OriginShape"])


def _is_named_array(obj) -> bool:
    """A Tensor as Paddle pickles it: (name, ndarray)."""
    return (type(obj) is tuple and len(obj) == 2 and isinstance(obj[0], str)
            and isinstance(obj[1], np.ndarray))


def _convert(obj, cond, fn):
    if cond(obj):
        return fn(obj)
    kind = type(obj)
    if kind in (dict, collections.OrderedDict):
        for key in list(obj.keys()):
            obj[key] = _convert(obj[key], cond, fn)
        return obj
    if kind is list:
        return [_convert(v, cond, fn) for v in obj]
    if kind is tuple:
        return tuple(_convert(v, cond, fn) for v in obj)
    if kind is set:
        return {_convert(v, cond, fn) for v in obj}
    return obj


def _as_tensor(arr: np.ndarray, return_numpy: bool, name: str | None = None):
    if return_numpy:
        return arr
    if arr.dtype == np.uint16:  # Paddle's bfloat16 bits
        arr = arr.view(_BF16)
    elif arr.dtype not in _dt._BY_NP:
        arr = arr.astype(np.int64 if arr.dtype.kind in "iu" else np.float64)
    t = Tensor(arr if arr.flags.c_contiguous else arr.copy())
    if name is not None:
        t.name = name
    return t

