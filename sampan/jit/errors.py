"""Error location for dy2static: `Dy2StaticError` (names the user's file and line, shows the
line, says what was being converted) and `locate(exc)`, which maps a traceback through
converted code back to the user's source.

Converted functions are compiled under the user's own file name with the user's line numbers
(so tracebacks and each Operator's recorded location already point at the user's line); their
code objects are registered here so `locate` can tell converted frames from library frames.
Imports nothing from sampan.
"""
from __future__ import annotations

import linecache
import sys
import types

_CONVERTED: dict = {}   # code object of converted code (and its helpers) -> function qualname


def register(code, qualname: str) -> None:
    """Record `code` (a converted function's code object) and its nested code objects."""
    _CONVERTED[code] = qualname
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            register(c, qualname)


def is_converted_code(code) -> bool:
    return code in _CONVERTED


def user_location(code, lineno: int):
    """(user file, line number, source line, function) for a position in converted code,
    or None when `code` is not converted code."""
    qualname = _CONVERTED.get(code)
    if qualname is None:
        return None
    filename = code.co_filename
    return filename, lineno, linecache.getline(filename, lineno).strip(), qualname


class Dy2StaticError(Exception):
    """An error while converting, tracing or running a to_static function, located at the
    user's own source line.

    Args:
        message (str): what went wrong.
        filename, lineno, source_line: the user's position (optional; found from the current
            stack when omitted).
        what (str): what was being converted (e.g. "function 'forward'").
    """

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None,
                 source_line: str | None = None, what: str | None = None) -> None:
        if filename is None:
            loc = _stack_location()
            if loc is not None:
                filename, lineno, source_line, qual = loc
                what = what or f"function '{qual}'"
        self.reason = message
        self.filename, self.lineno, self.source_line, self.what = (filename, lineno,
                                                                   source_line, what)
        super().__init__(self._text())

    def _text(self) -> str:
        text = self.reason
        if self.what:
            text += f"\n  (while converting {self.what} with paddle.jit.to_static)"
        if self.filename is not None:
            text += f'\n  File "{self.filename}", line {self.lineno}'
            if self.source_line:
                text += f"\n    {self.source_line}"
        return text

    def location(self):
        if self.filename is None:
            return None
        return self.filename, self.lineno, self.source_line


class Unsupported(Dy2StaticError):
    """A construct that cannot be kept in the static graph (numpy on a tensor, a Python side
    effect that depends on a tensor, unsupported syntax). to_static falls back to eager
    (or, with full_graph=True, raises this). Also `sampan.jit.transform.Unsupported`."""


def _stack_location():
    frame = sys._getframe(1)
    while frame is not None:
        loc = user_location(frame.f_code, frame.f_lineno)
        if loc is not None:
            return loc
        frame = frame.f_back
    return None


def locate(exc: BaseException):
    """(filename, lineno, source_line) of the user's line where `exc` arose in converted
    code (the innermost such frame of its traceback), or None."""
    if isinstance(exc, Dy2StaticError) and exc.filename is not None:
        return exc.filename, exc.lineno, exc.source_line
    found = None
    tb = exc.__traceback__
    while tb is not None:
        loc = user_location(tb.tb_frame.f_code, tb.tb_lineno)
        if loc is not None:
            found = loc[:3]
        tb = tb.tb_next
    return found


def from_exception(exc: BaseException, what: str | None = None) -> Dy2StaticError:
    """A Dy2StaticError for any exception raised in converted code (message kept, location
    added); `exc` itself when it already is one."""
    if isinstance(exc, Dy2StaticError):
        return exc
    loc = locate(exc)
    message = f"{type(exc).__name__}: {exc}"
    if loc is None:
        return Dy2StaticError(message, what=what)
    return Dy2StaticError(message, *loc, what=what)
