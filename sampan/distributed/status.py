"""Per-rank status files in the launcher's job folder (SAMPAN_DIST_STATUS): `pid` at start,
then `done`, or `err` with the traceback; the launcher (job.py) watches them."""
from __future__ import annotations

import os


def status_path(kind: str):
    """This rank's `kind` file in the job folder, or None outside a launched job."""
    folder = os.environ.get("SAMPAN_DIST_STATUS")
    if not folder:
        return None
    return os.path.join(folder, f"rank_{rank_label()}.{kind}")


def rank_label() -> str:
    """This process's rank in the launched job (its MPI rank; in a parameter-server job
    servers have no PADDLE_TRAINER_ID)."""
    return os.environ.get("SAMPAN_DIST_RANK") or os.environ.get("PADDLE_TRAINER_ID", "0")


def write_status(kind: str, text: str = "") -> None:
    """Write this rank's `kind` file atomically (no-op outside a launched job)."""
    path = status_path(kind)
    if path:
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
