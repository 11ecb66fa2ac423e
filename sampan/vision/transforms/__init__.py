"""paddle.vision.transforms: image transforms (classes) and their functional forms."""
from . import functional
from .functional import (adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation,
                         affine, center_crop, crop, erase, hflip, normalize, pad, perspective,
                         resize, rotate, to_grayscale, to_tensor, vflip)
from .transforms import (BaseTransform, CenterCrop, Compose, Grayscale, Normalize, Pad,
                         Resize, ToTensor, Transpose)  # first: it loads random_transforms
from .random_transforms import (BrightnessTransform, ColorJitter, ContrastTransform,
                                HueTransform, RandomAffine, RandomCrop, RandomErasing,
                                RandomHorizontalFlip, RandomPerspective, RandomResizedCrop,
                                RandomRotation, RandomVerticalFlip, SaturationTransform)

# Paddle 3.3.1's list (adjust_saturation and functional are attributes, not in __all__)
__all__ = ["BaseTransform", "Compose", "Resize", "RandomResizedCrop", "CenterCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose", "Normalize",
           "BrightnessTransform", "SaturationTransform", "ContrastTransform", "HueTransform",
           "ColorJitter", "RandomCrop", "Pad", "RandomAffine", "RandomRotation",
           "RandomPerspective", "Grayscale", "ToTensor", "RandomErasing", "to_tensor", "hflip",
           "vflip", "resize", "pad", "affine", "rotate", "perspective", "to_grayscale", "crop",
           "center_crop", "adjust_brightness", "adjust_contrast", "adjust_hue", "normalize",
           "erase"]
