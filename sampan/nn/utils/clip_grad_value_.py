"""Module path `paddle.nn.utils.clip_grad_value_`; the function lives in clip_grad.py."""
from .clip_grad import clip_grad_value_  # noqa: F401
