"""The one error type of sampan.serving's request handling: an HTTP status, a short
machine-readable code and a message naming the problem; rendered as a JSON body.

Imports nothing from sampan.
"""
from __future__ import annotations

__all__ = ["RequestError"]


class RequestError(Exception):
    """A request the server refuses: `status` (4xx/5xx), `code` (e.g. "wrong_shape"),
    `message` (what was expected and what was given), optional extra `headers`."""

    def __init__(self, status: int, code: str, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}

    def body(self) -> dict:
        return {"error": {"status": self.status, "code": self.code, "message": self.message}}
