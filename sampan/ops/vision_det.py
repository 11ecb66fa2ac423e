"""Detection operators without gradients (as in Paddle): nms (greedy, optionally per
category with top_k), yolo_box (decode a YOLOv3 head) and prior_box (SSD anchors).

Output sizes of nms are data dependent (-1 in `infer`). Imports `framework` and
`ops.opdef` only.
"""
from __future__ import annotations

import math

from ..framework import dtype as _dt
from .opdef import OpDef, TensorSpec, register


def _check_boxes(api: str, arg: str, spec, last: int = 4) -> None:
    if spec.ndim != 2 or spec.shape[1] not in (last, -1):
        raise ValueError(f"{api}: {arg} must be a 2-D tensor [N, {last}], got shape "
                         f"{list(spec.shape)}")
    if spec.dtype.kind != "f":
        raise TypeError(f"{api}: {arg} must be a floating point tensor, got {spec.dtype.name}")


def iou_matrix(xp, a, b):
    """IoU of every box of a [N, 4] with every box of b [M, 4] (x1, y1, x2, y2; areas
    without the +1 pixel convention); 0 where the union is empty."""
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = xp.maximum(a[:, None, :2], b[None, :, :2])
    rb = xp.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = xp.clip(rb - lt, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b[None, :] - inter
    return xp.where(union > 0, inter / xp.where(union > 0, union, 1), 0)


def greedy_nms(xp, boxes, iou_threshold: float):
    """Indices (into boxes, taken in their given order) that survive greedy NMS: a box is
    dropped when its IoU with an already kept box is > iou_threshold."""
    iou = iou_matrix(xp, boxes, boxes)
    keep = []
    suppressed = xp.zeros(boxes.shape[0], dtype=bool)
    for i in range(boxes.shape[0]):
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= iou[i] > iou_threshold
    return xp.asarray(keep, dtype=xp.int64)


@register
class Nms(OpDef):
    """Greedy non-maximum suppression, Paddle's paddle.vision.ops.nms.

    Without scores, boxes are taken in the given order. With scores they are visited by
    descending score (top_k is then ignored, as in Paddle). With category_idxs, NMS runs per
    category of `categories` and the survivors of all categories are ordered by descending
    score and cut to top_k. int64 indices into boxes; no gradient.
    """

    name = "nms"
    inputs = ("boxes", "scores?", "category_idxs?")
    outputs = ("out",)
    attrs = {"iou_threshold": 0.3, "categories": None, "top_k": None}
    check = True

    def infer(self, boxes, scores=None, category_idxs=None, **attrs):
        _check_boxes("nms", "boxes", boxes)
        for arg, spec in (("scores", scores), ("category_idxs", category_idxs)):
            if spec is not None and (spec.ndim != 1 or -1 not in (spec.shape[0], boxes.shape[0])
                                     and spec.shape[0] != boxes.shape[0]):
                raise ValueError(f"nms: {arg} must be 1-D with one entry per box "
                                 f"({boxes.shape[0]}), got shape {list(spec.shape)}")
        if category_idxs is not None and (scores is None or attrs.get("categories") is None):
            raise ValueError("nms: category_idxs needs scores and categories (the list of "
                             "category ids)")
        return TensorSpec((-1,), _dt.int64)

    def compute(self, xp, boxes, scores=None, category_idxs=None, iou_threshold=0.3,
                categories=None, top_k=None):
        if scores is None:
            return greedy_nms(xp, boxes, iou_threshold)
        order = xp.argsort(-scores, kind="stable")
        if category_idxs is None:
            return order[greedy_nms(xp, boxes[order], iou_threshold)]
        kept = []
        for cat in categories:
            idx = order[category_idxs[order] == cat]
            kept.append(idx[greedy_nms(xp, boxes[idx], iou_threshold)])
        kept = xp.sort(xp.concatenate(kept)) if kept else xp.zeros(0, xp.int64)
        kept = kept[xp.argsort(-scores[kept], kind="stable")]
        return (kept if top_k is None else kept[:top_k]).astype(xp.int64)


@register
class YoloBox(OpDef):
    """Decode a YOLOv3 head x [N, A*(5+class_num), H, W] (A anchors; with iou_aware, A IoU
    channels first) into boxes [N, A*H*W, 4] in image pixels (img_size [N, 2] = h, w) and
    scores [N, A*H*W, class_num]; predictions with confidence < conf_thresh are zero.
    No gradient (as in Paddle)."""

    name = "yolo_box"
    inputs = ("x", "img_size")
    outputs = ("boxes", "scores")
    attrs = {"anchors": (), "class_num": 1, "conf_thresh": 0.01, "downsample_ratio": 32,
             "clip_bbox": True, "scale_x_y": 1.0, "iou_aware": False, "iou_aware_factor": 0.5}
    check = True

    def infer(self, x, img_size, **a):
        an_num = len(a["anchors"]) // 2
        per = 5 + a["class_num"]
        expect = an_num * (per + 1 if a["iou_aware"] else per)
        if x.ndim != 4 or x.shape[1] not in (expect, -1):
            raise ValueError(f"yolo_box: x must be [N, {expect}, H, W] for {an_num} anchors and "
                             f"class_num={a['class_num']}, got shape {list(x.shape)}")
        if img_size.ndim != 2 or img_size.shape[1] not in (2, -1):
            raise ValueError(f"yolo_box: img_size must be [N, 2], got {list(img_size.shape)}")
        m = -1 if -1 in x.shape[2:] else an_num * x.shape[2] * x.shape[3]
        return (TensorSpec((x.shape[0], m, 4), x.dtype),
                TensorSpec((x.shape[0], m, a["class_num"]), x.dtype))

    def compute(self, xp, x, img_size, anchors=(), class_num=1, conf_thresh=0.01,
                downsample_ratio=32, clip_bbox=True, scale_x_y=1.0, iou_aware=False,
                iou_aware_factor=0.5):
        n, _, h, w = x.shape
        an = len(anchors) // 2
        sig = lambda v: 1.0 / (1.0 + xp.exp(-v))  # noqa: E731
        if iou_aware:
            ioup, x = x[:, :an], x[:, an:]
        x = x.reshape(n, an, 5 + class_num, h, w)
        conf = sig(x[:, :, 4])
        if iou_aware:
            conf = conf ** (1 - iou_aware_factor) * sig(ioup) ** iou_aware_factor
        img_h = img_size[:, 0].astype(x.dtype)[:, None, None, None]
        img_w = img_size[:, 1].astype(x.dtype)[:, None, None, None]
        bias = -0.5 * (scale_x_y - 1.0)
        grid_x = xp.arange(w, dtype=x.dtype)[None, None, None, :]
        grid_y = xp.arange(h, dtype=x.dtype)[None, None, :, None]
        aw = xp.asarray(anchors[0::2], dtype=x.dtype)[None, :, None, None]
        ah = xp.asarray(anchors[1::2], dtype=x.dtype)[None, :, None, None]
        cx = (grid_x + sig(x[:, :, 0]) * scale_x_y + bias) * img_w / w
        cy = (grid_y + sig(x[:, :, 1]) * scale_x_y + bias) * img_h / h
        bw = xp.exp(x[:, :, 2]) * aw * img_w / (downsample_ratio * w)
        bh = xp.exp(x[:, :, 3]) * ah * img_h / (downsample_ratio * h)
        boxes = xp.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=-1)
        if clip_bbox:
            lo = xp.zeros_like(img_w)[..., None]
            hi = xp.concatenate([img_w - 1, img_h - 1, img_w - 1, img_h - 1], axis=-1)[..., None, :]
            boxes = xp.concatenate([xp.maximum(boxes[..., :2], lo),
                                    xp.minimum(boxes[..., 2:], hi[..., 2:])], axis=-1)
        keep = (conf >= conf_thresh)[..., None]
        scores = conf[..., None] * sig(xp.moveaxis(x[:, :, 5:], 2, -1))
        boxes = xp.where(keep, boxes, 0).reshape(n, an * h * w, 4)
        scores = xp.where(keep, scores, 0).reshape(n, an * h * w, class_num)
        return boxes.astype(x.dtype), scores.astype(x.dtype)


