"""Vision functions: pad, zeropad2d, interpolate/upsample, grid_sample, affine_grid,
pixel_shuffle, pixel_unshuffle, channel_shuffle.

All are composites of tensor ops (gradients and static mode for free). interpolate applies
one constant interpolation matrix per spatial axis with a matmul, so every mode (nearest,
linear, bicubic, area) is a separable linear map with a BLAS-backed forward and backward.
Imports `framework`, `ops`, `tensor`.
"""
from __future__ import annotations

import math

import numpy as np

from ... import tensor as _T
from ...framework import dtype as _dt
from ...framework.tensor import Tensor, is_variable
from ...tensor._helpers import known_value

__all__ = ["pad", "zeropad2d", "interpolate", "upsample", "grid_sample", "affine_grid",
           "pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]

pad = _T.pad


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor) or is_variable(x)


def _check_tensor(api: str, x, arg: str = "x") -> None:
    if not _is_tensor(x):
        raise TypeError(f"{api}: {arg} must be a Tensor, got {type(x).__name__}")


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero-pad the H and W dims of a 4-D x by padding = [left, right, top, bottom].

    Args:
        x (Tensor): 4-D input.
        padding (int|list|tuple|Tensor): 4 sizes (an int pads all four sides equally).
        data_format (str): 'NCHW' or 'NHWC'. Default 'NCHW'.
    """
    _check_tensor("zeropad2d", x)
    if isinstance(padding, int) and not isinstance(padding, bool):
        padding = [padding] * 4
    return _T.pad(x, padding, mode="constant", value=0.0, data_format=data_format)


# --- interpolate -----------------------------------------------------------------------------

_MODES = {"nearest": (4, 5), "linear": (3,), "bilinear": (4,), "bicubic": (4,),
          "trilinear": (5,), "area": (3, 4, 5)}
_LAYOUTS = {3: ("NCW", "NWC", "NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _cubic_weights(t: np.ndarray, a: float = -0.75) -> list:
    """Keys' cubic convolution weights of the 4 taps at offsets -1, 0, 1, 2 from floor(src)."""
    def near(d):
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _axis_matrix(n_in: int, n_out: int, mode: str, align_corners: bool, align_mode: int,
                 scale) -> np.ndarray:
    """The [n_out, n_in] float64 matrix that interpolates one axis (Paddle's conventions)."""
    mat = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    if mode == "area":
        starts = (rows * n_in) // n_out
        ends = -((-(rows + 1) * n_in) // n_out)
        for r, (s, e) in enumerate(zip(starts, ends)):
            mat[r, s:e] = 1.0 / (e - s)
        return mat
    if n_out == 1 and mode in ("nearest", "bilinear", "bicubic"):
        ratio = 0.0  # NOTE: Paddle's 2-D kernels sample the first element; linear and
        # trilinear keep in / out
    elif align_corners:
        ratio = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale else n_in / n_out
    if mode == "nearest":
        src = np.floor(ratio * rows + 0.5) if align_corners else np.floor(ratio * rows)
        mat[rows, np.minimum(src.astype(np.int64), n_in - 1)] = 1.0
        return mat
    if mode == "bicubic":
        src = ratio * rows if align_corners else ratio * (rows + 0.5) - 0.5
        lo = np.floor(src)
        weights = _cubic_weights(src - lo)
        for k, w in enumerate(weights):
            idx = np.clip(lo.astype(np.int64) - 1 + k, 0, n_in - 1)
            np.add.at(mat, (rows, idx), w)
        return mat
    half = align_mode == 0 and not align_corners
    src = np.maximum(ratio * (rows + 0.5) - 0.5, 0.0) if half else ratio * rows
    lo = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    lam = np.clip(src - lo, 0.0, 1.0)
    np.add.at(mat, (rows, lo), 1.0 - lam)
    np.add.at(mat, (rows, hi), lam)
    return mat


def _apply_axis(x, mat: np.ndarray, axis: int):
    """Multiply dim `axis` of x by the [n_out, n_in] matrix `mat`."""
    shape = list(x.shape)
    npd = _dt.convert_dtype(x.dtype).np
    if axis == len(shape) - 1:
        return _T.matmul(x, _T.to_tensor(np.ascontiguousarray(mat.T).astype(npd)))
    before, after = math.prod(shape[:axis]), math.prod(shape[axis + 1:])
    if shape[:axis].count(-1) > 1 or -1 in shape[axis:]:
        raise ValueError(f"interpolate: x of shape {shape} has more than one dim known only at "
                         f"run time; only the batch dim may be unknown (-1)")
    before = -1 if -1 in shape[:axis] else before  # the batch size is known at run time
    out = _T.matmul(_T.to_tensor(mat.astype(npd)), _T.reshape(x, [before, shape[axis], after]))
    shape[axis] = mat.shape[0]
    return _T.reshape(out, shape)


def _int_value(api: str, arg: str, v) -> int:
    if _is_tensor(v):
        v = known_value(api, arg, v).item()
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{api}: every entry of {arg} must be an int, got {type(v).__name__}")
    return int(v)


def _out_sizes(api, in_sizes, size, scale_factor):
    nd = len(in_sizes)
    if size is None and scale_factor is None:
        raise ValueError(f"{api}: one of size and scale_factor must be given")
    if size is not None and scale_factor is not None:
        raise ValueError(f"{api}: only one of size and scale_factor may be given")
    if size is not None:
        if _is_tensor(size):
            size = [int(v) for v in known_value(api, "size", size).reshape(-1)]
        elif isinstance(size, (int, np.integer)) and not isinstance(size, bool):
            size = [int(size)] * nd
        if not isinstance(size, (list, tuple)):
            raise TypeError(f"{api}: size must be a list, tuple or Tensor, got "
                            f"{type(size).__name__}")
        size = [_int_value(api, "size", v) for v in size]
        if len(size) != nd:
            raise ValueError(f"{api}: size must have {nd} values for a {nd + 2}-D x, got "
                             f"{size}")
        if any(s <= 0 for s in size):
            raise ValueError(f"{api}: every entry of size must be positive, got {size}")
        return size, [None] * nd
    if _is_tensor(scale_factor):
        scale_factor = [float(v) for v in known_value(api, "scale_factor",
                                                      scale_factor).reshape(-1)]
        if len(scale_factor) == 1:
            scale_factor = scale_factor[0]
    if isinstance(scale_factor, (int, float)) and not isinstance(scale_factor, bool):
        scales = [float(scale_factor)] * nd
    elif isinstance(scale_factor, (list, tuple)):
        scales = [float(known_value(api, "scale_factor", s).item() if _is_tensor(s) else s)
                  for s in scale_factor]
        if len(scales) != nd:
            raise ValueError(f"{api}: scale_factor must have {nd} values for a {nd + 2}-D "
                             f"x, got {list(scale_factor)}")
    else:
        raise TypeError(f"{api}: scale_factor must be a float, list, tuple or Tensor, got "
                        f"{type(scale_factor).__name__}")
    if any(s <= 0 for s in scales):
        raise ValueError(f"{api}: scale_factor must be positive, got {scale_factor}")
    return [int(n * s) for n, s in zip(in_sizes, scales)], scales


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format=None, recompute_scale_factor=None, antialias=False,
                name=None):
    """Resize the spatial dims of x.

    Args:
        x (Tensor): 3-D (N, C, W), 4-D (N, C, H, W) or 5-D (N, C, D, H, W) input (or
            channel-last, see data_format).
        size (list|tuple|Tensor, optional): output spatial sizes.
        scale_factor (float|list|tuple|Tensor, optional): multiplier(s) of the spatial sizes
            (output size = floor(in * scale)). Exactly one of size and scale_factor.
        mode (str): 'nearest' (4/5-D), 'linear' (3-D), 'bilinear' (4-D), 'bicubic' (4-D),
            'trilinear' (5-D) or 'area' (3/4/5-D, adaptive average; needs size). Default 'nearest'.
            Every mode but 'nearest' needs a float x (TypeError otherwise, as Paddle has no
            integer kernels for them); 'nearest' takes any dtype (Paddle: float, int32, int64).
        align_corners (bool): map the corner pixels of input and output onto each other.
            Default False.
        align_mode (int): with align_corners=False, 0 samples at half-pixel centres
            (src = (dst + 0.5) * ratio - 0.5), 1 at src = dst * ratio. Default 0.
        data_format (str, optional): 'NCW', 'NWC', 'NCHW', 'NHWC', 'NCDHW' or 'NDHWC';
            None means channel-first.
        recompute_scale_factor (bool, optional): recompute the ratio from the output size
            instead of using scale_factor.
    Returns:
        Tensor of x's dtype.
    """
    api = "interpolate"
    _check_tensor(api, x)
    if not isinstance(mode, str) or mode.lower() not in _MODES:
        raise ValueError(f"{api}: mode must be one of {list(_MODES)}, got {mode!r}")
    mode = mode.lower()
    if mode != "nearest" and getattr(x.dtype, "kind", "f") != "f":
        # Paddle registers only float kernels for the interpolating modes (nearest also
        # takes integers; here it takes any dtype, as it only moves values)
        raise TypeError(f"{api}: mode {mode!r} needs a floating point x, got "
                        f"{x.dtype.name}")
    ndim = x.ndim
    if ndim not in _MODES[mode]:
        raise ValueError(f"{api}: mode {mode!r} needs a {' or '.join(map(str, _MODES[mode]))}"
                         f"-D x, got shape {list(x.shape)}")
    if data_format is None:
        data_format = _LAYOUTS[ndim][0]
    if data_format not in _LAYOUTS[ndim]:
        raise ValueError(f"{api}: data_format must be one of {list(_LAYOUTS[ndim])} for a "
                         f"{ndim}-D x, got {data_format!r}")
    if align_mode not in (0, 1):
        raise ValueError(f"{api}: align_mode must be 0 or 1, got {align_mode!r}")
    if align_corners and mode in ("nearest", "area"):
        raise ValueError(f"{api}: align_corners can only be True for the 'linear', "
                         f"'bilinear', 'bicubic' and 'trilinear' modes, got mode {mode!r}")
    if antialias:
        raise NotImplementedError(f"{api}: antialias=True is not supported")
    if mode == "area" and size is None:
        raise ValueError(f"{api}: mode 'area' needs size (it is an adaptive average pool); "
                         f"scale_factor is not supported")
    channel_last = data_format[-1] == "C"
    axes = list(range(1, ndim - 1)) if channel_last else list(range(2, ndim))
    in_sizes = [x.shape[a] for a in axes]
    out_sizes, scales = _out_sizes(api, in_sizes, size, scale_factor)
    if any(s <= 0 for s in out_sizes):
        raise ValueError(f"{api}: the output size {out_sizes} must be positive (input "
                         f"spatial size {in_sizes}, scale_factor {scale_factor})")
    if recompute_scale_factor:
        scales = [None] * len(scales)
    out = x
    for axis, n_in, n_out, scale in zip(axes, in_sizes, out_sizes, scales):
        if n_in == n_out and mode != "bicubic" and (align_corners or scale in (None, 1.0)):
            continue
        mat = _axis_matrix(n_in, n_out, mode, align_corners, align_mode, scale)
        out = _apply_axis(out, mat, axis)
    return out if out is not x else _T.assign(x)


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
             align_mode=0, data_format=None, name=None):
    """Same as `interpolate`."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


# --- grid_sample / affine_grid ---------------------------------------------------------------

def _unnormalize(coord, size: int, align_corners: bool):
    if align_corners:
        return (coord + 1.0) * ((size - 1) / 2.0)
    return ((coord + 1.0) * size - 1.0) / 2.0


def _reflect(coord, low2: float, high2: float):
    """Reflect coordinates into [low2 / 2, high2 / 2] (mirror at the borders)."""
    if low2 == high2:
        return coord * 0.0
    lo, span = low2 / 2.0, (high2 - low2) / 2.0
    c = _T.abs(coord - lo)
    extra = _T.remainder(c, _T.full([], span, c.dtype))
    flips = _T.floor(c / span)
    even = _T.remainder(flips, _T.full([], 2.0, c.dtype)) == 0
    return _T.where(even, extra + lo, (span - extra) + lo)


def _source_coord(coord, size: int, padding_mode: str, align_corners: bool):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        coord = _T.clip(coord, 0.0, float(size - 1))
    elif padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0.0, 2.0 * (size - 1))
        else:
            coord = _reflect(coord, -1.0, 2.0 * size - 1.0)
        coord = _T.clip(coord, 0.0, float(size - 1))
    return coord


def _gather_corner(flat, idx_list, sizes, out_shape):
    """Values of flat x ([N, C, prod(sizes)]) at integer coords (one per spatial dim, each
    [N, *out]); out-of-range coords read 0. Returns [N, C, *out]."""
    valid = None
    linear = None
    for idx, n in zip(idx_list, sizes):
        ok = _T.logical_and(idx >= 0, idx <= n - 1)
        valid = ok if valid is None else _T.logical_and(valid, ok)
        clipped = _T.clip(idx, 0, n - 1)
        linear = clipped if linear is None else linear * n + clipped
    n_batch = flat.shape[0]
    index = _T.reshape(linear, [n_batch, 1, -1])
    vals = _T.take_along_axis(flat, index, axis=2, broadcast=True)
    vals = _T.reshape(vals, [n_batch, flat.shape[1]] + out_shape)
    mask = _T.cast(_T.unsqueeze(valid, 1), flat.dtype)
    return vals * mask


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True,
                name=None):
    """Sample x at the normalised coordinates of grid ((-1, -1) is the top-left corner).

    Args:
        x (Tensor): [N, C, H, W] or [N, C, D, H, W] input.
        grid (Tensor): [N, Ho, Wo, 2] (x, y) or [N, Do, Ho, Wo, 3] (x, y, z) coordinates.
        mode (str): 'bilinear' (trilinear for 5-D) or 'nearest'. Default 'bilinear'.
        padding_mode (str): 'zeros', 'border' or 'reflection'. Default 'zeros'.
        align_corners (bool): -1 and 1 are the centres (True) or the outer edges (False) of
            the corner pixels. Default True.
    Returns:
        Tensor [N, C, Ho, Wo] (or [N, C, Do, Ho, Wo]) of x's dtype.
    """
    api = "grid_sample"
    _check_tensor(api, x)
    _check_tensor(api, grid, "grid")
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"{api}: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"{api}: padding_mode must be 'zeros', 'border' or 'reflection', "
                         f"got {padding_mode!r}")
    if x.ndim not in (4, 5):
        raise ValueError(f"{api}: x must be 4-D or 5-D, got shape {list(x.shape)}")
    nd = x.ndim - 2
    if grid.ndim != x.ndim or grid.shape[-1] != nd or grid.shape[0] != x.shape[0]:
        raise ValueError(f"{api}: grid must have shape [N, *out, {nd}] with N = "
                         f"{x.shape[0]} for x of shape {list(x.shape)}, got {list(grid.shape)}")
    sizes = list(x.shape[2:])
    out_shape = list(grid.shape[1:-1])
    # grid[..., k] indexes spatial dim nd - 1 - k (x -> W, y -> H, z -> D)
    coords = [_source_coord(_T.squeeze(_T.slice(grid, [grid.ndim - 1], [nd - 1 - d],
                                                [nd - d]), -1),
                            sizes[d], padding_mode, align_corners) for d in range(nd)]
    flat = _T.reshape(x, [x.shape[0], x.shape[1], -1])
    if mode == "nearest":
        idx = [_T.cast(_T.round(c), "int64") for c in coords]
        return _gather_corner(flat, idx, sizes, out_shape)
    lows = [_T.floor(c) for c in coords]
    fracs = [c - lo for c, lo in zip(coords, lows)]
    lows = [_T.cast(lo, "int64") for lo in lows]
    out = None
    for corner in range(2 ** nd):
        bits = [(corner >> d) & 1 for d in range(nd)]
        idx = [lo + b for lo, b in zip(lows, bits)]
        weight = None
        for f, b in zip(fracs, bits):
            w = f if b else 1.0 - f
            weight = w if weight is None else weight * w
        term = _gather_corner(flat, idx, sizes, out_shape) * _T.unsqueeze(weight, 1)
        out = term if out is None else out + term
    return out


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """The sampling grid of an affine transform, for grid_sample.

    Args:
        theta (Tensor): [N, 2, 3] (2-D) or [N, 3, 4] (3-D) affine matrices.
        out_shape (list|tuple|Tensor): [N, C, H, W] or [N, C, D, H, W].
        align_corners (bool): as in grid_sample. Default True.
    Returns:
        Tensor [N, H, W, 2] or [N, D, H, W, 3] of theta's dtype.
    """
    api = "affine_grid"
    _check_tensor(api, theta, "theta")
    if _is_tensor(out_shape):
        out_shape = [int(v) for v in out_shape.numpy().reshape(-1)]
    if not isinstance(out_shape, (list, tuple)):
        raise TypeError(f"{api}: out_shape must be a list, tuple or Tensor, got "
                        f"{type(out_shape).__name__}")
    out_shape = [_int_value(api, "out_shape", v) for v in out_shape]
    if len(out_shape) not in (4, 5):
        raise ValueError(f"{api}: out_shape must have 4 or 5 values, got {out_shape}")
    nd = len(out_shape) - 2
    if theta.ndim != 3 or list(theta.shape[1:]) != [nd, nd + 1]:
        raise ValueError(f"{api}: theta must have shape [N, {nd}, {nd + 1}] for a "
                         f"{len(out_shape)}-value out_shape, got {list(theta.shape)}")
    if theta.shape[0] != out_shape[0]:
        raise ValueError(f"{api}: theta has {theta.shape[0]} matrices but out_shape asks "
                         f"for batch {out_shape[0]}")
    spatial = out_shape[2:]

    def line(n):
        if align_corners:
            return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
        return (np.arange(n) * 2.0 + 1.0) / n - 1.0
    mesh = np.meshgrid(*[line(n) for n in spatial], indexing="ij")
    # columns: x (last spatial dim), y, (z), 1
    base = np.stack([m for m in reversed(mesh)] + [np.ones(spatial)], axis=-1)
    base = _T.to_tensor(base.reshape(-1, nd + 1).astype(_dt.convert_dtype(theta.dtype).np))
    grid = _T.matmul(base, _T.transpose(theta, [0, 2, 1]))
    return _T.reshape(grid, [out_shape[0]] + spatial + [nd])


# --- pixel / channel shuffles ----------------------------------------------------------------

def _check_4d(api: str, x, data_format: str) -> bool:
    _check_tensor(api, x)
    if x.ndim != 4:
        raise ValueError(f"{api}: x must be 4-D, got shape {list(x.shape)}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{api}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    return data_format == "NHWC"


def _positive_int(api: str, arg: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
        raise ValueError(f"{api}: {arg} must be a positive int, got {v!r}")
    return int(v)


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """Rearrange [N, C*r*r, H, W] into [N, C, H*r, W*r] (r = upscale_factor).

    Args:
        x (Tensor): 4-D input.
        upscale_factor (int): r.
        data_format (str): 'NCHW' or 'NHWC'. Default 'NCHW'.
    """
    api = "pixel_shuffle"
    last = _check_4d(api, x, data_format)
    r = _positive_int(api, "upscale_factor", upscale_factor)
    if last:
        n, h, w, c = x.shape
    else:
        n, c, h, w = x.shape
    if c % (r * r):
        raise ValueError(f"{api}: the channel count {c} of x (shape {list(x.shape)}) must be "
                         f"divisible by upscale_factor**2 = {r * r}")
    oc = c // (r * r)
    if last:
        y = _T.reshape(x, [n, h, w, oc, r, r])
        y = _T.transpose(y, [0, 1, 4, 2, 5, 3])
        return _T.reshape(y, [n, h * r, w * r, oc])
    y = _T.reshape(x, [n, oc, r, r, h, w])
    y = _T.transpose(y, [0, 1, 4, 2, 5, 3])
    return _T.reshape(y, [n, oc, h * r, w * r])


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """Rearrange [N, C, H*r, W*r] into [N, C*r*r, H, W] (the inverse of pixel_shuffle).

    Args:
        x (Tensor): 4-D input.
        downscale_factor (int): r; must divide H and W.
        data_format (str): 'NCHW' or 'NHWC'. Default 'NCHW'.
    """
    api = "pixel_unshuffle"
    last = _check_4d(api, x, data_format)
    r = _positive_int(api, "downscale_factor", downscale_factor)
    if last:
        n, h, w, c = x.shape
    else:
        n, c, h, w = x.shape
    if h % r or w % r:
        raise ValueError(f"{api}: the spatial size {[h, w]} of x (shape {list(x.shape)}) must be "
                         f"divisible by downscale_factor {r}")
    oh, ow = h // r, w // r
    if last:
        y = _T.reshape(x, [n, oh, r, ow, r, c])
        y = _T.transpose(y, [0, 1, 3, 5, 2, 4])
        return _T.reshape(y, [n, oh, ow, c * r * r])
    y = _T.reshape(x, [n, c, oh, r, ow, r])
    y = _T.transpose(y, [0, 1, 3, 5, 2, 4])
    return _T.reshape(y, [n, c * r * r, oh, ow])


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Shuffle channels: view them as [groups, C / groups], transpose, flatten.

    Args:
        x (Tensor): 4-D input.
        groups (int): must divide the channel count.
        data_format (str): 'NCHW' or 'NHWC'. Default 'NCHW'.
    """
    api = "channel_shuffle"
    last = _check_4d(api, x, data_format)
    g = _positive_int(api, "groups", groups)
    if last:
        n, h, w, c = x.shape
    else:
        n, c, h, w = x.shape
    if c % g:
        raise ValueError(f"{api}: the channel count {c} of x (shape {list(x.shape)}) must be "
                         f"divisible by groups {g}")
    if last:
        y = _T.reshape(x, [n, h, w, g, c // g])
        return _T.reshape(_T.transpose(y, [0, 1, 2, 4, 3]), [n, h, w, c])
    y = _T.reshape(x, [n, g, c // g, h, w])
    return _T.reshape(_T.transpose(y, [0, 2, 1, 3, 4]), [n, c, h, w])
