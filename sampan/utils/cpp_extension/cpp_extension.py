"""paddle.utils.cpp_extension: load (JIT-compile and load custom C++ ops), setup,
CppExtension and CUDAExtension. Imports `ops` (through extension_utils).
"""
from __future__ import annotations

import os
import types

from .extension_utils import build_library, get_build_directory, op_module


class CppExtension:
    """The sources and flags of one C++ custom-op library, for `setup`.

    Args:
        sources (list[str]): the .cc/.cpp files.
        *args, **kwargs: setuptools.Extension options; `include_dirs`,
            `extra_compile_args` (a list, or a dict with key "cxx") and `extra_link_args`
            are used.

    Examples:
        >>> from sampan.utils.cpp_extension import CppExtension
        >>> ext = CppExtension(sources=["relu_op.cc"])
        >>> ext.sources
        ['relu_op.cc']
    """

    def __init__(self, sources, *args, **kwargs) -> None:
        self.sources = [sources] if isinstance(sources, str) else list(sources)
        self.include_dirs = list(kwargs.get("include_dirs", []))
        flags = kwargs.get("extra_compile_args", [])
        self.extra_compile_args = list(flags.get("cxx", [])) if isinstance(flags, dict) \
            else list(flags)
        self.extra_link_args = list(kwargs.get("extra_link_args", []))
        self.name = kwargs.get("name")


def CUDAExtension(sources, *args, **kwargs):  # noqa: N802 (Paddle's name)
    """Not available: sampan runs on CPU. Raises RuntimeError; use CppExtension."""
    raise RuntimeError("paddle.utils.cpp_extension.CUDAExtension: sampan has no CUDA "
                       "device; build CPU kernels with CppExtension")


def load(name: str, sources, extra_cxx_cflags=None, extra_cuda_cflags=None,
         extra_ldflags=None, extra_include_paths=None, build_directory=None,
         verbose: bool = False) -> types.ModuleType:
    """Compile custom C++ operators just in time and return a module of their functions.

    Each op declared with PD_BUILD_OP becomes a registered sampan operator usable in
    dynamic mode, static Programs, to_static and jit.save/jit.load. Builds are cached by a
    hash of the sources, headers and flags.

    Args:
        name (str): the module name (also the library file's prefix).
        sources (list[str]): C++ source files (#include "paddle/extension.h").
        extra_cxx_cflags (list[str], optional): extra compiler flags.
        extra_cuda_cflags (list[str], optional): must be empty (no CUDA in sampan).
        extra_ldflags (list[str], optional): extra linker flags.
        extra_include_paths (list[str], optional): extra include folders.
        build_directory (str, optional): where to build; default get_build_directory()/name.
        verbose (bool, optional): print the compile command. Default False.

    Returns:
        module: one function per custom op.

    Examples:
        >>> from sampan.utils.cpp_extension import load
        >>> custom_ops = load(name="custom_relu", sources=["relu_op.cc"])  # doctest: +SKIP
        >>> y = custom_ops.custom_relu(x)  # doctest: +SKIP
    """
    api = "paddle.utils.cpp_extension.load"
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"{api}: name must be a Python identifier, got {name!r}")
    if extra_cuda_cflags:
        raise RuntimeError(f"{api}: extra_cuda_cflags given, but sampan compiles no CUDA")
    build_dir = build_directory or os.path.join(get_build_directory(verbose), name)
    library = build_library(api, name, sources, build_dir, extra_cxx_cflags or [],
                            extra_ldflags or [], extra_include_paths or [], verbose)
    return op_module(name, library)


def setup(**attr) -> types.ModuleType:
    """Build custom-op extensions ahead of time (Paddle's setup over setuptools).

    sampan builds the library of `ext_modules` into `build_directory` (default ./build),
    writes `<name>.py` there, a module that loads the library and exposes the ops (import it
    with that folder on sys.path), and returns the loaded module.

    Args:
        name (str): the module name.
        ext_modules (CppExtension|list[CppExtension]): the extension to build (one).
        build_directory (str, optional): the output folder. Default "./build".

    Returns:
        module: one function per custom op.
    """
    api = "paddle.utils.cpp_extension.setup"
    name = attr.get("name")
    ext = attr.get("ext_modules")
    if isinstance(ext, (list, tuple)):
        if len(ext) != 1:
            raise ValueError(f"{api}: ext_modules must hold exactly one extension, got "
                             f"{len(ext)}")
        ext = ext[0]
    if not isinstance(ext, CppExtension):
        raise TypeError(f"{api}: ext_modules must be a CppExtension, got {type(ext).__name__}")
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"{api}: name must be a Python identifier, got {name!r}")
    out_dir = os.path.abspath(attr.get("build_directory") or "build")
    library = build_library(api, name, ext.sources, out_dir, ext.extra_compile_args,
                            ext.extra_link_args, ext.include_dirs)
    with open(os.path.join(out_dir, f"{name}.py"), "w") as f:
        f.write(f'"""Custom operators built by paddle.utils.cpp_extension.setup."""\n'
                f"from sampan.utils.cpp_extension.extension_utils import op_module as _load\n"
                f"\n"
                f"_mod = _load({name!r}, {library!r})\n"
                f"globals().update({{k: v for k, v in vars(_mod).items() "
                f"if not k.startswith('__')}})\n")
    return op_module(name, library)
