"""read_file and decode_jpeg: file bytes as a uint8 tensor and JPEG decoding to a CHW uint8
tensor. Pillow is imported lazily (only when decode_jpeg runs)."""
from __future__ import annotations

import io
import os

import numpy as np

from ... import tensor as T

_MODES = {'unchanged': None, 'gray': 'L', 'rgb': 'RGB'}


def read_file(filename: str, name=None):
    """Read a file's bytes into a 1-D uint8 tensor.

    Args:
        filename (str): path of the file.
        name (str, optional): unused.

    Returns:
        Tensor: uint8 [file size].

    Examples:
        >>> import os, tempfile
        >>> from sampan.vision.ops import read_file
        >>> path = os.path.join(tempfile.mkdtemp(), 'a.bin')
        >>> _ = open(path, 'wb').write(bytes([1, 2, 255]))
        >>> read_file(path).numpy().tolist()
        [1, 2, 255]
    """
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"read_file: filename must be a str path, got {type(filename).__name__}")
    if not os.path.isfile(filename):
        raise FileNotFoundError(f"read_file: no such file: {filename}")
    with open(filename, 'rb') as f:
        data = np.frombuffer(f.read(), dtype=np.uint8).copy()
    return T.to_tensor(data, dtype='uint8')


def decode_jpeg(x, mode: str = 'unchanged', name=None):
    """Decode JPEG bytes (as from :func:`read_file`) into a uint8 [C, H, W] image.

    Args:
        x (Tensor): 1-D uint8 tensor holding a JPEG file.
        mode (str, optional): 'unchanged' (the file's channels), 'gray' (1 channel) or
            'rgb' (3 channels). Default 'unchanged'.
        name (str, optional): unused.

    Returns:
        Tensor: uint8 [C, H, W].

    Examples:
        >>> import io
        >>> import numpy as np
        >>> import sampan as paddle
        >>> from PIL import Image
        >>> from sampan.vision.ops import decode_jpeg
        >>> buf = io.BytesIO()
        >>> Image.new('RGB', (5, 4), (200, 10, 10)).save(buf, format='JPEG')
        >>> data = paddle.to_tensor(np.frombuffer(buf.getvalue(), np.uint8))
        >>> decode_jpeg(data).shape
        paddle.Size([3, 4, 5])
    """
    if mode not in _MODES:
        raise ValueError(f"decode_jpeg: mode must be one of {list(_MODES)}, got {mode!r}")
    arr = np.asarray(x.numpy() if hasattr(x, 'numpy') else x)
    if arr.dtype != np.uint8 or arr.ndim != 1:
        raise TypeError(f"decode_jpeg: x must be a 1-D uint8 tensor of file bytes, got dtype "
                        f"{arr.dtype} and shape {list(arr.shape)}")
    try:
        from PIL import Image
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("decode_jpeg needs Pillow: pip install Pillow") from err
    try:
        img = Image.open(io.BytesIO(arr.tobytes()))
        img.load()
    except Exception as err:
        raise ValueError(f"decode_jpeg: x is not a decodable JPEG image ({err})") from err
    if _MODES[mode] is not None:
        img = img.convert(_MODES[mode])
    out = np.asarray(img, dtype=np.uint8)
    out = out[None] if out.ndim == 2 else out.transpose(2, 0, 1)
    return T.to_tensor(np.ascontiguousarray(out), dtype='uint8')
