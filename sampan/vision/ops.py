"""paddle.vision.ops: detection and region operators (nms, box_coder, prior_box, yolo_box,
yolo_loss, roi_align/roi_pool/psroi_pool, generate_proposals, distribute_fpn_proposals,
deform_conv2d), their Layer forms, ConvNormActivation and JPEG reading. The public face;
implementations live in sampan/vision/_ops/ and kernels in sampan/ops/vision_*.py."""
from ._ops.conv_norm import ConvNormActivation

__all__ = ['ConvNormActivation']
