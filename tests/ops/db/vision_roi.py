"""Op database entries for sampan/ops/vision_roi.py: loop-by-loop NumPy references written
from Paddle's kernel description (roi_align bilinear taps, roi_pool rounded bins, psroi_pool
position-sensitive channels); the gradient ops are checked against the transposed Jacobian
of those references."""
import math

import numpy as np

from sampan.ops.dispatch import call
from sampan.vision import ops as V
from tests.ops.op_db import OpEntry, Sample


def _bilinear(img, y, x):
    h, w = img.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(math.floor(y)), int(math.floor(x))
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[y0, x0] + (1 - ly) * lx * img[y0, x1]
            + ly * (1 - lx) * img[y1, x0] + ly * lx * img[y1, x1])


def _image_of(boxes_num):
    return np.repeat(np.arange(len(boxes_num)), boxes_num)


def roi_align_ref(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1,
                  aligned=True):
    ph, pw = (output_size, output_size) if isinstance(output_size, int) else output_size
    t = boxes.dtype.type
    out = np.zeros((len(boxes), x.shape[1], ph, pw))
    for r, (img, box) in enumerate(zip(_image_of(boxes_num), boxes)):
        x1, y1, x2, y2 = box * t(spatial_scale) - t(0.5 if aligned else 0.0)
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, t(1)), max(rh, t(1))
        gh = sampling_ratio if sampling_ratio > 0 else max(math.ceil(rh / t(ph)), 1)
        gw = sampling_ratio if sampling_ratio > 0 else max(math.ceil(rw / t(pw)), 1)
        for c in range(x.shape[1]):
            for i in range(ph):
                for j in range(pw):
                    acc = 0.0
                    for iy in range(gh):
                        for ix in range(gw):
                            yy = y1 + i * rh / ph + (iy + 0.5) * rh / ph / gh
                            xx = x1 + j * rw / pw + (ix + 0.5) * rw / pw / gw
                            acc += _bilinear(x[img, c], float(yy), float(xx))
                    out[r, c, i, j] = acc / (gh * gw)
    return out.astype(x.dtype)


def _round(v):
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def roi_pool_ref(x, boxes, boxes_num, output_size, spatial_scale=1.0):
    ph, pw = (output_size, output_size) if isinstance(output_size, int) else output_size
    h, w = x.shape[2:]
    out = np.zeros((len(boxes), x.shape[1], ph, pw), x.dtype)
    for r, (img, box) in enumerate(zip(_image_of(boxes_num), boxes)):
        x1, y1, x2, y2 = (_round(float(v) * spatial_scale) for v in box)
        bh, bw = max(y2 - y1 + 1, 1) / ph, max(x2 - x1 + 1, 1) / pw
        for i in range(ph):
            hs = min(max(math.floor(i * bh) + y1, 0), h)
            he = min(max(math.ceil((i + 1) * bh) + y1, 0), h)
            for j in range(pw):
                ws = min(max(math.floor(j * bw) + x1, 0), w)
                we = min(max(math.ceil((j + 1) * bw) + x1, 0), w)
                if he > hs and we > ws:
                    out[r, :, i, j] = x[img, :, hs:he, ws:we].max(axis=(1, 2))
    return out


def psroi_pool_ref(x, boxes, boxes_num, output_size, spatial_scale=1.0):
    ph, pw = (output_size, output_size) if isinstance(output_size, int) else output_size
    h, w = x.shape[2:]
    oc = x.shape[1] // (ph * pw)
    out = np.zeros((len(boxes), oc, ph, pw), x.dtype)
    for r, (img, box) in enumerate(zip(_image_of(boxes_num), boxes)):
        rb = [_round(float(v)) for v in box]
        x1, y1 = rb[0] * spatial_scale, rb[1] * spatial_scale
        x2, y2 = (rb[2] + 1) * spatial_scale, (rb[3] + 1) * spatial_scale
        bh, bw = max(y2 - y1, 0.1) / ph, max(x2 - x1, 0.1) / pw
        for o in range(oc):
            for i in range(ph):
                hs = min(max(math.floor(bh * i + y1), 0), h)
                he = min(max(math.ceil(bh * (i + 1) + y1), 0), h)
                for j in range(pw):
                    ws = min(max(math.floor(bw * j + x1), 0), w)
                    we = min(max(math.ceil(bw * (j + 1) + x1), 0), w)
                    if he > hs and we > ws:
                        out[r, o, i, j] = x[img, (o * ph + i) * pw + j, hs:he, ws:we].mean()
    return out


def _transpose_ref(forward):
    """g -> J^T g for the linear-in-x reference forward (column by column)."""
    def ref(x, boxes, boxes_num, g, **kw):
        cols = []
        for k in range(x.size):
            e = np.zeros(x.size)
            e[k] = 1.0
            cols.append(forward(e.reshape(x.shape).astype(x.dtype), boxes, boxes_num, **kw))
        jac = np.stack([c.ravel() for c in cols], axis=1)
        return (jac.T @ g.ravel().astype(np.float64)).reshape(x.shape).astype(x.dtype)
    return ref


def _roi_samples(rng, dtype, channels=2):
    x = rng.standard_normal((2, channels, 4, 5)).astype(dtype)
    boxes = np.array([[0.3, 0.6, 3.2, 2.9], [-0.8, 1.1, 2.2, 4.4], [1.4, 0.2, 4.9, 3.7]],
                     dtype)
    num = np.array([1, 2], np.int32)
    return x, boxes, num


