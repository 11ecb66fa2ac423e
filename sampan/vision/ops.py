"""paddle.vision.ops: detection and region operators (nms, box_coder, prior_box, yolo_box,
yolo_loss, roi_align/roi_pool/psroi_pool, generate_proposals, distribute_fpn_proposals,
deform_conv2d), their Layer forms, ConvNormActivation and JPEG reading. The public face;
implementations live in sampan/vision/_ops/ and kernels in sampan/ops/vision_*.py."""
from ._ops.conv_norm import ConvNormActivation
from ._ops.deform import DeformConv2D, deform_conv2d
from ._ops.detection import box_coder, matrix_nms, nms, prior_box, yolo_box
from ._ops.image_io import decode_jpeg, read_file
from ._ops.proposals import distribute_fpn_proposals, generate_proposals
from ._ops.roi import PSRoIPool, RoIAlign, RoIPool, psroi_pool, roi_align, roi_pool
from ._ops.yolo import yolo_loss

__all__ = ['yolo_loss', 'yolo_box', 'prior_box', 'box_coder', 'deform_conv2d', 'DeformConv2D',
           'distribute_fpn_proposals', 'generate_proposals', 'read_file', 'decode_jpeg',
           'roi_pool', 'RoIPool', 'psroi_pool', 'PSRoIPool', 'roi_align', 'RoIAlign', 'nms',
           'matrix_nms', 'ConvNormActivation']
