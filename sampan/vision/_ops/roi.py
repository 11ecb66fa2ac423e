"""roi_align, roi_pool, psroi_pool and their Layer forms (RoIAlign, RoIPool, PSRoIPool)."""
from __future__ import annotations

from ... import nn
from ...ops.dispatch import call


def _size2(api: str, output_size) -> tuple:
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        return output_size, output_size
    if isinstance(output_size, (list, tuple)) and len(output_size) == 2:
        return int(output_size[0]), int(output_size[1])
    raise TypeError(f"{api}: output_size must be an int or a pair of ints, got {output_size!r}")


def roi_align(x, boxes, boxes_num, output_size, spatial_scale: float = 1.0,
              sampling_ratio: int = -1, aligned: bool = True, name=None):
    """RoIAlign: bilinearly sampled, averaged features of each box.

    Args:
        x (Tensor): feature map [N, C, H, W], float32/float64.
        boxes (Tensor): [num_boxes, 4] boxes (x1, y1, x2, y2) in input-image coordinates,
            sorted by image.
        boxes_num (Tensor): int32 [N], the number of boxes of each image.
        output_size (int|tuple): (pooled_height, pooled_width).
        spatial_scale (float, optional): scale from image to feature coordinates. Default 1.0.
        sampling_ratio (int, optional): samples per bin side; <= 0 means adaptive
            (ceil(roi_size / output_size)). Default -1.
        aligned (bool, optional): shift boxes by -0.5 pixel. Default True.
        name (str, optional): unused.

    Returns:
        Tensor: [num_boxes, C, pooled_height, pooled_width].

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import roi_align
        >>> x = paddle.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> boxes = paddle.to_tensor([[0.5, 0.5, 2.5, 2.5]])
        >>> roi_align(x, boxes, paddle.to_tensor([1], dtype='int32'), 1)
        Tensor(shape=[1, 1, 1, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[5.]]]])
    """
    ph, pw = _size2("roi_align", output_size)
    return call("roi_align", x, boxes, boxes_num, pooled_height=ph, pooled_width=pw,
                spatial_scale=float(spatial_scale), sampling_ratio=int(sampling_ratio),
                aligned=bool(aligned))


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale: float = 1.0, name=None):
    """RoI max pooling over integer-rounded bins (empty bins give 0).

    Args:
        x (Tensor): feature map [N, C, H, W].
        boxes (Tensor): [num_boxes, 4] boxes (x1, y1, x2, y2), sorted by image.
        boxes_num (Tensor): int32 [N], boxes per image.
        output_size (int|tuple): (pooled_height, pooled_width).
        spatial_scale (float, optional): image-to-feature scale. Default 1.0.
        name (str, optional): unused.

    Returns:
        Tensor: [num_boxes, C, pooled_height, pooled_width].

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import roi_pool
        >>> x = paddle.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> out = roi_pool(x, paddle.to_tensor([[0., 0., 3., 3.]]),
        ...                paddle.to_tensor([1], dtype='int32'), 2)
        >>> out.numpy().ravel().tolist()
        [5.0, 7.0, 13.0, 15.0]
    """
    ph, pw = _size2("roi_pool", output_size)
    out, _ = call("roi_pool", x, boxes, boxes_num, pooled_height=ph, pooled_width=pw,
                  spatial_scale=float(spatial_scale))
    return out


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale: float = 1.0, name=None):
    """Position-sensitive RoI average pooling (R-FCN).

    Args:
        x (Tensor): feature map [N, C, H, W] with C = out_channels * ph * pw.
        boxes (Tensor): [num_boxes, 4] boxes (x1, y1, x2, y2), sorted by image.
        boxes_num (Tensor): int32 [N], boxes per image.
        output_size (int|tuple): (pooled_height, pooled_width).
        spatial_scale (float, optional): image-to-feature scale. Default 1.0.
        name (str, optional): unused.

    Returns:
        Tensor: [num_boxes, C / (ph * pw), ph, pw].

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import psroi_pool
        >>> x = paddle.ones([1, 8, 4, 4])
        >>> psroi_pool(x, paddle.to_tensor([[0., 0., 3., 3.]]),
        ...            paddle.to_tensor([1], dtype='int32'), 2).shape
        paddle.Size([1, 2, 2, 2])
    """
    ph, pw = _size2("psroi_pool", output_size)
    return call("psroi_pool", x, boxes, boxes_num, pooled_height=ph, pooled_width=pw,
                spatial_scale=float(spatial_scale))


class RoIAlign(nn.Layer):
    """Layer form of :func:`roi_align` (aligned=True, adaptive sampling).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import RoIAlign
        >>> layer = RoIAlign(output_size=(2, 2))
        >>> layer(paddle.ones([1, 3, 8, 8]), paddle.to_tensor([[1., 1., 5., 5.]]),
        ...       paddle.to_tensor([1], dtype='int32')).shape
        paddle.Size([1, 3, 2, 2])
    """

    def __init__(self, output_size, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num, aligned: bool = True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale,
                         aligned=aligned)


class RoIPool(nn.Layer):
    """Layer form of :func:`roi_pool`.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import RoIPool
        >>> RoIPool(2)(paddle.ones([1, 3, 8, 8]), paddle.to_tensor([[1., 1., 5., 5.]]),
        ...            paddle.to_tensor([1], dtype='int32')).shape
        paddle.Size([1, 3, 2, 2])
    """

    def __init__(self, output_size, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


class PSRoIPool(nn.Layer):
    """Layer form of :func:`psroi_pool`.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import PSRoIPool
        >>> PSRoIPool(2)(paddle.ones([1, 8, 8, 8]), paddle.to_tensor([[1., 1., 5., 5.]]),
        ...              paddle.to_tensor([1], dtype='int32')).shape
        paddle.Size([1, 2, 2, 2])
    """

    def __init__(self, output_size, spatial_scale: float = 1.0) -> None:
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)
