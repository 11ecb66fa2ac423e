"""nms, box_coder, prior_box and yolo_box: the public faces over sampan/ops/vision_det.py
(box_coder is a composite of elementwise ops, so it has gradients)."""
from __future__ import annotations

from ...framework.tensor import Tensor
from ...ops.dispatch import call
from ... import tensor as T


def nms(boxes, iou_threshold: float = 0.3, scores=None, category_idxs=None,
        categories=None, top_k=None):
    """Greedy non-maximum suppression.

    Args:
        boxes (Tensor): [N, 4] boxes (x1, y1, x2, y2).
        iou_threshold (float, optional): boxes whose IoU with a kept box is above this are
            dropped. Default 0.3.
        scores (Tensor, optional): [N] scores; boxes are visited by descending score.
            Without it, in the given order. Default None.
        category_idxs (Tensor, optional): [N] category of each box; NMS then runs per
            category (needs scores and categories). Default None.
        categories (list, optional): the category ids. Default None.
        top_k (int, optional): keep at most this many (with category_idxs). Default None.

    Returns:
        Tensor: int64 indices of the kept boxes (by descending score when scores is given).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import nms
        >>> boxes = paddle.to_tensor([[0., 0., 10., 10.], [1., 1., 10., 10.],
        ...                           [20., 20., 30., 30.]])
        >>> nms(boxes, 0.5, scores=paddle.to_tensor([0.5, 0.9, 0.7])).numpy().tolist()
        [1, 2]
    """
    if top_k is not None and scores is not None and category_idxs is not None \
            and top_k > scores.shape[0]:
        raise ValueError(f"nms: top_k ({top_k}) must not exceed the number of boxes "
                         f"({scores.shape[0]})")
    cats = None if categories is None else [int(c) for c in categories]
    return call("nms", boxes, scores, category_idxs, iou_threshold=float(iou_threshold),
                categories=cats, top_k=None if top_k is None else int(top_k))


def _center_size(box, norm: float):
    w = box[..., 2] - box[..., 0] + norm
    h = box[..., 3] - box[..., 1] + norm
    return box[..., 0] + w / 2, box[..., 1] + h / 2, w, h


def box_coder(prior_box, prior_box_var, target_box, code_type: str = 'encode_center_size',
              box_normalized: bool = True, axis: int = 0, name=None):
    """Encode boxes as offsets from prior boxes, or decode such offsets back to boxes.

    Args:
        prior_box (Tensor): [M, 4] priors (x1, y1, x2, y2).
        prior_box_var (Tensor|list): [M, 4] variances, or 4 floats for all priors.
        target_box (Tensor): encode: [N, 4] boxes; decode: [N, M, 4] offsets (axis=0) or
            [M, N, 4]-style with priors along dim 0 (axis=1).
        code_type (str, optional): 'encode_center_size' or 'decode_center_size'.
        box_normalized (bool, optional): False adds 1 to widths/heights (pixel boxes).
        axis (int, optional): decode: the axis of target_box the priors broadcast along.
        name (str, optional): unused.

    Returns:
        Tensor: encode: [N, M, 4] offsets; decode: boxes with target_box's shape.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import box_coder
        >>> prior = paddle.to_tensor([[0., 0., 2., 2.]])
        >>> box_coder(prior, [1., 1., 1., 1.], paddle.to_tensor([[1., 1., 3., 3.]])).numpy()
        array([[[0.5, 0.5, 0. , 0. ]]], dtype=float32)
    """
    if code_type not in ('encode_center_size', 'decode_center_size'):
        raise ValueError(f"box_coder: code_type must be 'encode_center_size' or "
                         f"'decode_center_size', got {code_type!r}")
    if axis not in (0, 1):
        raise ValueError(f"box_coder: axis must be 0 or 1, got {axis}")
    norm = 0.0 if box_normalized else 1.0
    if not isinstance(prior_box_var, Tensor):
        prior_box_var = T.to_tensor([float(v) for v in prior_box_var], dtype=prior_box.dtype)
    pcx, pcy, pw, ph = _center_size(prior_box, norm)
    if code_type == 'encode_center_size':
        # NOTE: Paddle centers targets at (x1 + x2) / 2 but priors at x1 + (w + norm) / 2
        _, _, tw, th = _center_size(target_box, norm)
        tcx = (target_box[..., 0] + target_box[..., 2]) / 2
        tcy = (target_box[..., 1] + target_box[..., 3]) / 2
        tcx, tcy, tw, th = (T.unsqueeze(v, 1) for v in (tcx, tcy, tw, th))
        var = prior_box_var if prior_box_var.ndim == 1 else T.unsqueeze(prior_box_var, 0)
        out = T.stack([(tcx - pcx) / pw, (tcy - pcy) / ph, T.log(T.abs(tw / pw)),
                       T.log(T.abs(th / ph))], axis=-1)
        return out / var
    expand = 0 if axis == 0 else 1
    pcx, pcy, pw, ph = (T.unsqueeze(v, expand) for v in (pcx, pcy, pw, ph))
    var = prior_box_var if prior_box_var.ndim == 1 else T.unsqueeze(prior_box_var, expand)
    t = target_box * var
    cx = t[..., 0] * pw + pcx
    cy = t[..., 1] * ph + pcy
    w = T.exp(t[..., 2]) * pw
    h = T.exp(t[..., 3]) * ph
    return T.stack([cx - w / 2, cy - h / 2, cx + w / 2 - norm, cy + h / 2 - norm], axis=-1)


