"""paddle.utils.download: cache hits, md5 checks, atomic writes, archives, a local HTTP server
on 127.0.0.1 and the error for an unreachable URL."""
import functools
import hashlib
import http.server
import os
import tarfile
import threading
import zipfile

import pytest

import sampan as paddle
from sampan.utils import download


def _md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


@pytest.fixture
def served(tmp_path):
    """A bounded HTTP server on 127.0.0.1 serving tmp_path/www; yields (base url, folder, log)."""
    www = tmp_path / "www"
    www.mkdir()
    log = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, fmt, *args):
            log.append(self.path)

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(www)))
    server.timeout = 5
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", www, log
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_public_names():
    assert paddle.utils.download.get_weights_path_from_url is download.get_weights_path_from_url
    assert callable(paddle.utils.download.get_path_from_url)


def test_http_download_then_cache_hit(served, tmp_path):
    base, www, log = served
    data = b"weights" * 1000
    (www / "w.pdparams").write_bytes(data)
    cache = tmp_path / "cache"
    path = download.get_path_from_url(base + "/w.pdparams", str(cache), _md5(data))
    assert path == str(cache / "w.pdparams")
    assert open(path, "rb").read() == data
    assert len(log) == 1
    # second call: the cached copy is intact, nothing is fetched
    assert download.get_path_from_url(base + "/w.pdparams", str(cache), _md5(data)) == path
    assert len(log) == 1
    assert [p.name for p in cache.iterdir()] == ["w.pdparams"]  # no temporary files left


def test_stale_cache_is_refetched(served, tmp_path):
    base, www, log = served
    data = b"new content"
    (www / "w.bin").write_bytes(data)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "w.bin").write_bytes(b"corrupt")
    path = download.get_path_from_url(base + "/w.bin", str(cache), _md5(data))
    assert open(path, "rb").read() == data and len(log) == 1


def test_md5_mismatch_after_download_raises(served, tmp_path):
    base, www, _ = served
    (www / "w.bin").write_bytes(b"abc")
    cache = tmp_path / "cache"
    with pytest.raises(RuntimeError, match=r"w\.bin.*md5"):
        download.get_path_from_url(base + "/w.bin", str(cache), "0" * 32)


def test_missing_file_error_names_url_and_cache(served, tmp_path):
    base, _, _ = served
    cache = tmp_path / "cache"
    with pytest.raises(RuntimeError) as info:
        download.get_path_from_url(base + "/nothere.pdparams", str(cache))
    msg = str(info.value)
    assert base + "/nothere.pdparams" in msg and str(cache / "nothere.pdparams") in msg
    assert not (cache / "nothere.pdparams").exists()
    assert list(cache.iterdir()) == []  # the failed temporary file is removed


def test_unreachable_host_error(tmp_path, monkeypatch):
    monkeypatch.setattr(download, "DOWNLOAD_TIMEOUT_S", 2.0)
    monkeypatch.setattr(download, "DOWNLOAD_RETRY_LIMIT", 1)
    # port 9 on localhost: nothing listens, the connection is refused at once
    with pytest.raises(RuntimeError, match=r"http://127\.0\.0\.1:9/m\.pdparams.*m\.pdparams"):
        download.get_path_from_url("http://127.0.0.1:9/m.pdparams", str(tmp_path))


def test_file_url_and_weights_home(tmp_path, monkeypatch):
    src = tmp_path / "model.pdparams"
    src.write_bytes(b"\x00\x01\x02")
    home = tmp_path / "weights"
    monkeypatch.setattr(download, "WEIGHTS_HOME", str(home))
    path = download.get_weights_path_from_url("file://" + str(src), _md5(b"\x00\x01\x02"))
    assert path == str(home / "model.pdparams") and open(path, "rb").read() == b"\x00\x01\x02"
    # an already-cached file needs no source at all
    src.unlink()
    assert download.get_weights_path_from_url("file://" + str(src)) == path


def test_not_a_url():
    with pytest.raises(ValueError, match="get_path_from_url: url"):
        download.get_path_from_url("/tmp/x.pdparams", "/tmp")


def test_tar_with_one_directory(tmp_path):
    folder = tmp_path / "src" / "data"
    folder.mkdir(parents=True)
    (folder / "a.txt").write_text("A")
    (folder / "b.txt").write_text("B")
    archive = tmp_path / "data.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="data")
    cache = tmp_path / "cache"
    path = download.get_path_from_url("file://" + str(archive), str(cache))
    assert path == str(cache / "data")
    assert sorted(os.listdir(path)) == ["a.txt", "b.txt"]
    raw = download.get_path_from_url("file://" + str(archive), str(cache), decompress=False)
    assert raw == str(cache / "data.tar.gz")


def test_zip_of_loose_files(tmp_path):
    archive = tmp_path / "pack.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("x.txt", "X")
        zf.writestr("y.txt", "Y")
    cache = tmp_path / "cache"
    path = download.get_path_from_url("file://" + str(archive), str(cache))
    assert path == str(cache / "pack")
    assert open(os.path.join(path, "y.txt")).read() == "Y"


def test_unsafe_archive_member_refused(tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../escape.txt", "bad")
    with pytest.raises(ValueError, match="unsafe member"):
        download.get_path_from_url("file://" + str(archive), str(tmp_path / "cache"))
    assert not (tmp_path / "escape.txt").exists()
