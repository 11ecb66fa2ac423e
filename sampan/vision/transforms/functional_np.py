"""Image kernels on NumPy arrays laid out H x W (x C): the backend for ndarray and Tensor images.

Paddle sends ndarray images to OpenCV; sampan needs no OpenCV, so these kernels are NumPy only.
uint8 images follow Pillow's integer rules (luma weights, truncating blends) so a uint8 array
gives the same pixels as the same picture as a PIL image; float images use the Tensor rules
(values in [0, 1], luma 0.2989/0.587/0.114). Imports nothing from sampan.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

_FLOAT_LUMA = (0.2989, 0.587, 0.114)


def _bound(img: np.ndarray) -> float:
    return 1.0 if np.issubdtype(img.dtype, np.floating) else 255.0


def _as_dtype(out: np.ndarray, like: np.ndarray, rounding: bool = True) -> np.ndarray:
    """Cast a float result back to the input dtype (clipped; rounded or truncated for ints)."""
    if np.issubdtype(like.dtype, np.floating):
        return out.astype(like.dtype)
    info = np.iinfo(like.dtype)
    out = np.round(out) if rounding else np.trunc(out)
    return np.clip(out, info.min, info.max).astype(like.dtype)


def _resample_weights(n_in: int, n_out: int, mode: str) -> np.ndarray:
    """(n_out, n_in) matrix mapping input samples to output samples along one axis.

    Half-pixel centres as in OpenCV and paddle.nn.functional.interpolate(align_corners=False).
    """
    scale = n_in / n_out
    weights = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    if mode == "nearest":
        weights[rows, np.minimum(np.floor(rows * scale).astype(int), n_in - 1)] = 1.0
        return weights
    if mode == "area":
        for o in range(n_out):
            lo, hi = o * scale, (o + 1) * scale
            for i in range(int(math.floor(lo)), min(int(math.ceil(hi)), n_in)):
                weights[o, i] = min(hi, i + 1) - max(lo, i)
        return weights / weights.sum(axis=1, keepdims=True)
    src = (rows + 0.5) * scale - 0.5
    if mode == "bilinear":
        src = np.clip(src, 0, n_in - 1)
        lo = np.floor(src).astype(int)
        hi = np.minimum(lo + 1, n_in - 1)
        np.add.at(weights, (rows, lo), 1.0 - (src - lo))
        np.add.at(weights, (rows, hi), src - lo)
        return weights
    base = np.floor(src).astype(int)  # bicubic, Keys kernel with a = -0.75 (OpenCV, Paddle)
    for k in range(-1, 3):
        t = np.abs(src - (base + k))
        w = np.where(t <= 1, (1.25 * t - 2.25) * t * t + 1,
                     np.where(t < 2, ((-0.75 * t + 3.75) * t - 6) * t + 3, 0.0))
        np.add.at(weights, (rows, np.clip(base + k, 0, n_in - 1)), w)
    return weights


def output_size(w: int, h: int, size) -> tuple:
    """(height, width) of a resize: an int sets the shorter side, keeping the aspect ratio."""
    if isinstance(size, int):
        if w <= h:
            return int(size * h / w), size
        return size, int(size * w / h)
    return int(size[0]), int(size[1])


def resize(img: np.ndarray, size, interpolation: str = "bilinear") -> np.ndarray:
    h, w = img.shape[:2]
    oh, ow = output_size(w, h, size)
    if (oh, ow) == (h, w):
        return img.copy()
    wy = _resample_weights(h, oh, interpolation)
    wx = _resample_weights(w, ow, interpolation)
    out = np.tensordot(wy, img.astype(np.float64), axes=(1, 0))
    out = np.moveaxis(np.tensordot(wx, out, axes=(1, 1)), 0, 1)
    return _as_dtype(out, img)


def pad(img: np.ndarray, padding: tuple, fill=0, padding_mode: str = "constant") -> np.ndarray:
    """padding is (left, top, right, bottom)."""
    left, top, right, bottom = padding
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (img.ndim - 2)
    if padding_mode != "constant":
        return np.pad(img, widths, mode=padding_mode)
    fills = np.broadcast_to(np.asarray(fill, dtype=np.float64).ravel(),
                            (img.shape[2] if img.ndim == 3 else 1,))
    out = np.empty((img.shape[0] + top + bottom, img.shape[1] + left + right) + img.shape[2:],
                   dtype=img.dtype)
    out[...] = fills.astype(img.dtype) if img.ndim == 3 else fills[0]
    out[top:top + img.shape[0], left:left + img.shape[1]] = img
    return out


def crop(img: np.ndarray, top: int, left: int, height: int, width: int) -> np.ndarray:
    return img[top:top + height, left:left + width].copy()


def hflip(img: np.ndarray) -> np.ndarray:
    return img[:, ::-1].copy()


def vflip(img: np.ndarray) -> np.ndarray:
    return img[::-1].copy()


def luma(img: np.ndarray) -> np.ndarray:
    """H x W grayscale of an RGB (or 1-channel) image, float64."""
    if img.ndim == 2 or img.shape[2] == 1:
        return img.reshape(img.shape[:2]).astype(np.float64)
    r, g, b = (img[..., k].astype(np.float64) for k in range(3))
    if np.issubdtype(img.dtype, np.floating):
        return _FLOAT_LUMA[0] * r + _FLOAT_LUMA[1] * g + _FLOAT_LUMA[2] * b
    # Pillow's ITU-R 601-2 transform in 16-bit fixed point, rounded
    return np.floor((r * 19595 + g * 38470 + b * 7471 + 0x8000) / 65536)


def _blend(img: np.ndarray, other, factor: float) -> np.ndarray:
    if np.issubdtype(img.dtype, np.floating):
        return np.clip(other + factor * (img - other), 0, 1.0).astype(img.dtype)
    # Pillow's ImagingBlend: float32 arithmetic, truncated
    other = np.float32(other) if np.isscalar(other) else np.asarray(other, np.float32)
    out = other + np.float32(factor) * (img.astype(np.float32) - other)
    return _as_dtype(out, img, rounding=False)


def adjust_brightness(img: np.ndarray, factor: float) -> np.ndarray:
    return _blend(img, 0.0, factor)


def adjust_contrast(img: np.ndarray, factor: float) -> np.ndarray:
    mean = luma(img).mean()
    if not np.issubdtype(img.dtype, np.floating):
        mean = float(int(mean + 0.5))
    return _blend(img, mean, factor)


def adjust_saturation(img: np.ndarray, factor: float) -> np.ndarray:
    if img.ndim == 2 or img.shape[2] == 1:
        return img.copy()
    gray = luma(img)[..., None]
    return _blend(img, gray, factor)


def _rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    maxc, minc = rgb.max(axis=-1), rgb.min(axis=-1)
    delta = maxc - minc
    safe = np.where(delta == 0, 1.0, delta)
    s = delta / np.where(maxc == 0, 1.0, maxc)
    r, g, b = (rgb[..., k] for k in range(3))
    rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    h = np.where(maxc == r, bc - gc, np.where(maxc == g, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(delta == 0, 0.0, (h / 6.0) % 1.0)
    return np.stack([h, s, maxc], axis=-1)


def _hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    h, s, v = (hsv[..., k] for k in range(3))
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    i = i.astype(int) % 6
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [np.select([i == k for k in range(6)], [c[ch] for c in choices]) for ch in range(3)]
    return np.stack(out, axis=-1)


def _hue_uint8(rgb: np.ndarray, factor: float) -> np.ndarray:
    """Pillow's 8-bit RGB -> HSV -> RGB round trip with the hue shifted by int(factor * 255)."""
    f32 = np.float32
    maxc, minc = rgb.max(axis=-1).astype(int), rgb.min(axis=-1).astype(int)
    cr = np.where(maxc == minc, 1, maxc - minc).astype(f32)
    r, g, b = (rgb[..., k].astype(int) for k in range(3))
    rc, gc, bc = ((maxc - c).astype(f32) / cr for c in (r, g, b))
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, f32(2) + rc - bc, f32(4) + gc - rc))
    h = np.fmod(h.astype(np.float64) / 6.0 + 1.0, 1.0)
    grey = maxc == minc
    uh = np.where(grey, 0, np.clip((h * 255.0).astype(int), 0, 255))
    us = np.where(grey, 0, np.clip(((cr / np.maximum(maxc, 1).astype(f32)) * 255.0)
                                   .astype(int), 0, 255))
    uh = (uh + int(factor * 255)) % 256
    i = np.floor(uh.astype(f32) * f32(6.0) / f32(255.0)).astype(int)
    f = uh.astype(f32) * f32(6.0) / f32(255.0) - i.astype(f32)
    fs = us.astype(f32) / f32(255.0)
    v = maxc.astype(f32)
    p, q, t = (np.clip(np.round(v * (f32(1) - x)), 0, 255).astype(int)
               for x in (fs, fs * f, fs * (f32(1) - f)))
    v = maxc
    table = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = np.stack([np.select([i % 6 == k for k in range(6)], [c[ch] for c in table])
                    for ch in range(3)], axis=-1)
    return np.where((us == 0)[..., None], maxc[..., None], out).astype(rgb.dtype)


