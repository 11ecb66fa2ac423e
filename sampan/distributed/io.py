"""paddle.distributed.io: save_persistables / load_persistables of a static Program, thin
over sampan.static's persistable (.npz, no pickle) format. sampan writes one file,
`dirname/filename` (default "__persistables__.npz"), where Paddle writes one file per
variable when `filename` is None."""
from __future__ import annotations

import os

from ..framework.flags import in_dynamic_mode
from ..static.executor import global_scope
from ..static.io import _npz_bytes, _persistable_values, deserialize_persistables
from ..static.program import Program, default_main_program

__all__ = ["save_persistables", "load_persistables"]

_DEFAULT_FILE = "__persistables__.npz"


def _check(api: str, dirname, main_program) -> Program:
    if in_dynamic_mode():
        raise RuntimeError(f"{api}: only supported in static graph mode; call "
                           f"paddle.enable_static() first")
    if not isinstance(dirname, str) or not dirname:
        raise ValueError(f"{api}: dirname must be a non-empty str, got {dirname!r}")
    program = default_main_program() if main_program is None else main_program
    if not isinstance(program, Program):
        raise TypeError(f"{api}: main_program must be a paddle.static.Program or None, got "
                        f"{type(program).__name__}")
    return program


def save_persistables(executor, dirname: str, main_program=None, filename=None) -> None:
    """Save the values of every persistable variable (parameters) of `main_program`
    (default: the default main program) under `dirname`.

    Args:
        executor (Executor): accepted as Paddle's; values come from the global scope.
        dirname (str): the folder (created if missing).
        main_program (Program, optional): default paddle.static.default_main_program().
        filename (str, optional): the one file to write; default "__persistables__.npz".

    Examples:
        >>> import os, tempfile
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main, startup = paddle.static.Program(), paddle.static.Program()
        >>> with paddle.static.program_guard(main, startup):
        ...     x = paddle.static.data("x", [None, 2], "float32")
        ...     y = paddle.static.nn.fc(x, 3)
        >>> exe = paddle.static.Executor()
        >>> _ = exe.run(startup)
        >>> d = tempfile.mkdtemp()
        >>> paddle.distributed.io.save_persistables(exe, d, main)
        >>> os.listdir(d)
        ['__persistables__.npz']
        >>> paddle.disable_static()
    """
    program = _check("save_persistables", dirname, main_program)
    values = _persistable_values(program, global_scope())
    os.makedirs(dirname, exist_ok=True)
    with open(os.path.join(dirname, filename or _DEFAULT_FILE), "wb") as f:
        f.write(_npz_bytes(values))


def load_persistables(executor, dirname: str, main_program=None, filename=None) -> None:
    """Load into the global scope the persistables that save_persistables wrote; every
    persistable of `main_program` must be in the file (ValueError naming it otherwise)."""
    program = _check("load_persistables", dirname, main_program)
    path = os.path.join(dirname, filename or _DEFAULT_FILE)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"load_persistables: no file {path!r}")
    with open(path, "rb") as f:
        deserialize_persistables(program, f.read(), executor)