def _floats(value) -> list:
    if value is None:
        return []
    return [float(v) for v in value] if isinstance(value, (list, tuple)) else [float(value)]


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0],
              variance=[0.1, 0.1, 0.2, 0.2], flip: bool = False, clip: bool = False,
              steps=[0.0, 0.0], offset: float = 0.5, min_max_aspect_ratios_order: bool = False,
              name=None):
    """SSD prior (anchor) boxes for every cell of a feature map.

    Args:
        input (Tensor): feature map [N, C, H, W].
        image (Tensor): the image [N, C, IH, IW].
        min_sizes (list|float): prior sizes in pixels.
        max_sizes (list|float, optional): one per min size; adds a sqrt(min*max) prior.
        aspect_ratios (list|float, optional): width/height ratios. Default [1.0].
        variance (list, optional): the 4 variances of every prior.
        flip (bool, optional): also use 1/ratio. Default False.
        clip (bool, optional): clip boxes to [0, 1]. Default False.
        steps (list, optional): (step_w, step_h) in pixels; 0 means IW / W, IH / H.
        offset (float, optional): prior center offset inside a cell. Default 0.5.
        min_max_aspect_ratios_order (bool, optional): order priors (min, max, ratios) as in
            Caffe. Default False.
        name (str, optional): unused.

    Returns:
        tuple: boxes [H, W, num_priors, 4] (normalized) and variances of the same shape.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import prior_box
        >>> boxes, var = prior_box(paddle.ones([1, 3, 2, 2]), paddle.ones([1, 3, 8, 8]),
        ...                        min_sizes=[4.], aspect_ratios=[2.], flip=True)
        >>> boxes.shape
        paddle.Size([2, 2, 3, 4])
    """
    min_sizes, max_sizes = _floats(min_sizes), _floats(max_sizes)
    if max_sizes and len(max_sizes) != len(min_sizes):
        raise ValueError(f"prior_box: max_sizes ({len(max_sizes)}) must have one entry per "
                         f"min size ({len(min_sizes)})")
    if any(v <= 0 for v in min_sizes) or not min_sizes:
        raise ValueError(f"prior_box: min_sizes must be positive, got {min_sizes}")
    steps = _floats(steps)
    if len(steps) != 2:
        raise ValueError(f"prior_box: steps must be (step_w, step_h), got {steps}")
    return call("prior_box", input, image, min_sizes=min_sizes, max_sizes=max_sizes,
                aspect_ratios=_floats(aspect_ratios), variances=_floats(variance),
                flip=bool(flip), clip=bool(clip), step_w=steps[0], step_h=steps[1],
                offset=float(offset), min_max_aspect_ratios_order=bool(min_max_aspect_ratios_order))


