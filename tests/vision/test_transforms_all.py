"""paddle.vision.transforms.__all__ is Paddle 3.3.1's list, in its order (the data
preprocessing guide prints it); adjust_saturation stays reachable as an attribute."""
import sampan as paddle

PADDLE_ALL = [
    "BaseTransform", "Compose", "Resize", "RandomResizedCrop", "CenterCrop",
    "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose", "Normalize",
    "BrightnessTransform", "SaturationTransform", "ContrastTransform", "HueTransform",
    "ColorJitter", "RandomCrop", "Pad", "RandomAffine", "RandomRotation", "RandomPerspective",
    "Grayscale", "ToTensor", "RandomErasing", "to_tensor", "hflip", "vflip", "resize", "pad",
    "affine", "rotate", "perspective", "to_grayscale", "crop", "center_crop",
    "adjust_brightness", "adjust_contrast", "adjust_hue", "normalize", "erase"]


def test_all_matches_paddle():
    assert paddle.vision.transforms.__all__ == PADDLE_ALL
    for name in PADDLE_ALL:
        assert hasattr(paddle.vision.transforms, name), name
    assert callable(paddle.vision.transforms.functional.adjust_saturation)
