"""Run Paddle programs unchanged: `paddle` and every `paddle.*` module name resolve to sampan's
own module objects (`paddle.nn.functional is sampan.nn.functional`).

Nothing here runs on `import sampan`: a real PaddlePaddle that is installed is shadowed only
when asked, by `sampan.install_as_paddle()` or `python -m sampan SCRIPT`. Child processes
started by such a program (spawned DataLoader workers, launched ranks) inherit the alias
through `shim_path()`, a folder with a one-file `paddle` package that installs it again.
Standard library only, plus `import sampan` itself.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import sys

ALIAS = "paddle"
TARGET = "sampan"


def _real_name(alias: str) -> str | None:
    """'paddle.nn' -> 'sampan.nn'; None for names outside `paddle`."""
    if alias == ALIAS or alias.startswith(ALIAS + "."):
        return TARGET + alias[len(ALIAS):]
    return None


def _sync() -> None:
    """Give every loaded sampan module its `paddle.*` name too (same object). Aliasing what
    is already loaded keeps the import system from re-binding a parent's attribute (e.g.
    `paddle.nn.utils.clip_grad_norm_`, a function over a module of that name)."""
    for name, module in list(sys.modules.items()):
        if name == TARGET or name.startswith(TARGET + "."):
            sys.modules.setdefault(ALIAS + name[len(TARGET):], module)


class _AliasLoader(importlib.abc.Loader):
    """Loads an alias as the already imported sampan module itself."""

    def __init__(self, module) -> None:
        self.module = module
        self.own_spec = module.__spec__

    def create_module(self, spec):
        return self.module

    def exec_module(self, module) -> None:
        # module_from_spec stamped the alias spec on the module; give it its own back
        module.__spec__ = self.own_spec


class PaddleAliasFinder(importlib.abc.MetaPathFinder):
    """A meta-path finder that answers `paddle[.x.y]` with the module `sampan[.x.y]`."""

    def find_spec(self, fullname, path=None, target=None):
        real = _real_name(fullname)
        if real is None:
            return None
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as exc:
            if exc.name and (real == exc.name or real.startswith(exc.name + ".")):
                return None  # sampan has no such module: "No module named 'paddle.x'"
            raise
        _sync()
        # importlib returns the spec of a module already in sys.modules (here: sampan's
        # own, which it would execute a second time), so the name itself loads through us
        sys.modules.pop(fullname, None)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module),
                                               is_package=hasattr(module, "__path__"))


def installed() -> bool:
    """True when `import paddle` gives sampan in this process."""
    return sys.modules.get(ALIAS) is sys.modules.get(TARGET) is not None


def install_as_paddle() -> None:
    """Make `import paddle` (and `paddle.*`) give sampan's modules in this process.

    Opt-in: call it before the program's first `import paddle`. A real PaddlePaddle that is
    installed is then shadowed in this process; one that is already imported is an error.
    Calling it again does nothing.

    Raises:
        RuntimeError: if a real `paddle` module is already imported.

    Examples:
        >>> import sampan
        >>> sampan.install_as_paddle()  # doctest: +SKIP
        >>> import paddle.nn.functional as F  # doctest: +SKIP
        >>> F is sampan.nn.functional  # doctest: +SKIP
        True
    """
    import sampan
    present = sys.modules.get(ALIAS)
    if present is not None and present is not sampan and not getattr(present, "_SAMPAN_SHIM",
                                                                      False):
        raise RuntimeError(f"install_as_paddle: a real paddle is already imported (from "
                           f"{getattr(present, '__file__', '?')}); call install_as_paddle() "
                           f"before the first `import paddle`")
    if not any(isinstance(f, PaddleAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, PaddleAliasFinder())
    sys.modules[ALIAS] = sampan
    _sync()


def shim_path() -> str:
    """The folder whose `paddle` package installs the alias on import (for child processes
    that start a fresh interpreter: put it first on PYTHONPATH)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_paddle_shim")