def yolo_box(x, img_size, anchors, class_num: int, conf_thresh: float,
             downsample_ratio: int, clip_bbox: bool = True, name=None, scale_x_y: float = 1.0,
             iou_aware: bool = False, iou_aware_factor: float = 0.5):
    """Decode a YOLOv3 detection head into boxes and class scores.

    Args:
        x (Tensor): [N, A * (5 + class_num), H, W] head output (A = len(anchors) // 2;
            with iou_aware, A more channels of IoU logits come first).
        img_size (Tensor): int32 [N, 2], (height, width) of each image.
        anchors (list): anchor sizes [w0, h0, w1, h1, ...] in input pixels.
        class_num (int): number of classes.
        conf_thresh (float): predictions below this confidence give zero boxes and scores.
        downsample_ratio (int): input size / feature size (32, 16, 8).
        clip_bbox (bool, optional): clip boxes to the image. Default True.
        name (str, optional): unused.
        scale_x_y (float, optional): center scale of YOLOv4. Default 1.0.
        iou_aware (bool, optional): x carries IoU logits. Default False.
        iou_aware_factor (float, optional): confidence = obj^(1-f) * iou^f. Default 0.5.

    Returns:
        tuple: boxes [N, A*H*W, 4] (x1, y1, x2, y2) and scores [N, A*H*W, class_num].

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import yolo_box
        >>> boxes, scores = yolo_box(paddle.zeros([1, 14, 2, 2]),
        ...                          paddle.to_tensor([[64, 64]], dtype='int32'),
        ...                          anchors=[10, 13, 16, 30], class_num=2, conf_thresh=0.01,
        ...                          downsample_ratio=32)
        >>> boxes.shape, scores.shape
        (paddle.Size([1, 8, 4]), paddle.Size([1, 8, 2]))
    """
    anchors = [int(a) for a in anchors]
    if len(anchors) % 2 or not anchors:
        raise ValueError(f"yolo_box: anchors must be (width, height) pairs, got {anchors}")
    return call("yolo_box", x, img_size, anchors=anchors, class_num=int(class_num),
                conf_thresh=float(conf_thresh), downsample_ratio=int(downsample_ratio),
                clip_bbox=bool(clip_bbox), scale_x_y=float(scale_x_y),
                iou_aware=bool(iou_aware), iou_aware_factor=float(iou_aware_factor))


def matrix_nms(bboxes, scores, score_threshold: float, post_threshold: float,
               nms_top_k: int, keep_top_k: int, use_gaussian: bool = False,
               gaussian_sigma: float = 2.0, background_label: int = 0,
               normalized: bool = True, return_index: bool = False,
               return_rois_num: bool = True, name=None):
    """Matrix NMS (SOLOv2): decay the scores of overlapping boxes instead of removing them.

    Args:
        bboxes (Tensor): [N, M, 4] boxes (x1, y1, x2, y2).
        scores (Tensor): [N, C, M] class scores.
        score_threshold (float): candidates must score above this.
        post_threshold (float): decayed scores must stay above this.
        nms_top_k (int): best candidates per class (-1: all).
        keep_top_k (int): detections kept per image (-1: all).
        use_gaussian (bool, optional): Gaussian decay instead of linear. Default False.
        gaussian_sigma (float, optional): sigma of the Gaussian decay. Default 2.0.
        background_label (int, optional): class to skip (-1: none). Default 0.
        normalized (bool, optional): False adds 1 to widths/heights. Default True.
        return_index (bool, optional): also return the kept indices. Default False.
        return_rois_num (bool, optional): also return detections per image. Default True.
        name (str, optional): unused.

    Returns:
        tuple: out [K, 6] (label, score, x1, y1, x2, y2), rois_num int32 [N] (or None) and
        index int32 [K, 1] into the N*M boxes (or None).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import matrix_nms
        >>> boxes = paddle.to_tensor([[[0., 0., 1., 1.], [0., 0., 1., 0.9], [2., 2., 3., 3.]]])
        >>> scores = paddle.to_tensor([[[0., 0., 0.], [0.9, 0.8, 0.7]]])
        >>> out, num, _ = matrix_nms(boxes, scores, 0.1, 0.3, -1, -1)
        >>> out[:, 1].numpy(), num.numpy().tolist()
        (array([0.9, 0.7], dtype=float32), [2])
    """
    out, index, num = call("matrix_nms", bboxes, scores, score_threshold=float(score_threshold),
                           post_threshold=float(post_threshold), nms_top_k=int(nms_top_k),
                           keep_top_k=int(keep_top_k), use_gaussian=bool(use_gaussian),
                           gaussian_sigma=float(gaussian_sigma),
                           background_label=int(background_label), normalized=bool(normalized))
    return out, (num if return_rois_num else None), (index if return_index else None)