def adjust_hue(img: np.ndarray, factor: float) -> np.ndarray:
    if img.ndim == 2 or img.shape[2] == 1:
        return img.copy()
    if img.dtype == np.uint8:
        out = img.copy()
        out[..., :3] = _hue_uint8(img[..., :3], factor)
        return out
    scale = _bound(img)
    hsv = _rgb_to_hsv(img[..., :3].astype(np.float64) / scale)
    hsv[..., 0] = (hsv[..., 0] + factor) % 1.0
    out = img.astype(np.float64).copy()
    out[..., :3] = _hsv_to_rgb(hsv) * scale
    return _as_dtype(out, img)


def to_grayscale(img: np.ndarray, num_output_channels: int = 1) -> np.ndarray:
    gray = _as_dtype(luma(img), img)[..., None]
    return np.repeat(gray, num_output_channels, axis=2)


def normalize(img: np.ndarray, mean, std, data_format: str = "CHW", to_rgb: bool = False) -> np.ndarray:
    img = np.asarray(img, dtype=np.float32)
    shape = (-1, 1, 1) if data_format.upper() == "CHW" else (1, 1, -1)
    mean = np.asarray(mean, dtype=np.float32).reshape(shape)
    std = np.asarray(std, dtype=np.float32).reshape(shape)
    if to_rgb:
        img = img[::-1] if data_format.upper() == "CHW" else img[..., ::-1]
    return (img - mean) / std


