"""paddle.disable_signal_handler: give the fatal signals back to the default handlers.
Imports the standard library only.
"""
from __future__ import annotations

import faulthandler
import signal
import threading

# the signals Paddle's runtime installs stack-dumping handlers for
_FATAL = ("SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT", "SIGTERM")


def disable_signal_handler() -> None:
    """Restore the default handlers of SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT and SIGTERM
    and turn faulthandler's stack dumps off, so another framework or a debugger that wants
    these signals gets them (as Paddle's disable_signal_handler does for its C++ handlers).
    Call it from the main thread; elsewhere only faulthandler is turned off.

    Examples:
        >>> import sampan as paddle
        >>> paddle.disable_signal_handler()  # doctest: +SKIP
    """
    faulthandler.disable()
    if threading.current_thread() is not threading.main_thread():
        return
    for name in _FATAL:
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, signal.SIG_DFL)
