"""generate_proposals (over the kernel op) and distribute_fpn_proposals (a composite of
sampan ops: per-ROI FPN level, then one gather per level)."""
from __future__ import annotations

from ... import tensor as T
from ...ops.dispatch import call


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances,
                       pre_nms_top_n: int = 6000, post_nms_top_n: int = 1000,
                       nms_thresh: float = 0.5, min_size: float = 0.1, eta: float = 1.0,
                       pixel_offset: bool = False, return_rois_num: bool = False, name=None):
    """Region proposals of a Faster R-CNN RPN head.

    Args:
        scores (Tensor): [N, A, H, W] objectness.
        bbox_deltas (Tensor): [N, 4A, H, W] box deltas.
        img_size (Tensor): [N, 2] image (height, width).
        anchors (Tensor): [H, W, A, 4] anchors.
        variances (Tensor): [H, W, A, 4] anchor variances.
        pre_nms_top_n (int, optional): best anchors kept before NMS. Default 6000.
        post_nms_top_n (int, optional): proposals kept after NMS. Default 1000.
        nms_thresh (float, optional): NMS IoU threshold. Default 0.5.
        min_size (float, optional): smaller boxes are dropped. Default 0.1.
        eta (float, optional): adaptive NMS factor (< 1 lowers the threshold). Default 1.0.
        pixel_offset (bool, optional): +1 pixel width convention. Default False.
        return_rois_num (bool, optional): also return proposals per image. Default False.
        name (str, optional): unused.

    Returns:
        tuple: rpn_rois [R, 4], rpn_roi_probs [R, 1] and rpn_rois_num int32 [N] (None unless
        return_rois_num).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import generate_proposals
        >>> anchors = paddle.to_tensor([[[[0., 0., 8., 8.]]]]).expand([2, 2, 1, 4])
        >>> rois, probs, num = generate_proposals(
        ...     paddle.rand([1, 1, 2, 2]), paddle.zeros([1, 4, 2, 2]),
        ...     paddle.to_tensor([[16., 16.]]), anchors, paddle.ones([2, 2, 1, 4]),
        ...     return_rois_num=True)
        >>> rois.shape, num.numpy().tolist()
        (paddle.Size([1, 4]), [1])
    """
    rois, probs, num = call("generate_proposals", scores, bbox_deltas, img_size, anchors,
                            variances, pre_nms_top_n=int(pre_nms_top_n),
                            post_nms_top_n=int(post_nms_top_n), nms_thresh=float(nms_thresh),
                            min_size=float(min_size), eta=float(eta),
                            pixel_offset=bool(pixel_offset))
    return rois, probs, (num if return_rois_num else None)


def distribute_fpn_proposals(fpn_rois, min_level: int, max_level: int, refer_level: int,
                             refer_scale: int, pixel_offset: bool = False, rois_num=None,
                             name=None):
    """Assign each ROI to an FPN level by its scale: floor(log2(sqrt(area) / refer_scale +
    1e-8) + refer_level), clipped to [min_level, max_level].

    Args:
        fpn_rois (Tensor): [R, 4] ROIs (x1, y1, x2, y2), sorted by image.
        min_level, max_level (int): the FPN levels.
        refer_level (int): the level of an ROI of size refer_scale.
        refer_scale (int): the reference ROI size.
        pixel_offset (bool, optional): +1 pixel area convention. Default False.
        rois_num (Tensor, optional): int32 [N] ROIs per image. Default None.
        name (str, optional): unused.

    Returns:
        tuple: multi_rois (list of [R_l, 4], one per level), restore_ind int32 [R, 1] (rows
        of the concatenated levels that give back the input order) and rois_num_per_level
        (list of int32 [N], or None without rois_num).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import distribute_fpn_proposals
        >>> rois = paddle.to_tensor([[0., 0., 300., 300.], [0., 0., 20., 20.]])
        >>> multi, restore, _ = distribute_fpn_proposals(rois, 2, 5, 4, 224)
        >>> [r.shape[0] for r in multi], restore.numpy().ravel().tolist()
        ([1, 0, 1, 0], [1, 0])
    """
    if not min_level <= refer_level <= max_level:
        raise ValueError(f"distribute_fpn_proposals: need min_level <= refer_level <= "
                         f"max_level, got {min_level}, {refer_level}, {max_level}")
    off = 1.0 if pixel_offset else 0.0
    w = fpn_rois[:, 2] - fpn_rois[:, 0] + off
    h = fpn_rois[:, 3] - fpn_rois[:, 1] + off
    area = T.where(T.logical_or(w < 0, h < 0), T.zeros_like(w), w * h)
    level = T.floor(T.log2(T.sqrt(area) / refer_scale + 1e-8) + refer_level)
    level = T.clip(level, min_level, max_level)
    if rois_num is not None:
        image = T.repeat_interleave(T.arange(rois_num.shape[0]), T.cast(rois_num, 'int64'))
    multi, order, per_level = [], [], []
    for lvl in range(min_level, max_level + 1):
        idx = T.reshape(T.nonzero(level == lvl), [-1])
        multi.append(T.gather(fpn_rois, idx))
        order.append(idx)
        if rois_num is not None:
            hit = T.cast(T.unsqueeze(T.gather(image, idx), 0) ==
                         T.unsqueeze(T.arange(rois_num.shape[0]), 1), 'int32')
            per_level.append(T.sum(hit, axis=1, dtype='int32'))
    restore = T.cast(T.reshape(T.argsort(T.concat(order)), [-1, 1]), 'int32')
    return multi, restore, (per_level if rois_num is not None else None)
