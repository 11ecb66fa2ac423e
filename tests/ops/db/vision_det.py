"""Op database entries for sampan/ops/vision_det.py and vision_yolo.py: loop NumPy
references for nms, yolo_box and prior_box; generate_proposals and yolo_loss (which runs
the `_yolo_loss_targets` op) against numbers recorded from Paddle 3.3.1."""
import math

import numpy as np

from sampan.vision import ops as V
from tests.ops.op_db import OpEntry, Sample


def _iou(a, b):
    iw = max(min(a[2], b[2]) - max(a[0], b[0]), 0)
    ih = max(min(a[3], b[3]) - max(a[1], b[1]), 0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - iw * ih
    return iw * ih / union if union > 0 else 0.0


def _greedy(boxes, order, thr):
    keep = []
    for i in order:
        if all(_iou(boxes[i], boxes[k]) <= thr for k in keep):
            keep.append(i)
    return keep


def nms_ref(boxes, scores=None, category_idxs=None, iou_threshold=0.3, categories=None,
            top_k=None):
    if scores is None:
        return np.array(_greedy(boxes, range(len(boxes)), iou_threshold), np.int64)
    order = sorted(range(len(boxes)), key=lambda i: -scores[i])
    if category_idxs is None:
        return np.array(_greedy(boxes, order, iou_threshold), np.int64)
    kept = []
    for c in categories:
        kept += _greedy(boxes, [i for i in order if category_idxs[i] == c], iou_threshold)
    kept = sorted(sorted(kept), key=lambda i: -scores[i])
    return np.array(kept[:top_k] if top_k is not None else kept, np.int64)


def _nms_fn(boxes, scores=None, category_idxs=None, **kw):
    return V.nms(boxes, scores=scores, category_idxs=category_idxs, **kw)


def _nms_samples(rng, dtype):
    xy = rng.uniform(0, 10, (12, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(1, 6, (12, 2))], 1).astype(dtype)
    scores = rng.permutation(12).astype(dtype) / 12
    cats = rng.integers(0, 3, 12).astype(np.int64)
    return [Sample((boxes,), dict(iou_threshold=0.3), name="ordered"),
            Sample((boxes, scores), dict(iou_threshold=0.2), name="scored"),
            Sample((boxes, scores, cats), dict(iou_threshold=0.1, categories=[0, 1, 2],
                                               top_k=5), name="categories"),
            Sample((boxes, scores, cats), dict(iou_threshold=0.4, categories=[2]),
                   name="one-category"),
            Sample((boxes[:0],), name="empty")]


def _sig(v):
    return 1.0 / (1.0 + math.exp(-v))


def yolo_box_ref(x, img_size, anchors, class_num, conf_thresh, downsample_ratio,
                 clip_bbox=True, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    n, _, h, w = x.shape
    an = len(anchors) // 2
    boxes = np.zeros((n, an * h * w, 4))
    scores = np.zeros((n, an * h * w, class_num))
    off = an if iou_aware else 0
    for b, a, i, j in np.ndindex(n, an, h, w):
        v = x[b, off + a * (5 + class_num):off + (a + 1) * (5 + class_num), i, j]
        conf = _sig(v[4])
        if iou_aware:
            conf = conf ** (1 - iou_aware_factor) * _sig(x[b, a, i, j]) ** iou_aware_factor
        if conf < conf_thresh:
            continue
        ih, iw = float(img_size[b, 0]), float(img_size[b, 1])
        bias = -0.5 * (scale_x_y - 1)
        cx = (j + _sig(v[0]) * scale_x_y + bias) * iw / w
        cy = (i + _sig(v[1]) * scale_x_y + bias) * ih / h
        bw = math.exp(v[2]) * anchors[2 * a] * iw / (downsample_ratio * w)
        bh = math.exp(v[3]) * anchors[2 * a + 1] * ih / (downsample_ratio * h)
        box = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
        if clip_bbox:
            box = [max(box[0], 0), max(box[1], 0), min(box[2], iw - 1), min(box[3], ih - 1)]
        k = a * h * w + i * w + j
        boxes[b, k] = box
        scores[b, k] = [conf * _sig(c) for c in v[5:]]
    return boxes.astype(x.dtype), scores.astype(x.dtype)


def _yolo_box_samples(rng, dtype):
    x = rng.standard_normal((2, 14, 2, 3)).astype(dtype)
    xi = rng.standard_normal((1, 16, 2, 2)).astype(dtype)
    size = np.array([[60, 80], [40, 50]], np.int32)
    kw = dict(anchors=[10, 13, 16, 30], class_num=2, conf_thresh=0.4, downsample_ratio=16)
    return [Sample((x, size), kw, name="basic"),
            Sample((x, size), dict(kw, clip_bbox=False, scale_x_y=1.2, conf_thresh=0.1),
                   name="scale-xy"),
            Sample((xi, size[:1]), dict(kw, iou_aware=True, iou_aware_factor=0.3),
                   name="iou-aware")]


def prior_box_ref(feat, image, min_sizes, max_sizes=None, aspect_ratios=(1.0,),
                  variance=(0.1, 0.1, 0.2, 0.2), flip=False, clip=False, steps=(0.0, 0.0),
                  offset=0.5, min_max_aspect_ratios_order=False):
    h, w = feat.shape[2:]
    ih, iw = image.shape[2:]
    sw = steps[0] or iw / w
    sh = steps[1] or ih / h
    ratios = [1.0]
    for r in aspect_ratios:
        for v in ([r, 1 / r] if flip else [r]):
            if all(abs(v - o) >= 1e-6 for o in ratios):
                ratios.append(v)
    out = []
    for i, j in np.ndindex(h, w):
        cx, cy = (j + offset) * sw, (i + offset) * sh
        cell = []
        for s, m in enumerate(min_sizes):
            sq = [(m, m)]
            big = [(math.sqrt(m * max_sizes[s]),) * 2] if max_sizes else []
            rect = [(m * math.sqrt(r), m / math.sqrt(r)) for r in ratios]
            if min_max_aspect_ratios_order:
                cell += sq + big + [b for r, b in zip(ratios, rect) if abs(r - 1) >= 1e-6]
            else:
                cell += rect + big
        out.append([[(cx - bw / 2) / iw, (cy - bh / 2) / ih, (cx + bw / 2) / iw,
                     (cy + bh / 2) / ih] for bw, bh in cell])
    boxes = np.array(out).reshape(h, w, -1, 4)
    if clip:
        boxes = np.clip(boxes, 0, 1)
    var = np.broadcast_to(np.array(variance), boxes.shape)
    return boxes.astype(feat.dtype), var.astype(feat.dtype)


def _prior_samples(rng, dtype):
    feat, image = np.zeros((1, 2, 3, 4), dtype), np.zeros((1, 3, 24, 40), dtype)
    return [Sample((feat, image), dict(min_sizes=[4.0, 9.0], max_sizes=[8.0, 12.0],
                                       aspect_ratios=[2.0, 3.0], flip=True, clip=True),
                   name="flip-clip"),
            Sample((feat, image), dict(min_sizes=[5.0], max_sizes=[9.0], aspect_ratios=[2.0],
                                       min_max_aspect_ratios_order=True, steps=[8.0, 7.0],
                                       offset=0.3), name="caffe-order"),
            Sample((feat, image), dict(min_sizes=[6.0], aspect_ratios=[1.0, 0.5],
                                       variance=[0.1, 0.2, 0.3, 0.4]), name="no-max")]


def _gp_inputs(dtype):
    rng = np.random.default_rng(5)
    sc = rng.uniform(0, 1, (1, 2, 2, 3))
    dl = rng.standard_normal((1, 8, 2, 3)) * 0.3
    ctr = rng.uniform(0, 30, (2, 3, 2, 2))
    sz = rng.uniform(4, 16, (2, 3, 2, 2))
    anc = np.concatenate([ctr - sz / 2, ctr + sz / 2], -1)
    var = rng.uniform(0.5, 1.5, (2, 3, 2, 4))
    return tuple(a.astype(dtype) for a in (sc, dl, np.array([[28., 32.]]), anc, var))


# generate_proposals of Paddle 3.3.1 on _gp_inputs (rois, probs, rois_num), per pre_nms_top_n
_GP_PADDLE = {
    8: ([[11.850113, 25.467823, 18.407467, 28.], [3.344717, 14.91471, 8.431999, 24.02266],
         [11.221479, 5.38768, 22.179327, 17.883884], [22.590616, 0., 29.43107, 18.311884],
         [20.356169, 0., 29.564112, 7.632104]],
        [0.999176, 0.807941, 0.805003, 0.652369, 0.515326], [5]),
    12: ([[11.613708, 25.40199, 17.911072, 27.], [3.877634, 14.767529, 9.233236, 23.882748],
          [10.76753, 5.337629, 21.848814, 17.639921], [22.795645, 0., 29.84094, 19.141235],
          [1.55537, 11.372237, 8.858603, 18.897171], [15.979138, 18.573948, 22.66489, 26.997784],
          [0., 19.47647, 12.528138, 24.927048], [24.65823, 17.12586, 31., 25.626982]],
         [0.999176, 0.807941, 0.805003, 0.652369, 0.408473, 0.383369, 0.285801, 0.053931],
         [8]),
}


def _gp_fn(*args, **kw):
    return V.generate_proposals(*args, return_rois_num=True, **kw)


def _gp_ref(*args, pre_nms_top_n, **kw):
    rois, probs, num = _GP_PADDLE[pre_nms_top_n]
    dtype = args[0].dtype
    return (np.array(rois, dtype), np.array(probs, dtype).reshape(-1, 1),
            np.array(num, np.int32))


def _gp_samples(rng, dtype):
    args = _gp_inputs(dtype)
    return [Sample(args, dict(pre_nms_top_n=8, post_nms_top_n=5, nms_thresh=0.5,
                              min_size=1.0), name="basic"),
            Sample(args, dict(pre_nms_top_n=12, post_nms_top_n=10, nms_thresh=0.3,
                              min_size=2.0, pixel_offset=True), name="pixel-offset")]


def _yolo_inputs(dtype):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((1, 14, 2, 2)) * 0.8).astype(dtype)
    gt = np.array([[[0.3, 0.6, 0.4, 0.5], [0.8, 0.2, 0.1, 0.15], [0, 0, 0, 0]]], dtype)
    return x, gt, np.array([[1, 0, 0]], np.int32), np.array([[0.9, 0.6, 1.0]], dtype)


def _yolo_fn(x, gt, label, score=None, **kw):
    return V.yolo_loss(x, gt, label, [10, 13, 16, 30, 33, 23], [1, 2], 2, 0.3, 32,
                       gt_score=score, **kw)


def _yolo_ref(x, gt, label, score=None, **kw):
    # yolo_loss of Paddle 3.3.1 on _yolo_inputs
    return np.array([17.326845 if score is None else 16.491533], x.dtype)


def _yolo_samples(rng, dtype):
    x, gt, label, score = _yolo_inputs(dtype)
    return [Sample((x, gt, label), name="default"),
            Sample((x, gt, label, score), dict(use_label_smooth=False, scale_x_y=1.2),
                   name="scored")]


def _iou_off(a, b, off):
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    iw = min(a[2], b[2]) - max(a[0], b[0]) + off
    ih = min(a[3], b[3]) - max(a[1], b[1]) + off
    inter = iw * ih
    area = (a[2] - a[0] + off) * (a[3] - a[1] + off) + (b[2] - b[0] + off) * (b[3] - b[1] + off)
    return inter / (area - inter)


def matrix_nms_ref(bboxes, scores, score_threshold=0.0, post_threshold=0.0, nms_top_k=-1,
                   keep_top_k=-1, use_gaussian=False, gaussian_sigma=2.0, background_label=0,
                   normalized=True):
    off = 0.0 if normalized else 1.0
    outs, index, nums = [], [], []
    for i in range(bboxes.shape[0]):
        rows = []
        for c in range(scores.shape[1]):
            if c == background_label:
                continue
            cand = sorted([k for k in range(bboxes.shape[1])
                           if scores[i, c, k] > score_threshold], key=lambda k: -scores[i, c, k])
            cand = cand[:nms_top_k] if nms_top_k > -1 else cand
            iou = [[_iou_off(bboxes[i, p], bboxes[i, q], off) for q in cand] for p in cand]
            iou_max = [max(iou[p][:p], default=0.0) for p in range(len(cand))]
            for p, k in enumerate(cand):
                decay = 1.0
                for q in range(p):
                    if use_gaussian:
                        d = math.exp((iou_max[q] ** 2 - iou[p][q] ** 2) * gaussian_sigma)
                    else:
                        d = (1 - iou[p][q]) / (1 - iou_max[q])
                    decay = min(decay, d)
                if scores[i, c, k] * decay > post_threshold:
                    rows.append((scores[i, c, k] * decay, c, k))
        rows.sort(key=lambda r: -r[0])
        rows = rows[:keep_top_k] if keep_top_k > -1 else rows
        outs += [[c, sc, *bboxes[i, k]] for sc, c, k in rows]
        index += [[i * bboxes.shape[1] + k] for _, _, k in rows]
        nums.append(len(rows))
    return (np.array(outs, bboxes.dtype).reshape(-1, 6), np.array(nums, np.int32),
            np.array(index, np.int32).reshape(-1, 1))


def _matrix_nms_fn(bboxes, scores, **kw):
    return V.matrix_nms(bboxes, scores, return_index=True, **kw)


def _matrix_nms_samples(rng, dtype):
    xy = rng.uniform(0, 1, (2, 8, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(0.1, 0.5, (2, 8, 2))], -1).astype(dtype)
    scores = rng.uniform(0, 1, (2, 3, 8)).astype(dtype)
    kw = dict(score_threshold=0.2, post_threshold=0.25, nms_top_k=5, keep_top_k=6)
    return [Sample((boxes, scores), kw, name="linear"),
            Sample((boxes, scores), dict(kw, use_gaussian=True, gaussian_sigma=1.5,
                                         background_label=-1), name="gaussian"),
            Sample((boxes, scores), dict(kw, normalized=False, background_label=1,
                                         keep_top_k=-1, nms_top_k=-1), name="pixel")]


ENTRIES = [
    OpEntry("nms", _nms_fn, nms_ref, _nms_samples, grad=False, onnx=False),
    OpEntry("yolo_box", V.yolo_box, yolo_box_ref, _yolo_box_samples, grad=False, onnx=False),
    OpEntry("matrix_nms", _matrix_nms_fn, matrix_nms_ref, _matrix_nms_samples, grad=False,
            onnx=False),
    OpEntry("prior_box", V.prior_box, prior_box_ref, _prior_samples, grad=False, onnx=False),
    OpEntry("generate_proposals", _gp_fn, _gp_ref, _gp_samples, grad=False, onnx=False,
            tol=1e3),
    OpEntry("_yolo_loss_targets", _yolo_fn, _yolo_ref, _yolo_samples, grad_args=(0,),
            double_grad=False, onnx=False, tol=1e3),
]