def pil_coords(coeffs: Sequence[float], out_hw: tuple, interpolation: str = "") -> tuple:
    """Input points (Pillow convention, pixel k spans [k, k+1)) of each output pixel centre.

    coeffs: 6 affine (a, b, c, d, e, f) or 8 perspective (a..h) output -> input coefficients.
    A nearest affine map steps in 16.16 fixed point, as Pillow does, so ties agree.
    """
    oh, ow = out_hw
    if len(coeffs) == 6 and interpolation == "nearest":
        def fix(v):
            return int(math.floor(v * 65536.0 + 0.5))
        a = coeffs
        y, x = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
        xx = fix(a[2] + a[0] * 0.5 + a[1] * 0.5) + x * fix(a[0]) + y * fix(a[1])
        yy = fix(a[5] + a[3] * 0.5 + a[4] * 0.5) + x * fix(a[3]) + y * fix(a[4])
        return (xx >> 16) + 0.5, (yy >> 16) + 0.5
    ys, xs = np.meshgrid(np.arange(oh) + 0.5, np.arange(ow) + 0.5, indexing="ij")
    c = list(coeffs) + [0.0, 0.0][: 8 - len(coeffs)]
    den = c[6] * xs + c[7] * ys + 1.0
    return (c[0] * xs + c[1] * ys + c[2]) / den, (c[3] * xs + c[4] * ys + c[5]) / den


def grid_coords(theta: Sequence[float], in_hw: tuple, out_hw: tuple) -> tuple:
    """The same points computed as Paddle's Tensor path does, in float32 through normalized
    grid_sample coordinates, so ties (e.g. 90 degree turns) round the same way.

    theta: 6 affine coefficients in centred coordinates, or 8 perspective coefficients.
    """
    f32 = np.float32
    (h, w), (oh, ow) = in_hw, out_hw
    theta = np.asarray(theta, dtype=f32)
    if theta.size == 6:
        xs = np.linspace(-ow * 0.5 + 0.5, ow * 0.5 - 0.5, ow, dtype=f32)
        ys = np.linspace(-oh * 0.5 + 0.5, oh * 0.5 - 0.5, oh, dtype=f32)
        base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], f32(1)), -1)
        norm = base @ (theta.reshape(2, 3).T / np.array([0.5 * w, 0.5 * h], dtype=f32))
    else:
        xs = np.linspace(0.5, ow - 0.5, ow, dtype=f32)
        ys = np.linspace(0.5, oh - 0.5, oh, dtype=f32)
        base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], f32(1)), -1)
        num = base @ (theta[:6].reshape(2, 3).T / np.array([0.5 * ow, 0.5 * oh], dtype=f32))
        den = base @ np.array([[theta[6], theta[6]], [theta[7], theta[7]], [1, 1]], dtype=f32)
        norm = num / den - f32(1)
    size = np.array([w, h], dtype=f32)
    pix = ((norm + f32(1)) * size - f32(1)) / f32(2)
    return pix[..., 0].astype(np.float64) + 0.5, pix[..., 1].astype(np.float64) + 0.5


