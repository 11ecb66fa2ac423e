"""yolo_loss: YOLOv3 loss as a composite of sampan ops over the targets of the
`_yolo_loss_targets` kernel op, so its gradient with respect to x comes for free."""
from __future__ import annotations

from ... import tensor as T
from ...nn import functional as F
from ...ops.dispatch import call


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num: int,
              ignore_thresh: float, downsample_ratio: int, gt_score=None,
              use_label_smooth: bool = True, name=None, scale_x_y: float = 1.0):
    """YOLOv3 loss of one detection head, per image.

    Sigmoid cross-entropy on the box centers, classes and objectness, L1 on the log box
    sizes (both scaled by 2 - w*h and the ground-truth score); predictions overlapping a
    ground truth by more than ignore_thresh are left out of the objectness loss.

    Args:
        x (Tensor): [N, len(anchor_mask) * (5 + class_num), H, W] head output.
        gt_box (Tensor): [N, B, 4] ground truths (cx, cy, w, h), normalized by the input
            size; rows with zero width or height are padding.
        gt_label (Tensor): int32 [N, B] class of each ground truth.
        anchors (list): all anchor sizes [w0, h0, w1, h1, ...] in input pixels.
        anchor_mask (list): indices of the anchors this head predicts.
        class_num (int): number of classes.
        ignore_thresh (float): IoU above which a prediction is not a negative.
        downsample_ratio (int): input size / H.
        gt_score (Tensor, optional): [N, B] ground-truth scores (mixup). Default 1.
        use_label_smooth (bool, optional): smooth class targets. Default True.
        name (str, optional): unused.
        scale_x_y (float, optional): YOLOv4 center scale. Default 1.0.

    Returns:
        Tensor: [N] loss per image.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import yolo_loss
        >>> x = paddle.zeros([1, 14, 4, 4])
        >>> gt = paddle.to_tensor([[[0.5, 0.5, 0.3, 0.4]]])
        >>> loss = yolo_loss(x, gt, paddle.to_tensor([[1]], dtype='int32'),
        ...                  anchors=[10, 13, 16, 30], anchor_mask=[0, 1], class_num=2,
        ...                  ignore_thresh=0.7, downsample_ratio=32)
        >>> loss.shape
        paddle.Size([1])
    """
    anchors, anchor_mask = [int(v) for v in anchors], [int(v) for v in anchor_mask]
    if len(anchors) % 2 or not anchor_mask or max(anchor_mask) >= len(anchors) // 2:
        raise ValueError(f"yolo_loss: anchors must be (w, h) pairs and anchor_mask indices "
                         f"into them, got anchors={anchors}, anchor_mask={anchor_mask}")
    want = len(anchor_mask) * (5 + int(class_num))
    if x.ndim != 4 or x.shape[1] != want:
        raise ValueError(f"yolo_loss: x must be [N, {want}, H, W] for {len(anchor_mask)} "
                         f"masked anchors and class_num={class_num}, got {list(x.shape)}")
    sw, swt, idx, t, w, img = call(
        "_yolo_loss_targets", x, gt_box, gt_label, gt_score, anchors=anchors,
        anchor_mask=anchor_mask, class_num=int(class_num), ignore_thresh=float(ignore_thresh),
        downsample_ratio=int(downsample_ratio), use_label_smooth=bool(use_label_smooth),
        scale_x_y=float(scale_x_y))
    n = x.shape[0]
    # sum_k w_k * SCE(x, t_k) = W * (relu(x) + log(1 + exp(-|x|))) - x * sum_k w_k t_k
    sce = sw * (F.relu(x) + T.log1p(T.exp(-T.abs(x)))) - x * swt
    loss = T.sum(T.reshape(sce, [n, -1]), axis=1)
    l1 = w * T.abs(T.gather(T.reshape(x, [-1]), idx) - t)
    onehot = T.cast(T.unsqueeze(T.arange(n), 1) == T.unsqueeze(img, 0), x.dtype)
    return loss + T.matmul(onehot, l1)
