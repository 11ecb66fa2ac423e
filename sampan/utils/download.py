"""paddle.utils.download: fetch a file (weights, a data archive) into a cache directory once.

A file already in the cache whose md5 matches is used as is; otherwise it is fetched from an
http(s):// or file:// URL into a temporary file beside the target and renamed into place, so a
reader never sees half a file. Imports only the standard library.
"""
from __future__ import annotations

import logging
import os
import tarfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import PurePosixPath

from .data_files import fetch_atomic, md5file

__all__ = ["get_weights_path_from_url", "get_path_from_url"]

WEIGHTS_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "hapi", "weights"))
DOWNLOAD_RETRY_LIMIT = 3
DOWNLOAD_TIMEOUT_S = 30.0
_logger = logging.getLogger(__name__)


def is_url(path: str) -> bool:
    """Whether ``path`` is a URL this module can fetch (http://, https:// or file://)."""
    return isinstance(path, str) and path.startswith(("http://", "https://", "file://"))


def get_weights_path_from_url(url: str, md5sum: str | None = None) -> str:
    """The local path of the weights file at ``url``, downloaded into WEIGHTS_HOME if needed.

    WEIGHTS_HOME is ``~/.cache/paddle/hapi/weights``, the directory Paddle's model zoo uses.

    Args:
        url (str): where the file is published (http://, https:// or file://).
        md5sum (str|None, optional): the expected md5 hex digest; None skips the check.
            Default: None.

    Returns:
        str: the path of the file in the cache.

    Examples:
        >>> from sampan.utils.download import get_weights_path_from_url
        >>> url = 'https://paddle-hapi.bj.bcebos.com/models/resnet18.pdparams'
        >>> path = get_weights_path_from_url(url)  # doctest: +SKIP
    """
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)


def get_path_from_url(url: str, root_dir: str, md5sum: str | None = None,
                      check_exist: bool = True, decompress: bool = True,
                      method: str = "get") -> str:
    """Download ``url`` into ``root_dir`` (unless an intact copy is there) and return its path.

    Args:
        url (str): where the file is published (http://, https:// or file://).
        root_dir (str): the cache directory; the file keeps the URL's base name.
        md5sum (str|None, optional): the expected md5 hex digest; a cached file that does
            not match is downloaded again. Default: None (not checked).
        check_exist (bool, optional): use a cached file when present. Default: True.
        decompress (bool, optional): unpack a tar or zip archive beside it and return the
            unpacked path. Default: True.
        method (str, optional): the download method; only 'get' here. Default: 'get'.

    Returns:
        str: the local path of the file, or of what the archive unpacked to.

    Examples:
        >>> import os, tempfile
        >>> from sampan.utils.download import get_path_from_url
        >>> src = os.path.join(tempfile.mkdtemp(), 'w.txt')
        >>> _ = open(src, 'w').write('hi')
        >>> cache = tempfile.mkdtemp()
        >>> path = get_path_from_url('file://' + src, cache)
        >>> os.path.basename(path), open(path).read()
        ('w.txt', 'hi')
    """
    if not is_url(url):
        raise ValueError(f"get_path_from_url: url must start with http://, https:// or "
                         f"file://, got {url!r}")
    if method not in ("get", "wget"):
        raise ValueError(f"get_path_from_url: method must be 'get' or 'wget', got {method!r}")
    fullpath = os.path.join(root_dir, _basename(url))
    if not (check_exist and os.path.isfile(fullpath) and _md5check(fullpath, md5sum)):
        _download(url, root_dir, fullpath, md5sum)
    if decompress and (tarfile.is_tarfile(fullpath) or zipfile.is_zipfile(fullpath)):
        fullpath = _decompress(fullpath)
    return fullpath


def _basename(url: str) -> str:
    name = url.split("?")[0].rstrip("/").split("/")[-1]
    if not name:
        raise ValueError(f"get_path_from_url: url {url!r} names no file")
    return name


def _md5check(path: str, md5sum: str | None) -> bool:
    if md5sum is None:
        return True
    actual = md5file(path)
    if actual != md5sum:
        _logger.info("%s: md5 %s, expected %s", path, actual, md5sum)
    return actual == md5sum


def _download(url: str, root_dir: str, fullpath: str, md5sum: str | None) -> None:
    os.makedirs(root_dir, exist_ok=True)
    last = None
    for attempt in range(DOWNLOAD_RETRY_LIMIT):
        if attempt:
            time.sleep(0.2 * attempt)
        try:
            fetch_atomic(url, fullpath, DOWNLOAD_TIMEOUT_S)
        except (OSError, urllib.error.URLError, RuntimeError, ValueError) as exc:
            last = f"{type(exc).__name__}: {exc}"
            if isinstance(exc, urllib.error.HTTPError) and exc.code == 404:
                break
            continue
        if _md5check(fullpath, md5sum):
            return
        last = f"md5 {md5file(fullpath)} of the downloaded file differs from {md5sum}"
    raise RuntimeError(
        f"get_path_from_url: downloading {url} to {fullpath} failed ({last}). Without network "
        f"access, place the file at {fullpath} yourself"
        + (f" (its md5 must be {md5sum})" if md5sum else ""))


def _safe_members(archive: str, names: list) -> None:
    for name in names:
        parts = PurePosixPath(name.replace("\\", "/")).parts
        if name.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
            raise ValueError(f"get_path_from_url: archive {archive} holds an unsafe member "
                             f"path {name!r}")


def _unpacked_path(archive: str, names: list) -> tuple:
    """(what to return, where to extract): Paddle's rule for one file, one top directory,
    or a loose set of files (extracted into a directory named after the archive)."""
    folder = os.path.dirname(archive)
    tops = {n.replace("\\", "/").split("/")[0] for n in names}
    if len(names) == 1 and "/" not in names[0].replace("\\", "/"):
        return os.path.join(folder, names[0]), folder
    if len(tops) == 1:
        return os.path.join(folder, tops.pop()), folder
    stem = os.path.basename(archive)
    for ext in (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip"):
        if stem.endswith(ext):
            stem = stem[:-len(ext)]
            break
    target = os.path.join(folder, stem)
    return target, target


def _decompress(archive: str) -> str:
    if tarfile.is_tarfile(archive):
        with tarfile.open(archive, "r:*") as tar:
            members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]
            names = [m.name for m in members]
            _safe_members(archive, names)
            result, where = _unpacked_path(archive, names)
            os.makedirs(where, exist_ok=True)
            extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(where, members=members, **extra)
        return result
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        _safe_members(archive, names)
        result, where = _unpacked_path(archive, names)
        os.makedirs(where, exist_ok=True)
        zf.extractall(where)
    return result
