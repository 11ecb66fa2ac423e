"""Messages between trainers and parameter servers over MPI (mpi4py's pickled isend and
a polled receive): every wait has a deadline, so a peer that died or hung turns into a
TimeoutError naming it instead of a hang. Imports mpi4py only through comm.mpi().
"""
from __future__ import annotations

import os
import time

from ..comm import mpi

REQUEST, REPLY = 7301, 7302
_SPIN = 0.001          # seconds of busy polling before sleeping
_REPLY_SPIN = 0.01
_MAX_PAUSE = 2e-4      # longest sleep between polls in the first _BUSY seconds
_BUSY = 0.1
_IDLE_PAUSE = 2e-3


class Channel:
    """Point-to-point messages on an mpi4py communicator; `who` names this end in errors."""

    def __init__(self, comm, who: str, timeout: float) -> None:
        self.comm, self.who, self.timeout = comm, who, float(timeout)
        self._sends: list = []

    def send(self, obj, dest: int, tag: int) -> None:
        """Queue `obj` for rank `dest` (completes in the background; see flush)."""
        self._sends.append(self.comm.isend(obj, dest=dest, tag=tag))
        if len(self._sends) > 64:
            self._sends = [r for r in self._sends if not r.Test()]

    def flush(self, what: str) -> None:
        """Wait until every queued send completed, within the deadline."""
        MPI = mpi()
        self._poll(lambda: MPI.Request.Testall(self._sends), what)
        self._sends = []

    def recv(self, source: int, tag: int, what: str, timeout: float | None = None):
        """The next message from `source` with `tag`, within the deadline."""
        status = mpi().Status()
        # a reply is expected soon: spin longer before sleeping
        self._poll(lambda: self.comm.Iprobe(source=source, tag=tag, status=status), what,
                   timeout, spin=_REPLY_SPIN)
        return self.comm.recv(source=status.Get_source(), tag=tag)

    def recv_any(self, tag: int, what: str, timeout: float | None = None) -> tuple:
        """(source, message) of the next message with `tag` from any rank."""
        MPI = mpi()
        status = MPI.Status()
        self._poll(lambda: self.comm.Iprobe(source=MPI.ANY_SOURCE, tag=tag, status=status),
                   what, timeout)
        source = status.Get_source()
        return source, self.comm.recv(source=source, tag=tag)

    def _poll(self, done, what: str, timeout: float | None = None,
              spin: float = _SPIN) -> None:
        limit = self.timeout if timeout is None else timeout
        start = time.monotonic()
        pause = 0.0
        while not done():
            now = time.monotonic()
            if now - start < spin:
                os.sched_yield()   # let a peer on the same cores run
                continue
            if now - start > limit:
                raise TimeoutError(f"{self.who}: {what} did not complete within {limit:g} s "
                                   f"(set SAMPAN_DIST_TIMEOUT or fleet's timeout)")
            time.sleep(pause)
            # short sleeps while traffic is likely, longer ones once idle (saves CPU)
            cap = _MAX_PAUSE if now - start < _BUSY else _IDLE_PAUSE
            pause = min(max(pause * 2, 1e-5), cap)
