"""`python -m sampan SCRIPT [ARGS]`: run a PaddlePaddle program unchanged on sampan.

Every `import paddle...` in the program resolves to sampan's own modules, also in the
processes it starts (DataLoader workers, launched ranks: PYTHONPATH carries the alias).
`python -m sampan -m MODULE [ARGS]` and `python -m sampan -c CODE [ARGS]` work as in python.
"""
from __future__ import annotations

import os
import runpy
import sys

from sampan._compat import install_as_paddle, shim_path

USAGE = ("usage: python -m sampan SCRIPT [ARGS...]\n"
         "       python -m sampan -m MODULE [ARGS...]\n"
         "       python -m sampan -c CODE [ARGS...]\n"
         "Runs a PaddlePaddle program with `import paddle` resolving to sampan.")


def _export_alias() -> None:
    """Child interpreters find the `paddle` shim first on their path: through PYTHONPATH,
    and through sys.path, which multiprocessing's spawn copies into its children."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = shim_path() + (os.pathsep + old if old else "")
    sys.path.insert(1, shim_path())  # after the script's folder; `paddle` is loaded here


def _real_module(name: str) -> str:
    """`-m paddle.x` runs sampan.x (runpy needs the module's own loader for its code)."""
    return "sampan" + name[len("paddle"):] if name.split(".")[0] == "paddle" else name


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    install_as_paddle()
    _export_alias()
    if argv[0] == "-m" and len(argv) > 1:
        sys.argv = argv[1:]
        runpy.run_module(_real_module(argv[1]), run_name="__main__", alter_sys=True)
    elif argv[0] == "-c" and len(argv) > 1:
        sys.argv = ["-c", *argv[2:]]
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
    elif argv[0].startswith("-"):
        print(f"python -m sampan: unknown option {argv[0]!r}\n{USAGE}", file=sys.stderr)
        return 2
    else:
        script = argv[0]
        if not os.path.exists(script):
            print(f"python -m sampan: can't open file {script!r}: no such file",
                  file=sys.stderr)
            return 2
        sys.argv = argv
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
