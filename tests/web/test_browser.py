"""examples/web in headless Chromium: the page's probabilities equal onnxruntime's (Python) on
the same .onnx file, its preprocessing equals the quickstart's transform, no uncaught JS error.

The browser is driven over the Chrome DevTools protocol (websocket-client). Needs the system
`chromium`, `npm ci` in examples/web (onnxruntime-web), and the PyPI packages websocket-client,
onnxruntime and scikit-learn; skips naming what is missing. A screenshot of the page is kept
under pytest's tmp dir (its path is printed).
"""
from __future__ import annotations

import base64
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WEB = os.path.join(ROOT, "examples", "web")
MODEL = os.path.join(WEB, "lenet_digits.onnx")
ORT_JS = os.path.join(WEB, "node_modules", "onnxruntime-web", "dist", "ort.wasm.min.js")
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium on PATH (apt-get install -y chromium)")


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".js": "text/javascript",
                      ".wasm": "application/wasm", ".onnx": "application/octet-stream"}

    def log_message(self, *args) -> None:   # quiet
        pass


@pytest.fixture(scope="module")
def server():
    """A static file server for examples/web on 127.0.0.1, on a free port."""
    handler = functools.partial(_Handler, directory=WEB)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)


class DevTools:
    """A minimal Chrome DevTools protocol client over one page's websocket."""

    def __init__(self, ws_url: str) -> None:
        import websocket
        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events = []

    def call(self, method: str, timeout: float = 30.0, **params) -> dict:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.ws.settimeout(max(0.1, deadline - time.monotonic()))
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"DevTools {method}: {msg['error']}")
                return msg["result"]
            if "method" in msg:
                self.events.append(msg)
        raise TimeoutError(f"DevTools {method}: no answer in {timeout} s")

    def evaluate(self, expression: str, timeout: float = 30.0):
        """The JSON value of `expression` (a promise is awaited); a JS exception raises."""
        res = self.call("Runtime.evaluate", timeout=timeout, expression=expression,
                        awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in res:
            details = res["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise RuntimeError(f"JavaScript error in {expression[:60]!r}: {text}")
        return res["result"].get("value")

    def errors(self) -> list:
        """Uncaught exceptions (promise rejections included) and error-level browser log
        entries (failed loads, ...) seen so far."""
        out = []
        for ev in self.events:
            if ev["method"] == "Runtime.exceptionThrown":
                d = ev["params"]["exceptionDetails"]
                out.append(d.get("exception", {}).get("description") or d.get("text"))
            elif ev["method"] == "Log.entryAdded" and ev["params"]["entry"]["level"] == "error":
                out.append(ev["params"]["entry"]["text"])
        return out

    def console_errors(self) -> list:
        """console.error calls (onnxruntime's wasm build prints its warnings there)."""
        return [" ".join(str(a.get("value", a.get("description"))) for a in ev["params"]["args"])
                for ev in self.events
                if ev["method"] == "Runtime.consoleAPICalled" and ev["params"]["type"] == "error"]

    def close(self) -> None:
        self.ws.close()


def _wait_port_file(profile: str, proc: subprocess.Popen, timeout: float = 30.0) -> int:
    path = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"chromium exited with code {proc.returncode}")
        if os.path.exists(path):
            with open(path) as f:
                first = f.readline().strip()
            if first.isdigit():
                return int(first)
        time.sleep(0.1)
    raise TimeoutError(f"chromium wrote no DevToolsActivePort in {timeout} s")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A headless Chromium (own profile, DevTools on a free port); yields its page's client."""
    pytest.importorskip("websocket", reason="needs websocket-client (pip install "
                        "websocket-client) to drive Chromium over the DevTools protocol")
    exe = _browser()
    if not os.path.exists(ORT_JS):
        pytest.skip("examples/web/node_modules is absent: run `npm ci` in examples/web")
    profile = str(tmp_path_factory.mktemp("chromium-profile"))
    args = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--mute-audio",
            "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
            f"--user-data-dir={profile}", "--window-size=900,700", "about:blank"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tools = None
    try:
        port = _wait_port_file(profile, proc)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            pages = [t for t in json.load(r) if t["type"] == "page"]
        tools = DevTools(pages[0]["webSocketDebuggerUrl"])
        for domain in ("Runtime", "Log", "Page"):
            tools.call(f"{domain}.enable")
        yield tools
    finally:
        if tools is not None:
            try:
                tools.call("Browser.close", timeout=5)
            except Exception:   # the browser may close the socket before answering
                pass
            tools.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _digit():
    """(8x8 uint8 pixels, preprocessed 1x28x28 float32, label) of a quickstart test digit."""
    pytest.importorskip("sklearn", reason="needs scikit-learn for the digits data")
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import quickstart
    finally:
        sys.path.pop(0)
    images, labels = quickstart.load_digits()
    _, test_set = quickstart.split(images, labels)
    return test_set.images[0], test_set[0][0].numpy(), int(test_set.labels[0])


def _open(browser, url: str, timeout: float = 30.0) -> float:
    """Navigate; seconds until window.sampanPredict exists and the model has loaded."""
    start = time.monotonic()
    browser.evaluate("window.__previousPage = true")   # tells the old document from the new
    browser.call("Page.navigate", url=url)
    state = None
    while time.monotonic() - start < timeout:
        try:
            state = browser.evaluate("window.__previousPage ? null : [typeof "
                                     "window.sampanPredict, document.getElementById('status')"
                                     " ? document.getElementById('status').textContent : '']")
        except RuntimeError:    # no execution context while the page is being replaced
            state = None
        if state and state[0] == "function" and state[1].startswith("ready"):
            return time.monotonic() - start
        if state and state[1].startswith("could not"):
            break
        time.sleep(0.2)
    raise AssertionError(f"page not ready after {time.monotonic() - start:.0f} s: {state}; "
                         f"errors {browser.errors()}")


def test_page_matches_onnxruntime(server, browser, tmp_path_factory):
    ort = pytest.importorskip("onnxruntime", reason="needs onnxruntime for the reference")
    pixels, sample, label = _digit()
    ready_s = _open(browser, server)

    # the page's preprocessing of the 8x8 digit is the quickstart's transform
    pre = browser.evaluate(f"window.sampanPreprocess({json.dumps(pixels.ravel().tolist())})")
    np.testing.assert_allclose(np.asarray(pre, "float32"), sample.ravel(), atol=1e-6)

    # the page's probabilities are onnxruntime's on the same file
    probs = browser.evaluate(f"window.sampanPredict({json.dumps(sample.ravel().tolist())})")
    sess = ort.InferenceSession(MODEL, providers=["CPUExecutionProvider"])
    ref = sess.run(None, {sess.get_inputs()[0].name: sample[None].astype("float32")})[0][0]
    assert len(probs) == 10
    np.testing.assert_allclose(np.asarray(probs), ref, atol=1e-4, rtol=0)
    assert abs(sum(probs) - 1.0) < 1e-4
    assert int(np.argmax(probs)) == label
    shown = browser.evaluate("document.getElementById('prediction').textContent")
    assert shown == str(label)

    shot = browser.call("Page.captureScreenshot", format="png")["data"]
    path = tmp_path_factory.mktemp("web-artifacts") / "digits_page.png"
    path.write_bytes(base64.b64decode(shot))
    print(f"\nscreenshot: {path} (page ready in {ready_s:.1f} s; "
          f"max |page - onnxruntime| {np.abs(np.asarray(probs) - ref).max():.1e})")
    if browser.console_errors():
        print("console.error:", *browser.console_errors(), sep="\n  ")
    assert browser.errors() == []


def _stroke(browser, points) -> None:
    """Draw one stroke on the page's canvas with mouse events (points in canvas pixels)."""
    left, top = browser.evaluate("(r => [r.left, r.top])("
                                 "document.getElementById('pad').getBoundingClientRect())")
    xy = [(left + x, top + y) for x, y in points]
    mouse = functools.partial(browser.call, "Input.dispatchMouseEvent", button="left")
    mouse(type="mousePressed", x=xy[0][0], y=xy[0][1], buttons=1, clickCount=1)
    for x, y in xy[1:]:
        mouse(type="mouseMoved", x=x, y=y, buttons=1)
    mouse(type="mouseReleased", x=xy[-1][0], y=xy[-1][1], buttons=0, clickCount=1)


def test_drawing_predicts_on_mouse_up(server, browser, tmp_path_factory):
    _open(browser, server)
    seven = [(70, 50), (140, 50), (210, 50), (180, 110), (150, 170), (120, 230)]
    _stroke(browser, seven)
    deadline = time.monotonic() + 10
    shown = ""
    while not shown and time.monotonic() < deadline:
        shown = browser.evaluate("document.getElementById('prediction').textContent")
        time.sleep(0.1)
    rows = browser.evaluate("Array.from(document.querySelectorAll('#probs tr'), "
                            "r => r.cells[1].textContent)")
    assert len(rows) == 10 and abs(sum(map(float, rows)) - 1.0) < 1e-3
    path = tmp_path_factory.mktemp("web-artifacts") / "digits_page_drawn.png"
    path.write_bytes(base64.b64decode(browser.call("Page.captureScreenshot")["data"]))
    print(f"\nscreenshot: {path} (a drawn 7 predicted as {shown})")
    assert shown == "7"
    assert browser.errors() == []


def test_bad_input_rejected(server, browser):
    _open(browser, server)
    with pytest.raises(RuntimeError, match="784 numbers.*got length 3"):
        browser.evaluate("window.sampanPredict([1, 2, 3])")
    with pytest.raises(RuntimeError, match=r"values\[5\] is not a finite number"):
        browser.evaluate("window.sampanPredict(Array(784).fill(0).map((v, i) => "
                         "i === 5 ? NaN : 0))")
    with pytest.raises(RuntimeError, match="64 numbers"):
        browser.evaluate("window.sampanPreprocess([0])")
    assert browser.errors() == []   # rejected calls are not uncaught errors
