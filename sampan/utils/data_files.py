"""Locating dataset files: a user path, the cache (~/.cache/paddle/dataset/<name>/) or a download.

Shared by paddle.vision.datasets and paddle.text.datasets. Downloads use a short timeout and fail
with an error that says which file is expected where and where it normally comes from; a cached
file whose md5 differs is used anyway, with a warning that names both checksums.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.request
import warnings

DOWNLOAD_TIMEOUT_S = 10.0


def data_home() -> str:
    """Paddle's dataset cache directory (paddle.dataset.common.DATA_HOME)."""
    return os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))


def md5file(path: str) -> str:
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _warn_md5(api: str, path: str, md5: str | None) -> None:
    if md5 is None:
        return
    actual = md5file(path)
    if actual != md5:
        warnings.warn(f"{api}: {path} has md5 {actual}, expected {md5} (the published file); "
                      f"using it anyway", stacklevel=3)


def fetch_atomic(url: str, target: str, timeout: float = DOWNLOAD_TIMEOUT_S) -> None:
    """Stream `url` into a temporary file beside `target`, then rename it onto `target` (a
    failed or non-200 download leaves no partial file)."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target) or ".", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
            status = getattr(resp, "status", None)
            if status is not None and status != 200:
                raise RuntimeError(f"HTTP status {status}")
            shutil.copyfileobj(resp, out)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _download(url: str, target: str, api: str, arg: str) -> None:
    os.makedirs(os.path.dirname(target), exist_ok=True)
    try:
        fetch_atomic(url, target)
    except Exception as exc:
        raise FileNotFoundError(
            f"{api}: could not download {url} ({type(exc).__name__}: {exc}). Download it "
            f"yourself and place it at {target}, or pass its path as {arg}=...") from None


def resolve(path: str | None, url: str, md5: str | None, module: str, download: bool,
            api: str, arg: str) -> str:
    """The local path of a dataset file.

    Args:
        path: the user's path (arg=...), or None for the cache.
        url: where the file is published; its basename is the cache file name.
        md5: the published checksum (None: not checked).
        module: the cache sub-directory ('mnist', 'cifar', ...).
        download: try to download into the cache when the file is missing.
        api, arg: the dataset class and its argument name, for messages.
    """
    if path is not None:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{api}: {arg}={path!r} does not exist or is not a file "
                                    f"(the file is published at {url})")
        return path
    target = os.path.join(data_home(), module, url.split("/")[-1])
    if os.path.isfile(target):
        _warn_md5(api, target, md5)
        return target
    if not download:
        raise FileNotFoundError(
            f"{api}: {arg} is not set and {target} does not exist; downloading is disabled "
            f"(download=False). The file is normally downloaded from {url}: place it at "
            f"{target} or pass its path as {arg}=...")
    _download(url, target, api, arg)
    _warn_md5(api, target, md5)
    return target


class TarReader:
    """Members of a tar archive by name, opened lazily once per process (DataLoader workers
    fork after the dataset is built, and a shared file offset would mix their reads)."""

    def __init__(self, path: str, api: str) -> None:
        self.path, self.api = path, api
        self._pid, self._tar, self.members = None, None, None
        try:
            self.members = {m.name: m for m in self._open().getmembers() if m.isfile()}
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise ValueError(f"{api}: {path} is truncated or corrupt: listing its members "
                             f"failed ({type(exc).__name__}: {exc})") from None

    def _open(self) -> tarfile.TarFile:
        if self._pid != os.getpid():
            try:
                self._tar = tarfile.open(self.path)
            except (tarfile.TarError, OSError, EOFError) as exc:
                raise ValueError(f"{self.api}: {self.path} is not a readable tar archive "
                                 f"({type(exc).__name__}: {exc})") from None
            self._pid = os.getpid()
        return self._tar

    def read(self, name: str) -> bytes:
        member = self.members.get(name)
        if member is None:
            raise ValueError(f"{self.api}: {self.path} has no member {name!r}")
        try:
            return self._open().extractfile(member).read()
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise ValueError(f"{self.api}: {self.path} is truncated or corrupt: reading "
                             f"{name!r} failed ({type(exc).__name__}: {exc})") from None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_pid": None, "_tar": None}