def _prior_shapes(min_sizes, max_sizes, ratios, minmax_order: bool) -> list:
    """(half width, half height) of the priors at one location, in Paddle's order."""
    shapes = []
    for s, mn in enumerate(min_sizes):
        big = [] if not max_sizes else [math.sqrt(mn * max_sizes[s]) / 2] * 2
        if minmax_order:
            shapes.append((mn / 2, mn / 2))
            if big:
                shapes.append(tuple(big))
            shapes += [(mn * math.sqrt(r) / 2, mn / math.sqrt(r) / 2) for r in ratios
                       if abs(r - 1.0) >= 1e-6]
        else:
            shapes += [(mn * math.sqrt(r) / 2, mn / math.sqrt(r) / 2) for r in ratios]
            if big:
                shapes.append(tuple(big))
    return shapes


def expand_aspect_ratios(aspect_ratios, flip: bool) -> list:
    """1.0 first, then each new ratio (and its inverse when flip), skipping duplicates."""
    out = [1.0]
    for r in aspect_ratios:
        for v in ([r, 1.0 / r] if flip else [r]):
            if all(abs(v - o) >= 1e-6 for o in out):
                out.append(v)
    return out


@register
class PriorBox(OpDef):
    """SSD prior boxes for each cell of input [N, C, H, W] over image [N, C, IH, IW]:
    boxes [H, W, P, 4] (normalized x1, y1, x2, y2) and their variances [H, W, P, 4].
    No gradient."""

    name = "prior_box"
    inputs = ("input", "image")
    outputs = ("boxes", "variances")
    attrs = {"min_sizes": (), "max_sizes": (), "aspect_ratios": (1.0,),
             "variances": (0.1, 0.1, 0.2, 0.2), "flip": False, "clip": False,
             "step_w": 0.0, "step_h": 0.0, "offset": 0.5, "min_max_aspect_ratios_order": False}
    check = True

    def infer(self, input, image, **a):
        for arg, spec in (("input", input), ("image", image)):
            if spec.ndim != 4:
                raise ValueError(f"prior_box: {arg} must be a 4-D NCHW tensor, got shape "
                                 f"{list(spec.shape)}")
        ratios = expand_aspect_ratios(a["aspect_ratios"], a["flip"])
        p = len(_prior_shapes(a["min_sizes"], a["max_sizes"], ratios,
                              a["min_max_aspect_ratios_order"]))
        shape = (input.shape[2], input.shape[3], p, 4)
        return TensorSpec(shape, input.dtype), TensorSpec(shape, input.dtype)

    def compute(self, xp, input, image, min_sizes=(), max_sizes=(), aspect_ratios=(1.0,),
                variances=(0.1, 0.1, 0.2, 0.2), flip=False, clip=False, step_w=0.0,
                step_h=0.0, offset=0.5, min_max_aspect_ratios_order=False):
        h, w = input.shape[2:]
        ih, iw = image.shape[2:]
        sw = step_w if step_w > 0 else iw / w
        sh = step_h if step_h > 0 else ih / h
        ratios = expand_aspect_ratios(aspect_ratios, flip)
        half = xp.asarray(_prior_shapes(min_sizes, max_sizes, ratios,
                                        min_max_aspect_ratios_order), dtype=xp.float64)
        cx = ((xp.arange(w) + offset) * sw)[None, :, None]
        cy = ((xp.arange(h) + offset) * sh)[:, None, None]
        boxes = xp.stack([(cx - half[:, 0]) / iw + 0 * cy, (cy - half[:, 1]) / ih + 0 * cx,
                          (cx + half[:, 0]) / iw + 0 * cy, (cy + half[:, 1]) / ih + 0 * cx],
                         axis=-1)
        if clip:
            boxes = xp.clip(boxes, 0.0, 1.0)
        var = xp.broadcast_to(xp.asarray(variances, dtype=xp.float64), boxes.shape)
        return boxes.astype(input.dtype), xp.ascontiguousarray(var).astype(input.dtype)


