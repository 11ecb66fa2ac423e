"""Implementation modules of paddle.vision.ops (the public face is sampan/vision/ops.py)."""
