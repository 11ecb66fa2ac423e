"""Shared checks and readers of the text datasets."""
from __future__ import annotations

import gzip
import io
import zlib
from typing import Any

from ...utils.data_files import TarReader


def check_choice(value: Any, allowed: tuple, api: str, arg: str, lower: bool = True) -> str:
    norm = value.lower() if lower and isinstance(value, str) else \
        value.upper() if isinstance(value, str) else value
    if norm not in allowed:
        raise ValueError(f"{api}: {arg} should be one of {list(allowed)}, but got {value!r}")
    return norm


def member(tar: TarReader, name: str) -> str:
    """The archive's spelling of member name ('x/y' or './x/y')."""
    for candidate in (name, "./" + name, name.lstrip("./")):
        if candidate in tar.members:
            return candidate
    raise ValueError(f"{tar.api}: {tar.path} has no member {name!r}")


def lines(tar: TarReader, name: str) -> list:
    """The raw (bytes) lines of a member."""
    return tar.read(member(tar, name)).splitlines(keepends=True)


def gunzip(raw: bytes, where: str, api: str) -> bytes:
    try:
        return gzip.GzipFile(fileobj=io.BytesIO(raw)).read()
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"{api}: {where} is not a readable gzip stream "
                         f"({type(exc).__name__}: {exc})") from None