def _overlapping(xp, a, b):
    """[N, M] True where box a_i and box b_j touch; Paddle gives disjoint boxes IoU 0 even
    when the +1 pixel convention would make their intersection positive."""
    return ~((b[None, :, 0] > a[:, None, 2]) | (b[None, :, 2] < a[:, None, 0])
             | (b[None, :, 1] > a[:, None, 3]) | (b[None, :, 3] < a[:, None, 1]))


def _nms_pixel(xp, boxes, thresh: float, eta: float, offset: float):
    """Greedy NMS with the +offset pixel convention and Paddle's adaptive threshold (eta)."""
    area = (boxes[:, 2] - boxes[:, 0] + offset) * (boxes[:, 3] - boxes[:, 1] + offset)
    keep = []
    for i in range(boxes.shape[0]):
        ok = True
        for j in keep:
            if not _overlapping(xp, boxes[i:i + 1], boxes[j:j + 1])[0, 0]:
                continue
            iw = min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0]) + offset
            ih = min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1]) + offset
            inter = max(iw, 0) * max(ih, 0)
            union = area[i] + area[j] - inter
            if union > 0 and inter / union > thresh:
                ok = False
                break
        if ok:
            keep.append(i)
            if eta < 1 and thresh > 0.5:
                thresh *= eta
    return xp.asarray(keep, dtype=xp.int64)


