"""Vision operators. Intentionally empty: pad reuses ops/manipulation.py's `pad`, and
interpolate, grid_sample, affine_grid and the pixel/channel shuffles are composites in
nn/functional/vision.py (interpolate = one constant matrix per spatial axis + matmul, so its
forward and backward are BLAS calls and need no dedicated kernel).
"""
from __future__ import annotations
