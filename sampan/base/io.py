"""`paddle.base.io`: the data loader and static save/load names (aliases)."""
from ..io import DataLoader  # noqa: F401
from ..static import load, load_inference_model, save, save_inference_model  # noqa: F401