def warp(img: np.ndarray, points: tuple, interpolation: str, fill=0,
         grid: bool = False) -> np.ndarray:
    """Sample img at points (sx, sy) from pil_coords or grid_coords; outside -> fill.

    grid=True samples as grid_sample(align_corners=False) does in Paddle's Tensor path:
    nearest rounds half to even, and bilinear weights the zero-padded result by the
    sampled coverage before blending in fill.
    """
    sx, sy = points
    src = img if img.ndim == 3 else img[..., None]
    fills = np.broadcast_to(np.asarray(fill, dtype=np.float64).ravel(), (src.shape[2],))
    if interpolation == "nearest":
        if grid:
            sx, sy = np.rint(sx - 0.5) + 0.5, np.rint(sy - 0.5) + 0.5
        out = _sample_nearest(src, sx, sy, fills)
    elif interpolation == "bilinear" and grid:
        zeros = np.zeros_like(fills)
        mask = _sample_bilinear(np.ones(src.shape[:2] + (1,)), sx - 0.5, sy - 0.5, zeros[:1])
        out = _sample_bilinear(src, sx - 0.5, sy - 0.5, zeros) * mask + (1 - mask) * fills
    elif interpolation == "bilinear":
        out = _sample_bilinear(src, sx - 0.5, sy - 0.5, fills)
    else:
        raise ValueError(f"interpolation for ndarray/Tensor images must be 'nearest' or "
                         f"'bilinear' in affine/rotate/perspective, got {interpolation!r}")
    out = _as_dtype(out, img)
    return out if img.ndim == 3 else out[..., 0]


def _sample_nearest(src, sx, sy, fills):
    h, w = src.shape[:2]
    ix, iy = np.floor(sx).astype(int), np.floor(sy).astype(int)
    inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    out = src[np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)].astype(np.float64)
    out[~inside] = fills
    return out


def _sample_bilinear(src, sx, sy, fills):
    h, w = src.shape[:2]
    inside = (sx > -1) & (sx < w) & (sy > -1) & (sy < h)
    x0, y0 = np.floor(sx).astype(int), np.floor(sy).astype(int)
    fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
    out = np.zeros(sx.shape + (src.shape[2],))
    for dy, wy in ((0, 1 - fy), (1, fy)):
        for dx, wx in ((0, 1 - fx), (1, fx)):
            yy, xx = y0 + dy, x0 + dx
            ok = ((xx >= 0) & (xx < w) & (yy >= 0) & (yy < h))[..., None]
            val = np.where(ok, src[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)], fills)
            out += wy * wx * val
    out[~inside] = fills
    return out


def rotate_coeffs(w: int, h: int, angle: float, expand: bool, center) -> tuple:
    """Pillow's rotate: inverse affine coefficients and the output (height, width)."""
    rad = -math.radians(angle)
    m = [round(math.cos(rad), 15), round(math.sin(rad), 15), 0.0,
         round(-math.sin(rad), 15), round(math.cos(rad), 15), 0.0]
    cx, cy = (w / 2.0, h / 2.0) if center is None else center
    m[2] = m[0] * -cx + m[1] * -cy + cx
    m[5] = m[3] * -cx + m[4] * -cy + cy
    if not expand:
        return m, (h, w)
    corners = [(0, 0), (w, 0), (w, h), (0, h)]
    xx = [m[0] * x + m[1] * y + m[2] for x, y in corners]
    yy = [m[3] * x + m[4] * y + m[5] for x, y in corners]
    nw = math.ceil(max(xx)) - math.floor(min(xx))
    nh = math.ceil(max(yy)) - math.floor(min(yy))
    ox, oy = -(nw - w) / 2.0, -(nh - h) / 2.0
    m[2], m[5] = m[0] * ox + m[1] * oy + m[2], m[3] * ox + m[4] * oy + m[5]
    return m, (nh, nw)


def rotate_coeffs_grid(w: int, h: int, angle: float, expand: bool, center) -> tuple:
    """Paddle's Tensor rotate: centred coefficients (for grid_coords) and output (h, w);
    with expand the size comes from the rotated corners of the centred image."""
    rad = math.radians(-angle % 360)
    a, b, d, e = math.cos(rad), math.sin(rad), -math.sin(rad), math.cos(rad)
    rc = (0.0, 0.0) if center is None else (center[0] - w * 0.5, center[1] - h * 0.5)
    c = a * -rc[0] + b * -rc[1] + rc[0]
    f = d * -rc[0] + e * -rc[1] + rc[1]
    ow, oh = w, h
    if expand:
        corners = [(-0.5 * w, -0.5 * h), (-0.5 * w, 0.5 * h), (0.5 * w, 0.5 * h), (0.5 * w, -0.5 * h)]
        xs = [a * x + b * y + c for x, y in corners]
        ys = [d * x + e * y + f for x, y in corners]
        ow = int(math.ceil(max(xs)) - math.floor(min(xs)))
        oh = int(math.ceil(max(ys)) - math.floor(min(ys)))
    return [a, b, c, d, e, f], (oh, ow)