def _proposals_one(xp, scores, deltas, im_hw, anchors, variances, a: dict):
    """RPN proposals of one image: top-k by score, decode, clip, drop small, NMS."""
    off = 1.0 if a["pixel_offset"] else 0.0
    order = xp.argsort(-scores, kind="stable")
    if 0 < a["pre_nms_top_n"] < scores.size:
        order = order[:a["pre_nms_top_n"]]
    scores, deltas, anchors, variances = (v[order] for v in (scores, deltas, anchors,
                                                            variances))
    aw = anchors[:, 2] - anchors[:, 0] + off
    ah = anchors[:, 3] - anchors[:, 1] + off
    acx, acy = anchors[:, 0] + 0.5 * aw, anchors[:, 1] + 0.5 * ah
    d = deltas * variances
    clip = math.log(1000.0 / 16.0)
    cx, cy = d[:, 0] * aw + acx, d[:, 1] * ah + acy
    w, h = xp.exp(xp.minimum(d[:, 2], clip)) * aw, xp.exp(xp.minimum(d[:, 3], clip)) * ah
    boxes = xp.stack([cx - w / 2, cy - h / 2, cx + w / 2 - off, cy + h / 2 - off], axis=1)
    im_h, im_w = float(im_hw[0]), float(im_hw[1])
    boxes[:, 0::2] = xp.clip(boxes[:, 0::2], 0, im_w - off)
    boxes[:, 1::2] = xp.clip(boxes[:, 1::2], 0, im_h - off)
    ws, hs = boxes[:, 2] - boxes[:, 0] + off, boxes[:, 3] - boxes[:, 1] + off
    min_size = max(a["min_size"], 1.0)  # NOTE: Paddle never drops boxes under 1 pixel
    keep = (ws >= min_size) & (hs >= min_size)
    if a["pixel_offset"]:
        keep &= (boxes[:, 0] + ws / 2 <= im_w) & (boxes[:, 1] + hs / 2 <= im_h)
    boxes, scores = boxes[keep], scores[keep]
    if boxes.shape[0] == 0:
        return xp.zeros((1, 4), boxes.dtype), xp.zeros((1,), scores.dtype)
    kept = _nms_pixel(xp, boxes, a["nms_thresh"], a["eta"], off)
    if a["post_nms_top_n"] > 0:
        kept = kept[:a["post_nms_top_n"]]
    return boxes[kept], scores[kept]


@register
class GenerateProposals(OpDef):
    """Faster R-CNN RPN proposals (Paddle's generate_proposals v2): per image, the
    pre_nms_top_n best anchors are decoded with bbox_deltas and variances, clipped to the
    image, boxes smaller than min_size dropped and NMS (nms_thresh, adaptive eta) applied,
    keeping post_nms_top_n. rois [R, 4], probs [R, 1], rois_num int32 [N]. No gradient."""

    name = "generate_proposals"
    inputs = ("scores", "bbox_deltas", "img_size", "anchors", "variances")
    outputs = ("rpn_rois", "rpn_roi_probs", "rpn_rois_num")
    attrs = {"pre_nms_top_n": 6000, "post_nms_top_n": 1000, "nms_thresh": 0.5,
             "min_size": 0.1, "eta": 1.0, "pixel_offset": False}
    check = True

    def infer(self, scores, bbox_deltas, img_size, anchors, variances, **a):
        if scores.ndim != 4 or bbox_deltas.ndim != 4:
            raise ValueError(f"generate_proposals: scores [N, A, H, W] and bbox_deltas "
                             f"[N, 4A, H, W] must be 4-D, got {list(scores.shape)} and "
                             f"{list(bbox_deltas.shape)}")
        if -1 not in (scores.shape[1], bbox_deltas.shape[1]) and \
                bbox_deltas.shape[1] != 4 * scores.shape[1]:
            raise ValueError(f"generate_proposals: bbox_deltas needs 4 * A = "
                             f"{4 * scores.shape[1]} channels, got {bbox_deltas.shape[1]}")
        for arg, spec in (("anchors", anchors), ("variances", variances)):
            if spec.shape[-1] not in (4, -1):
                raise ValueError(f"generate_proposals: {arg} must end in 4 (x1, y1, x2, y2), "
                                 f"got shape {list(spec.shape)}")
        return (TensorSpec((-1, 4), scores.dtype), TensorSpec((-1, 1), scores.dtype),
                TensorSpec((scores.shape[0],), _dt.int32))

    def compute(self, xp, scores, bbox_deltas, img_size, anchors, variances, **a):
        n = scores.shape[0]
        anchors, variances = anchors.reshape(-1, 4), variances.reshape(-1, 4)
        rois, probs, nums = [], [], []
        for i in range(n):
            s = scores[i].transpose(1, 2, 0).ravel()
            d = bbox_deltas[i].transpose(1, 2, 0).reshape(-1, 4)
            b, p = _proposals_one(xp, s, d, img_size[i], anchors, variances, a)
            rois.append(b)
            probs.append(p)
            nums.append(b.shape[0])
        return (xp.concatenate(rois).astype(scores.dtype),
                xp.concatenate(probs).reshape(-1, 1).astype(scores.dtype),
                xp.asarray(nums, dtype=xp.int32))