def _align_samples(rng, dtype):
    x, boxes, num = _roi_samples(rng, dtype)
    return [Sample((x, boxes, num), dict(output_size=2), name="adaptive"),
            Sample((x, boxes, num), dict(output_size=(2, 3), spatial_scale=0.7,
                                         sampling_ratio=2, aligned=False), name="fixed-grid"),
            Sample((x[:1], boxes[:0], np.array([0], np.int32)), dict(output_size=2),
                   name="no-boxes")]


def _pool_samples(rng, dtype):
    x, boxes, num = _roi_samples(rng, dtype)
    return [Sample((x, boxes, num), dict(output_size=2), name="basic"),
            Sample((x, boxes, num), dict(output_size=(3, 2), spatial_scale=0.6),
                   name="scaled")]


def _ps_samples(rng, dtype):
    x, boxes, num = _roi_samples(rng, dtype, channels=8)
    x = x[:, :, :, :4]
    return [Sample((x, boxes, num), dict(output_size=2), name="basic"),
            Sample((x[:, :6], boxes, num), dict(output_size=(1, 3), spatial_scale=0.8),
                   name="scaled")]


def _grad_op(name, forward_attrs):
    def fn(x, boxes, boxes_num, g, output_size, **kw):
        ph, pw = (output_size, output_size) if isinstance(output_size, int) else output_size
        return call(name, x, boxes, boxes_num, g, pooled_height=ph, pooled_width=pw,
                    **forward_attrs(kw))
    return fn


def _with_g(samples_fn, forward_ref):
    def samples(rng, dtype):
        out = []
        for s in samples_fn(rng, dtype)[:2]:
            x, boxes, num = s.args
            y = forward_ref(x, boxes, num, **s.kwargs)
            g = rng.standard_normal(y.shape).astype(dtype)
            out.append(Sample((x, boxes, num, g), s.kwargs, name=s.name))
        return out
    return samples


def _align_attrs(kw):
    return dict(spatial_scale=kw.get("spatial_scale", 1.0),
                sampling_ratio=kw.get("sampling_ratio", -1), aligned=kw.get("aligned", True))


def _roi_pool_grad_fn(x, boxes, boxes_num, g, output_size, **kw):
    ph, pw = (output_size, output_size) if isinstance(output_size, int) else output_size
    _, argmax = call("roi_pool", x, boxes, boxes_num, pooled_height=ph, pooled_width=pw,
                     spatial_scale=kw.get("spatial_scale", 1.0))
    return call("_roi_pool_grad", x, argmax, boxes_num, g)


def _roi_pool_grad_ref(x, boxes, boxes_num, g, **kw):
    """Each output gradient lands on the first maximum of its bin."""
    out = roi_pool_ref(x, boxes, boxes_num, **kw)
    dx = np.zeros_like(x)
    img = _image_of(boxes_num)
    for r, c, i, j in np.ndindex(*out.shape):
        hit = np.argwhere((x[img[r], c] == out[r, c, i, j]))
        ph, pw = out.shape[2:]
        for yy, xx in hit:  # the bin's first (row-major) maximum
            if _in_bin(boxes[r], (i, j), (ph, pw), x.shape[2:], kw.get("spatial_scale", 1.0),
                       (yy, xx)):
                dx[img[r], c, yy, xx] += g[r, c, i, j]
                break
    return dx


def _in_bin(box, ij, pooled, hw, scale, pos) -> bool:
    x1, y1, x2, y2 = (_round(float(v) * scale) for v in box)
    bh, bw = max(y2 - y1 + 1, 1) / pooled[0], max(x2 - x1 + 1, 1) / pooled[1]
    hs = min(max(math.floor(ij[0] * bh) + y1, 0), hw[0])
    he = min(max(math.ceil((ij[0] + 1) * bh) + y1, 0), hw[0])
    ws = min(max(math.floor(ij[1] * bw) + x1, 0), hw[1])
    we = min(max(math.ceil((ij[1] + 1) * bw) + x1, 0), hw[1])
    return hs <= pos[0] < he and ws <= pos[1] < we


def _ps_attrs(kw):
    return dict(spatial_scale=kw.get("spatial_scale", 1.0))


ENTRIES = [
    OpEntry("roi_align", V.roi_align, roi_align_ref, _align_samples, grad_args=(0,),
            double_grad=True, onnx=False),
    OpEntry("_roi_align_grad", _grad_op("_roi_align_grad", _align_attrs),
            _transpose_ref(roi_align_ref), _with_g(_align_samples, roi_align_ref),
            grad_args=(3,), double_grad=False, onnx=False),
    OpEntry("roi_pool", V.roi_pool, roi_pool_ref, _pool_samples, grad_args=(0,),
            double_grad=False, onnx=False),
    OpEntry("_roi_pool_grad", _roi_pool_grad_fn, _roi_pool_grad_ref,
            _with_g(_pool_samples, roi_pool_ref), grad=False, onnx=False),
    OpEntry("psroi_pool", V.psroi_pool, psroi_pool_ref, _ps_samples, grad_args=(0,),
            double_grad=True, onnx=False),
    OpEntry("_psroi_pool_grad", _grad_op("_psroi_pool_grad", _ps_attrs),
            _transpose_ref(psroi_pool_ref), _with_g(_ps_samples, psroi_pool_ref),
            grad_args=(3,), double_grad=False, onnx=False),
]
