"""Module path `paddle.nn.utils.clip_grad_norm_` (Paddle keeps each clip function in a module
of its own name); the function lives in clip_grad.py."""
from .clip_grad import clip_grad_norm_  # noqa: F401
