"""Run PaddlePaddle's official guides (PaddlePaddle/docs) unchanged on Paddle and on sampan.

A guide page (.md / .rst / .ipynb) is turned into ONE program: its Python code cells in order,
each run in the same namespace behind a marker line, a failing cell reported and the next one
run. Notebook pages also show a cell's last expression, as Jupyter does. The page text is read
at run time (from a local checkout or a git mirror of PaddlePaddle/docs) and stored only under
the output folder, never in this repository.

    P=/work/pdenv/bin/python; R=/work/.mirror/PaddlePaddle+docs/repo
    python tools/run_paddle_guides.py extract --repo $R --out /tmp/s6 docs/guides/beginner/tensor_cn.md ...
    python tools/run_paddle_guides.py run --out /tmp/s6 [--only NAME] [--limit 600]
    python tools/run_paddle_guides.py compare --out /tmp/s6 [--md /tmp/s6/report.md]

`run` starts each page under Paddle (`--paddle`, default /work/pdenv/bin/python) and under
sampan (`python -m sampan` with this checkout on PYTHONPATH), in a fresh temporary folder.
`compare` compares each cell's stdout with run_paddle_docs' rules (numbers within rtol 1e-3 /
atol 1e-5; spacing ignored; once a cell draws random numbers, later cells are compared by
their text skeleton only: `random`, or `random-format` when even the text differs, which is
shown but not counted) and classifies each page by its first differing cell: `error` (sampan
raised where Paddle did not), `format`, `values`, `timeout`/`missing`; `paddle-error` cells
(Paddle itself failed: GPU-only code, typos in the page, missing downloads) do not count.
Wall-clock figures (`12ms/step`, `ETA`), the progress bar's backspaces and each run's
temporary folder are normalised away; cells printing `paddle.__version__` are `version`.

There is no internet. Both sides get the same substitutes (the PRELUDE and EDITS below):
  * vision.datasets.MNIST / FashionMNIST / Cifar10 / Cifar100 read tiny synthetic files written
    in the real formats (idx-ubyte.gz, cifar python tar.gz): the classes' own readers run,
    only their default file paths are filled in (pages: every page that builds these sets);
  * ./mnist/{train,val}/ PNG folders with label.txt (beginner/data_load, the guides' own
    Dataset examples over the downloaded mnist.tar);
  * text.UCIHousing / text.Imdb read a small housing.data / aclImdb_v1.tar.gz in their
    formats; ./t8.shakespeare.txt (nlp/n_gram_model) and ./ml-latest-small/*.csv
    (recommendations/collaborative_filtering), ./cmn.txt (nlp/seq2seq_with_attention),
    ./glove.6B.100d.txt (nlp/pretrained_word_embeddings), ./jena_climate_2009_2016.csv
    (time_series/temperature_forecast, 4000 rows), ./data/data60/{training,test}.csv
    (cv/landmark_detection, 40 + 10 faces) and ./data/OCR_Dataset + ./sample_img
    (cv/image_ocr, 1088 4-digit 70x30 jpgs), dataset/shapenet (cv/pc_segmentation, 20 clouds;
    these three only for pages naming them) are small synthetic stand-ins;
  * `pretrained=True` becomes `pretrained=False` (no weights to download);
  * epoch counts (`epochs=5`, `EPOCH_NUM = 10`, ...) become 1; `!`/`%` shell lines are dropped;
  * data_parallel/amp_cn trains 2 batches of 256-wide layers (`nums_batch`, `input_size`);
  * matplotlib draws to the Agg backend and `plt.show()` does nothing.
Standard library only (plus the program's own imports when it runs).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_paddle_docs import RANDOM_CODE, _close, _split  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = "@@CELL@@"
ERR = "@@ERROR@@"
INTERACTIVE = "#@@interactive"
WORKDIR = re.compile(r"/tmp/s6_(?:paddle|sampan)_\w+")  # each run's own temporary folder
TIMING = re.compile(r"\d+(?:\.\d+)?(?:us|ms|s)/(?:step|sample)|ETA: [\d:]+s?")  # wall clock
EDITS = [  # (pattern, replacement, why), applied to every cell on both sides
    (re.compile(r"^\s*[!%].*$", re.M), "", "shell / magic lines"),
    (re.compile(r"\bpretrained\s*=\s*True"), "pretrained=False", "no weights offline"),
    (re.compile(r"\b([A-Za-z_]*(?:epoch|EPOCH)[A-Za-z_]*)(\s*=\s*)\d+\b"),
     r"\g<1>\g<2>1", "one epoch"),
    (re.compile(r"\b(nums_batch\s*=\s*)\d+"), r"\g<1>2", "two batches (data_parallel/amp)"),
    (re.compile(r"\b((?:input|output)_size\s*=\s*)4096\b"), r"\g<1>256",
     "256-wide layers, not 4096 (data_parallel/amp)"),
]


# --- extract ------------------------------------------------------------------------------
def _fenced(text: str) -> list[str]:
    """Python blocks of a markdown page: ``` fences tagged python (or untagged with code)."""
    cells = []
    for m in re.finditer(r"^( *)```\s*(\w*)[^\n]*\n(.*?)^\1```", text, re.M | re.S):
        if m.group(2).lower() in ("python", "py", "python3"):
            cells.append(_undent(m.group(3), len(m.group(1))))
    return cells


def _rst(text: str) -> list[str]:
    """Python blocks of an rst page: `.. code-block:: python` bodies (indented paragraphs)."""
    cells, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if not re.match(r"\s*\.\. code(-block)?::\s*(python|py|python3|ipython3?)\s*$", line):
            continue
        base, body = len(line) - len(line.lstrip()), []
        for nxt in lines[i + 1:]:
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= base:
                break
            body.append(nxt)
        code = "\n".join(b for b in body if not b.strip().startswith(":"))
        cells.append(_undent(code, 0))
    return cells


def _notebook(text: str) -> list[str]:
    nb = json.loads(text)
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in nb.get("cells", []) if c.get("cell_type") == "code"]


def _doctest(code: str) -> str:
    """`>>>` / `...` prompt lines of a doctest-style block (outputs dropped), behind a marker
    that makes the runner echo every expression statement, as the interactive prompt does."""
    lines = [ln.strip()[4:] for ln in code.splitlines()
             if ln.strip().startswith((">>>", "...")) and not ln.strip().startswith("....")]
    return INTERACTIVE + "\n" + "\n".join(lines) + "\n"


def _undent(code: str, _n: int) -> str:
    import textwrap
    return textwrap.dedent(code).strip("\n") + "\n"


def _read(repo: str | None, page: str) -> str:
    if os.path.exists(page):
        return open(page, encoding="utf-8").read()
    return subprocess.run(["git", f"--git-dir={repo}", "show", f"HEAD:{page}"], check=True,
                          capture_output=True, text=True).stdout


def cells_of(page: str, text: str) -> list[str]:
    kind = os.path.splitext(page)[1]
    raw = _notebook(text) if kind == ".ipynb" else _rst(text) if kind == ".rst" else _fenced(text)
    out = []
    for code in raw:
        if re.search(r"^\s*>>> ", code, re.M):
            code = _doctest(code)
        for pat, rep, _ in EDITS:
            code = pat.sub(rep, code)
        if code.strip():
            out.append(code)
    return out


def page_name(page: str) -> str:
    parts = os.path.splitext(page)[0].split("/")
    return "_".join(parts[-2:])


def extract(repo: str | None, pages: list[str], out: str) -> None:
    os.makedirs(out, exist_ok=True)
    index = _load_index(out)
    for page in pages:
        text = _read(repo, page)
        cells = cells_of(page, text)
        name = page_name(page)
        notebook = page.endswith(".ipynb") or ".. code:: ipython" in text  # nbconvert'ed rst
        index[name] = {"page": page, "cells": cells, "notebook": notebook}
        print(f"{name}: {len(cells)} cells")
    json.dump(index, open(os.path.join(out, "pages.json"), "w"), indent=1, ensure_ascii=False)


def _load_index(out: str) -> dict:
    path = os.path.join(out, "pages.json")
    return json.load(open(path)) if os.path.exists(path) else {}


# --- the program each page becomes -------------------------------------------------------
PRELUDE = r'''
import ast as _ast, gzip as _gzip, io as _io, os as _os, pickle as _pickle, struct as _struct
import linecache, sys as _sys, tarfile as _tarfile, time as _time, traceback as _tb
_os.environ.setdefault("MPLBACKEND", "Agg")
import numpy as _np
_DATA = _os.path.abspath("_s6data")
_os.makedirs(_DATA, exist_ok=True)

def _s6_images(n, shape, classes, seed):
    rng = _np.random.RandomState(seed)
    labels = _np.arange(n) % classes
    imgs = rng.randint(0, 60, (n,) + shape).astype(_np.uint8)
    for i, lab in enumerate(labels):  # a class-dependent bright band: learnable
        imgs[i, 2 + 2 * lab: 4 + 2 * lab] = 250
    return imgs, labels

def _s6_idx(path, arr):
    head = _struct.pack(">I", 2049 if arr.ndim == 1 else 2051)
    head += b"".join(_struct.pack(">I", d) for d in arr.shape)
    with _gzip.open(path, "wb") as f:
        f.write(head + arr.astype(_np.uint8).tobytes())

def _s6_mnist(prefix):
    for mode, n, seed in (("train", 200, 1), ("t10k", 100, 2)):  # Paddle reads by 100
        imgs, labels = _s6_images(n, (28, 28), 10, seed)
        _s6_idx(f"{_DATA}/{prefix}-{mode}-images-idx3-ubyte.gz", imgs)
        _s6_idx(f"{_DATA}/{prefix}-{mode}-labels-idx1-ubyte.gz", labels)

def _s6_mnist_folder():
    """./mnist/{train,val}/<i>.png + label.txt (`path<TAB>label`): the folder the guides
    download as mnist.tar for their own Dataset examples."""
    from PIL import Image
    for part, seed in (("train", 3), ("val", 4)):
        _os.makedirs(f"mnist/{part}/imgs", exist_ok=True)
        imgs, labels = _s6_images(20, (28, 28), 10, seed)
        with open(f"mnist/{part}/label.txt", "w") as f:
            for i, (img, lab) in enumerate(zip(imgs, labels)):
                Image.fromarray(img).save(f"mnist/{part}/imgs/{i}.png")
                f.write(f"imgs/{i}.png\t{lab}\n")

def _s6_text_files():
    """Small local stand-ins for files the practices download by hand: ./t8.shakespeare.txt
    (nlp/n_gram_model) and ./ml-latest-small/{ratings,movies}.csv (recommendations)."""
    rng = _np.random.RandomState(5)
    words = "the king and queen of love shall speak to thee my lord now what is this".split()
    with open("t8.shakespeare.txt", "w") as f:
        for _ in range(60):
            f.write(" ".join(rng.choice(words, 12)) + ".\n")
    _os.makedirs("ml-latest-small", exist_ok=True)
    with open("ml-latest-small/ratings.csv", "w") as f:
        f.write("userId,movieId,rating,timestamp\n")
        for k in range(300):
            f.write(f"{k % 20 + 1},{rng.randint(1, 31)},{rng.randint(1, 11) / 2},{964982703 + k}\n")
    with open("ml-latest-small/movies.csv", "w") as f:
        f.write("movieId,title,genres\n")
        for m in range(1, 31):
            f.write(f"{m},Movie {m} (1995),Comedy|Drama\n")

def _t3_text_files():
    """Stand-ins for files three practices read by hand: ./cmn.txt (nlp/seq2seq_with_attention:
    `English<TAB>Chinese<TAB>attribution` lines), ./glove.6B.100d.txt (nlp/pretrained_word_
    embeddings: `word v1 .. v100`, the Imdb stand-in's words included) and
    ./jena_climate_2009_2016.csv (time_series/temperature_forecast: 4000 rows, its 15 columns)."""
    rng = _np.random.RandomState(8)
    subj = ["i", "you", "he", "she", "we", "they"]
    verbs = ["run", "eat", "see it", "like tea", "go home", "are here", "work"]
    cn = "我你他她我们他们跑吃看喜欢茶回家在这里工作"
    with open("cmn.txt", "w", encoding="utf-8") as f:
        for k in range(200):
            en = f"{subj[k % 6].capitalize()} {verbs[rng.randint(len(verbs))]}."
            zh = "".join(rng.choice(list(cn), rng.randint(2, 8))) + "。"
            f.write(f"{en}\t{zh}\tCC-BY 2.0 (France) Attribution: tatoeba.org #{k}\n")
    words = ("the good bad movie film great awful plot actor story fun boring , . a of and to "
             "is in it").split()
    with open("glove.6B.100d.txt", "w", encoding="utf-8") as f:
        for w in words:
            f.write(w + " " + " ".join(f"{v:.6f}" for v in rng.randn(100) * 0.5) + "\n")
    keys = ["p (mbar)", "T (degC)", "Tpot (K)", "Tdew (degC)", "rh (%)", "VPmax (mbar)",
            "VPact (mbar)", "VPdef (mbar)", "sh (g/kg)", "H2OC (mmol/mol)", "rho (g/m**3)",
            "wv (m/s)", "max. wv (m/s)", "wd (deg)"]
    n = 4000  # the eval split then fills one batch of 128
    t = _np.arange(n)
    base = _np.sin(t / 144.0 * 2 * _np.pi)[:, None] * (1 + _np.arange(14))[None] * 0.5
    vals = base + rng.randn(n, 14) * 0.3 + _np.arange(14)[None] * 10
    with open("jena_climate_2009_2016.csv", "w") as f:
        f.write('"Date Time",' + ",".join(f'"{k}"' for k in keys) + "\n")
        for i in range(n):
            stamp = f"{1 + i // 144 % 28:02d}.01.2009 {i % 144 // 6:02d}:{i % 6 * 10:02d}:00"
            f.write(stamp + "," + ",".join(f"{v:.2f}" for v in vals[i]) + "\n")

def _t3_faces():
    """./data/data60/{training,test}.csv in the Kaggle facial-keypoints layout (30 keypoint
    columns + `Image`, 96x96 space-separated pixels; test: ImageId, Image):
    cv/landmark_detection."""
    rng = _np.random.RandomState(9)
    _os.makedirs("data/data60", exist_ok=True)
    cols = [f"kp{k // 2}_{'xy'[k % 2]}" for k in range(30)]
    pix = lambda: " ".join(map(str, rng.randint(0, 256, 96 * 96)))  # noqa: E731
    with open("data/data60/training.csv", "w") as f:
        f.write(",".join(cols) + ",Image\n")
        for _ in range(40):
            f.write(",".join(f"{v:.4f}" for v in rng.uniform(20, 76, 30)) + f",{pix()}\n")
    with open("data/data60/test.csv", "w") as f:
        f.write("ImageId,Image\n")
        for i in range(10):
            f.write(f"{i + 1},{pix()}\n")

def _t3_ocr():
    """./data/OCR_Dataset/{<i>.jpg, label_dict.txt} (1088 RGB 70x30 captchas of 4 digits, the
    last 1024 the validation split) and ./sample_img/ (3 of them): cv/image_ocr."""
    from PIL import Image
    rng = _np.random.RandomState(10)
    _os.makedirs("data/OCR_Dataset", exist_ok=True)
    _os.makedirs("sample_img", exist_ok=True)
    labels = {}
    for i in range(1088):
        digits = "".join(map(str, rng.randint(0, 10, 4)))
        img = _np.full((30, 70, 3), 255, _np.uint8)
        for j, d in enumerate(digits):  # one dark bar per digit, its height the digit
            img[3 * int(d):, 5 + 16 * j: 12 + 16 * j] = 20
        Image.fromarray(img).save(f"data/OCR_Dataset/{i}.jpg")
        labels[f"{i}.jpg"] = digits
        if i < 3:
            Image.fromarray(img).save(f"sample_img/{i}.jpg")
    with open("data/OCR_Dataset/label_dict.txt", "w", encoding="utf-8") as f:
        f.write(repr(labels))

def _t3_shapenet():
    """dataset/shapenet/train_{data,label}/Airplane/0000NN.{pts,seg}: 20 clouds of 1100 points
    (x y z lines) with part labels 1..4 (cv/pc_segmentation)."""
    rng = _np.random.RandomState(11)
    for sub in ("train_data", "train_label"):
        _os.makedirs(f"dataset/shapenet/{sub}/Airplane", exist_ok=True)
    for k in range(40, 60):
        pts = rng.randn(1100, 3)
        seg = 1 + (pts[:, 0] > 0) + 2 * (pts[:, 2] > 0)
        _np.savetxt(f"dataset/shapenet/train_data/Airplane/{k:06d}.pts", pts, fmt="%.5f")
        _np.savetxt(f"dataset/shapenet/train_label/Airplane/{k:06d}.seg", seg, fmt="%d")

def _s6_uci():
    rows = _np.random.RandomState(6).rand(60, 14) * 10
    path = f"{_DATA}/housing.data"
    with open(path, "w") as f:
        for r in rows:
            f.write(" ".join(f"{v:.4f}" for v in r) + "\n")
    import shutil
    shutil.copy(path, "housing.data")  # quick_start/linear_regression reads ./housing.data
    return path

def _s6_imdb():
    """aclImdb_v1.tar.gz layout, words repeated enough to pass Imdb's cutoff of 150."""
    path = f"{_DATA}/aclImdb_v1.tar.gz"
    rng = _np.random.RandomState(7)
    words = "good bad movie film great awful plot actor story fun boring".split()
    with _tarfile.open(path, "w:gz") as tar:
        for part in ("train", "test"):
            for lab in ("pos", "neg"):
                for k in range(20):
                    blob = (" ".join(rng.choice(words, 120)) + ".").encode()
                    info = _tarfile.TarInfo(f"aclImdb/{part}/{lab}/{k}_7.txt")
                    info.size = len(blob)
                    tar.addfile(info, _io.BytesIO(blob))
    return path

def _s6_cifar(classes):
    path = f"{_DATA}/cifar-{classes}-python.tar.gz"
    key = "labels" if classes == 10 else "fine_labels"
    with _tarfile.open(path, "w:gz") as tar:
        names = ["data_batch_1", "test_batch"] if classes == 10 else ["train", "test"]
        for j, name in enumerate(names):
            imgs, labels = _s6_images(128, (32, 32, 3), classes, 10 + j)
            blob = _pickle.dumps({b"data": imgs.transpose(0, 3, 1, 2).reshape(128, -1),
                                  key.encode(): list(map(int, labels))})
            info = _tarfile.TarInfo(f"cifar-{classes}-batches-py/{name}")
            info.size = len(blob)
            tar.addfile(info, _io.BytesIO(blob))
    return path

def _s6_fill(cls, fill):
    import inspect
    import functools
    orig = cls.__init__
    sig = inspect.signature(orig)  # through functools.wraps: a subclass patched after its base
    @functools.wraps(orig)
    def __init__(self, *a, **kw):
        b = sig.bind(self, *a, **kw)
        b.apply_defaults()
        fill(b.arguments)
        b.arguments["download"] = False
        orig(*b.args, **b.kwargs)
    cls.__init__ = __init__

def _s6_patch():
    import paddle.vision.datasets as D
    _s6_mnist("mnist"); _s6_mnist("fashion"); _s6_mnist_folder()
    c10, c100 = _s6_cifar(10), _s6_cifar(100)
    def mnist(prefix):
        def fill(a):
            m = "train" if a.get("mode", "train") == "train" else "t10k"
            a["image_path"] = a["image_path"] or f"{_DATA}/{prefix}-{m}-images-idx3-ubyte.gz"
            a["label_path"] = a["label_path"] or f"{_DATA}/{prefix}-{m}-labels-idx1-ubyte.gz"
        return fill
    _s6_fill(D.MNIST, mnist("mnist"))
    _s6_fill(D.FashionMNIST, mnist("fashion"))
    _s6_fill(D.Cifar10, lambda a: a.update(data_file=a["data_file"] or c10))
    _s6_fill(D.Cifar100, lambda a: a.update(data_file=a["data_file"] or c100))
    import paddle.text as _T
    uci, imdb = _s6_uci(), _s6_imdb()
    _s6_fill(_T.UCIHousing, lambda a: a.update(data_file=a["data_file"] or uci))
    _s6_fill(_T.Imdb, lambda a: a.update(data_file=a["data_file"] or imdb))
    _s6_text_files()
    _t3_text_files()
    try:
        import matplotlib.pyplot as plt
        plt.show = lambda *a, **k: None
    except ImportError:
        pass

# written only for pages that name them
_LAZY = {"data60": _t3_faces, "OCR_Dataset": _t3_ocr, "shapenet": _t3_shapenet}

def _s6_run(cells, notebook):
    for key, write in _LAZY.items():
        if any(key in code for code in cells):
            write()
    ns = {"__name__": "__main__"}
    for i, code in enumerate(cells):
        print(f"\n@@CELL@@{i}", flush=True)
        t0 = _time.time()
        fname = f"<cell {i}>"  # in linecache: inspect.getsource works (to_static needs it)
        linecache.cache[fname] = (len(code), None, code.splitlines(True), fname)
        try:
            tree = _ast.parse(code, fname)
            echo = code.startswith("#@@interactive")  # a doctest block: echo every expression
            if echo:
                ns.setdefault("paddle", __import__("paddle"))
                parts = tree.body
            else:  # a script cell: one block, then (notebooks) the last expression's value
                parts = [_ast.Module(tree.body[:-1], [])] + tree.body[-1:] if tree.body else []
                echo = notebook
            for node in parts:
                if isinstance(node, _ast.Expr) and echo:
                    val = eval(compile(_ast.Expression(node.value), fname, "eval"), ns)
                    if val is not None:
                        print(repr(val))
                else:
                    body = node if isinstance(node, _ast.Module) else _ast.Module([node], [])
                    exec(compile(body, fname, "exec"), ns)
        except BaseException as e:  # noqa: BLE001 - the outcome is the record
            msg = str(e).splitlines()[0] if str(e) else ""
            print(f"\n@@ERROR@@{type(e).__name__}: {msg}"[:400], flush=True)
            _tb.print_exc()
        _sys.stdout.flush()
        _sys.stderr.write(f"@@CELLTIME@@ {i} {_time.time() - t0:.1f}\n")

_s6_patch()
'''


def program(entry: dict) -> str:
    return PRELUDE + f"_s6_run({entry['cells']!r}, {entry['notebook']!r})\n"


# --- run ---------------------------------------------------------------------------------
def run_page(lib: str, name: str, entry: dict, out: str, limit: float, paddle: str) -> dict:
    work = tempfile.mkdtemp(prefix=f"s6_{lib}_{name}_")
    src = os.path.join(out, f"{name}.py")
    with open(src, "w") as f:
        f.write(program(entry))
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")
    if lib == "paddle":
        cmd = [paddle, src]
    else:
        cmd = [sys.executable, "-m", "sampan", src]
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                           timeout=limit, errors="replace")
        stdout, stderr, status = p.stdout, p.stderr, f"exit {p.returncode}"
    except subprocess.TimeoutExpired as e:
        stdout = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) \
            else (e.stdout or "")
        stderr, status = "", "timeout"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    times = [float(t) for t in re.findall(r"@@CELLTIME@@ \d+ ([\d.]+)", stderr)]
    return {"status": status, "seconds": round(time.monotonic() - t0, 1),
            "cells": _cells_out(stdout), "cell_seconds": times, "stderr": stderr[-6000:]}


def _cells_out(stdout: str) -> list[str]:
    return stdout.split("\n" + MARK)[1:] if MARK in stdout else []


def run(out: str, libs: list[str], only: str | None, limit: float, paddle: str) -> None:
    index = _load_index(out)
    for name, entry in index.items():
        if only and not any(name.startswith(o) for o in only.split(",")):
            continue
        for lib in libs:
            res = run_page(lib, name, entry, out, limit, paddle)
            json.dump(res, open(os.path.join(out, f"{name}.{lib}.json"), "w"), indent=0)
            errs = sum(ERR in c for c in res["cells"])
            print(f"{name:40s} {lib:7s} {res['status']:8s} {res['seconds']:7.1f}s "
                  f"{len(res['cells'])}/{len(entry['cells'])} cells, {errs} raised", flush=True)


# --- compare -----------------------------------------------------------------------------
def _strip(cell: str) -> str:
    """A cell's output without its index line and traceback text."""
    body = cell.split("\n", 1)[1] if "\n" in cell else ""
    # Paddle's bar redraws with backspaces even into a pipe; sampan writes clean lines there
    body = WORKDIR.sub("CWD", body.split("\n" + ERR)[0].replace("\b", ""))
    return TIMING.sub("#", body)


def _error(cell: str) -> str | None:
    return cell.split(ERR, 1)[1].splitlines()[0] if ERR in cell else None


def compare_cell(code_so_far: str, pd: str, sp: str, code: str = "") -> str:
    pe, se = _error(pd), _error(sp)
    if pe or se:
        if pe and se and pe.split(":")[0] == se.split(":")[0]:
            return "ok"
        return "paddle-error" if pe else "error"
    (kp, np_), (ks, ns) = _split(_strip(pd)), _split(_strip(sp))
    if kp == ks and _close(np_, ns):
        return "ok"
    if "__version__" in code:  # sampan's own version number is printed: not a difference
        return "version" if kp == ks else "format"
    if RANDOM_CODE.search(code_so_far) or re.search(r"\b(fit|train|step)\b", code_so_far):
        return "random" if kp == ks else "random-format"
    return "values" if kp == ks else "format"


def compare_page(entry: dict, pd: dict, sp: dict) -> tuple[str, list[tuple[int, str]]]:
    rows, code = [], ""
    for i, cell in enumerate(entry["cells"]):
        code += cell
        if i >= len(pd["cells"]):
            rows.append((i, "paddle-missing"))
            continue
        if i >= len(sp["cells"]):
            rows.append((i, "timeout" if sp["status"] == "timeout" else "missing"))
            continue
        rows.append((i, compare_cell(code, pd["cells"][i], sp["cells"][i], cell)))
    bad = [c for _, c in rows if c in ("error", "format", "values", "timeout", "missing")]
    return (bad[0] if bad else "ok"), rows


def compare(out: str, md: str | None) -> None:
    index, lines, summary = _load_index(out), [], []
    for name, entry in index.items():
        try:
            pd = json.load(open(os.path.join(out, f"{name}.paddle.json")))
            sp = json.load(open(os.path.join(out, f"{name}.sampan.json")))
        except FileNotFoundError:
            continue
        verdict, rows = compare_page(entry, pd, sp)
        counts = {}
        for _, c in rows:
            counts[c] = counts.get(c, 0) + 1
        summary.append(f"{name:40s} {verdict:8s} {counts}  (paddle {pd['seconds']}s, "
                       f"sampan {sp['seconds']}s)")
        lines += _details(name, entry, pd, sp, rows)
    print("\n".join(summary))
    if md:
        with open(md, "w") as f:
            f.write("# Paddle guides on sampan\n\n```\n" + "\n".join(summary) + "\n```\n")
            f.write("\n".join(lines))


def _details(name, entry, pd, sp, rows) -> list[str]:
    out = [f"\n## {name} ({entry['page']})\n"]
    for i, c in rows:
        if c in ("ok", "random", "version", "paddle-error", "paddle-missing"):
            continue
        out.append(f"### cell {i}: {c}\n```python\n{entry['cells'][i][:3000]}```")
        get = lambda r: r["cells"][i][:3000] if i < len(r["cells"]) else "(none)"  # noqa: E731
        out.append(f"paddle:\n```\n{get(pd)}\n```\nsampan:\n```\n{get(sp)}\n```")
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("pages", nargs="+")
    e.add_argument("--repo", help="git dir of PaddlePaddle/docs (pages not found on disk)")
    r = sub.add_parser("run")
    r.add_argument("--only", help="comma-separated page-name prefixes")
    r.add_argument("--lib", choices=("paddle", "sampan", "both"), default="both")
    r.add_argument("--limit", type=float, default=600.0)
    r.add_argument("--paddle", default="/work/pdenv/bin/python")
    c = sub.add_parser("compare")
    c.add_argument("--md")
    for p in (e, r, c):
        p.add_argument("--out", default="/tmp/s6")
    a = ap.parse_args(argv)
    if a.cmd == "extract":
        extract(a.repo, a.pages, a.out)
    elif a.cmd == "run":
        libs = ["paddle", "sampan"] if a.lib == "both" else [a.lib]
        run(a.out, libs, a.only, a.limit, a.paddle)
    else:
        compare(a.out, a.md)


if __name__ == "__main__":
    main()