def _matrix_nms_class(xp, boxes, scores, a: dict):
    """(kept indices, decayed scores) of one class of one image (Matrix NMS, SOLOv2)."""
    cand = xp.nonzero(scores > a["score_threshold"])[0]
    cand = cand[xp.argsort(-scores[cand], kind="stable")]
    if a["nms_top_k"] > -1:
        cand = cand[:a["nms_top_k"]]
    if cand.size == 0:
        return cand, scores[cand]
    b = boxes[cand]
    off = 0.0 if a["normalized"] else 1.0
    area = (b[:, 2] - b[:, 0] + off) * (b[:, 3] - b[:, 1] + off)
    wh = xp.clip(xp.minimum(b[:, None, 2:], b[None, :, 2:])
                 - xp.maximum(b[:, None, :2], b[None, :, :2]) + off, 0, None)
    inter = wh[..., 0] * wh[..., 1] * _overlapping(xp, b, b)
    iou = xp.tril(inter / (area[:, None] + area[None, :] - inter), -1)  # iou[i, j], j < i
    iou_max = iou.max(axis=1)  # the largest overlap of box j with a better box
    if a["use_gaussian"]:
        decay = xp.exp((iou_max[None, :] ** 2 - iou ** 2) * a["gaussian_sigma"])
    else:
        decay = (1 - iou) / (1 - iou_max[None, :])
    decay = xp.where(xp.tril(xp.ones_like(iou, dtype=bool), -1), decay, 1.0).min(axis=1)
    decayed = scores[cand] * decay
    keep = decayed > a["post_threshold"]
    return cand[keep], decayed[keep]


@register
class MatrixNms(OpDef):
    """Matrix NMS over bboxes [N, M, 4] and per-class scores [N, C, M]: per image and class
    (background_label skipped), candidates above score_threshold (top nms_top_k) have their
    scores decayed by their overlaps with better boxes (linear or Gaussian) and those above
    post_threshold are kept; per image the best keep_top_k over all classes. out [K, 6]
    (label, score, x1, y1, x2, y2), index int32 [K, 1] into N*M, rois_num int32 [N]."""

    name = "matrix_nms"
    inputs = ("bboxes", "scores")
    outputs = ("out", "index", "rois_num")
    attrs = {"score_threshold": 0.0, "post_threshold": 0.0, "nms_top_k": -1,
             "keep_top_k": -1, "use_gaussian": False, "gaussian_sigma": 2.0,
             "background_label": 0, "normalized": True}
    check = True

    def infer(self, bboxes, scores, **a):
        if bboxes.ndim != 3 or scores.ndim != 3 or bboxes.shape[-1] not in (4, -1):
            raise ValueError(f"matrix_nms: bboxes must be [N, M, 4] and scores [N, C, M], got "
                             f"{list(bboxes.shape)} and {list(scores.shape)}")
        if -1 not in (bboxes.shape[1], scores.shape[2]) and bboxes.shape[1] != scores.shape[2]:
            raise ValueError(f"matrix_nms: scores [N, C, M] must have M = {bboxes.shape[1]} "
                             f"(the boxes of bboxes), got {list(scores.shape)}")
        return (TensorSpec((-1, 6), bboxes.dtype), TensorSpec((-1, 1), _dt.int32),
                TensorSpec((bboxes.shape[0],), _dt.int32))

    def compute(self, xp, bboxes, scores, **a):
        n, m = bboxes.shape[:2]
        outs, index, nums = [], [], []
        for i in range(n):
            rows = []
            for c in range(scores.shape[1]):
                if c == a["background_label"]:
                    continue
                kept, sc = _matrix_nms_class(xp, bboxes[i], scores[i, c], a)
                rows += [(float(s), c, int(k)) for k, s in zip(kept, sc)]
            rows.sort(key=lambda r: -r[0])
            if a["keep_top_k"] > -1:
                rows = rows[:a["keep_top_k"]]
            outs += [[c, s, *bboxes[i, k].tolist()] for s, c, k in rows]  # host numbers
            index += [i * m + k for _, _, k in rows]
            nums.append(len(rows))
        return (xp.asarray(outs, dtype=bboxes.dtype).reshape(-1, 6),
                xp.asarray(index, dtype=xp.int32).reshape(-1, 1),
                xp.asarray(nums, dtype=xp.int32))
