"""Utilities: run_check, unique_name. No dumping ground."""
from __future__ import annotations

from . import unique_name  # noqa: F401
from .nest import assert_same_structure, flatten, map_structure, pack_sequence_as  # noqa: F401


def __getattr__(name: str):
    # cpp_extension (subprocess, hashlib), download (urllib) and LogWriter load on first use:
    # `import sampan` should not pay for them
    if name in ("cpp_extension", "download"):
        import importlib
        value = importlib.import_module(f"{__name__}.{name}")
    elif name == "LogWriter":
        from .log_writer import LogWriter as value
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def run_check() -> None:
    """Check that sampan is installed and can compute and differentiate (paddle.utils.run_check)."""
    import numpy as np

    import sampan as paddle
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3), stop_gradient=False)
    y = (x * x).sum()
    y.backward()
    if not np.allclose(x.grad.numpy(), 2 * x.numpy()):
        raise RuntimeError("run_check: autograd produced a wrong gradient")
    print("Running verify PaddlePaddle(sampan) program ...")
    print("PaddlePaddle(sampan) works well on 1 CPU.")
    print("PaddlePaddle(sampan) is installed successfully! Let's start deep learning with "
          "PaddlePaddle now.")


def try_import(module_name: str, err_msg: str | None = None):
    """Import a module by name or raise ImportError with a hint to install it."""
    import importlib
    try:
        return importlib.import_module(module_name)
    except ImportError:
        raise ImportError(err_msg or f"{module_name} is required for this feature; install it "
                          f"with `pip install {module_name}`") from None


def require_version(min_version: str, max_version: str | None = None) -> None:
    """Check that the installed sampan version lies in [min_version, max_version]."""
    import sampan

    def key(v: str) -> tuple:
        return tuple(int(p) for p in v.split(".")[:3] if p.isdigit())
    if not isinstance(min_version, str):
        raise TypeError(f"require_version: min_version must be a str, got "
                        f"{type(min_version).__name__}")
    have = key(sampan.__version__)
    if have < key(min_version) or (max_version and have > key(max_version)):
        raise Exception(f"require_version: installed version {sampan.__version__} is not in "
                        f"[{min_version}, {max_version or 'any'}]")


def deprecated(update_to: str = "", since: str = "", reason: str = "", level: int = 0):
    """Decorator that warns once per call site that an API is deprecated."""
    import functools
    import warnings

    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            msg = f"API {fn.__name__} is deprecated since {since}" if since else \
                f"API {fn.__name__} is deprecated"
            if update_to:
                msg += f"; use {update_to} instead"
            if reason:
                msg += f" ({reason})"
            warnings.warn(msg, DeprecationWarning, stacklevel=2)
            return fn(*args, **kwargs)
        return inner
    return wrap
