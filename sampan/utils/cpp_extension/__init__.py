"""paddle.utils.cpp_extension: custom C++ operators compiled against the headers sampan ships
(include/paddle/extension.h) and registered as OpDefs."""
from .cpp_extension import CppExtension, CUDAExtension, load, setup  # noqa: F401
from .extension_utils import get_build_directory  # noqa: F401

__all__ = ["CppExtension", "CUDAExtension", "load", "setup", "get_build_directory"]
