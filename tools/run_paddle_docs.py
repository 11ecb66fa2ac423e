"""Run the code examples of PaddlePaddle's own docstrings on sampan and on Paddle, and compare.

Paddle's docstrings carry doctest-style examples (`>>> x = paddle.to_tensor(...)`). This tool
takes them from an installed Paddle (the examples are Paddle's text: they are read from that
installation at run time and never stored in this repository), runs every example under both
frameworks, and compares what each printed.

    P=/work/pdenv/bin/python
    $P tools/run_paddle_docs.py extract --api ../shared/api/paddle-2.6.2-api.json --out /tmp/docs.json
    $P tools/run_paddle_docs.py run --lib paddle --examples /tmp/docs.json --out /tmp/pd.json
    PYTHONPATH=. python tools/run_paddle_docs.py run --lib sampan --examples /tmp/docs.json --out /tmp/sp.json
    python tools/run_paddle_docs.py compare /tmp/pd.json /tmp/sp.json --md /tmp/docs.md

`run` imports the framework once and forks one child per example (fresh state, own temporary
working directory, a time limit); `--only PREFIX` limits it to names starting with PREFIX.
`compare` classifies each example: `ok` (same output, numbers within rtol 1e-3 / atol 1e-5),
`random` (output depends on random draws; only the text around the numbers is compared),
`values`, `format`, `error` (sampan raised where Paddle did not), `raises-differently`,
`timeout`, `paddle-error` (Paddle itself failed; not counted).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import select
import signal
import sys
import tempfile
import time

SKIP_DIRECTIVE = re.compile(r"doctest:\s*\+(SKIP|REQUIRES\(env:\s*(GPU|XPU|DISTRIBUTED|CUSTOM|IPU))")
RANDOM_CODE = re.compile(
    r"\b(rand|randn|randint|randint_like|randperm|uniform|uniform_|normal|normal_|"
    r"standard_normal|bernoulli|bernoulli_|multinomial|poisson|gumbel_softmax|dropout\w*|"
    r"shuffle|sample|rsample|exponential_|cauchy_|geometric_|log_normal\w*|random\w*|"
    r"Random\w+|\w*[Dd]ropout\w*|initializer|create_parameter|Uniform|Normal|"
    r"nn\.[A-Z]\w*|static\.nn\.\w+|vision\.models\.\w+|Model)\s*\(")
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:nan|inf)\b")
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


# --- extract (runs under real Paddle) ----------------------------------------------------
def _examples(doc: str) -> list[str]:
    """The doctest-style code blocks of one docstring, prompts stripped, outputs dropped. A
    block ends at the next `.. code-block` or at a line indented less than its prompts."""
    blocks, cur, skip, indent = [], [], False, 0
    for line in doc.splitlines() + [".. code-block::"]:
        s = line.strip()
        ind = len(line) - len(line.lstrip())
        if s.startswith(">>>") or (cur and s.startswith("...")):
            if not cur:
                indent = ind
            code = s[4:] if len(s) > 3 else ""
            skip = skip or bool(SKIP_DIRECTIVE.search(code))
            cur.append(code)
        elif cur and (s.startswith(".. code-block") or (s and ind < indent)):
            if not skip:
                blocks.append(_dedent("\n".join(cur)))
            cur, skip = [], False
    return blocks


def _dedent(code: str) -> str:
    import textwrap
    return textwrap.dedent(code).strip("\n") + "\n"


def extract(api_path: str, out: str) -> None:
    import paddle  # the real one: this runs in Paddle's interpreter
    api = json.load(open(api_path))
    found = {}
    for module, names in api.items():
        owner = _resolve(paddle, module)
        for name in names:
            obj = getattr(owner, name, None) if owner is not None else None
            doc = getattr(obj, "__doc__", None)
            if isinstance(doc, str):
                for i, code in enumerate(_examples(doc)):
                    found[f"{module}.{name}#{i}"] = code
    json.dump(found, open(out, "w"), indent=0, sort_keys=True)
    print(f"{len(found)} examples from {sum(map(len, api.values()))} names -> {out}")


def _resolve(root, dotted: str):
    obj = root
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


# --- run (under either framework) ---------------------------------------------------------
def _import(lib: str):
    if lib == "sampan":
        from sampan._compat import install_as_paddle
        install_as_paddle()
    import paddle
    return paddle


def _child(code: str, wfd: int, limit: float) -> None:
    os.dup2(wfd, 1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    os.chdir(tempfile.mkdtemp(prefix="pdoc_"))
    signal.alarm(int(limit) + 1)
    status = "ok"
    try:
        exec(compile(code, "<example>", "exec"), {"__name__": "__main__"})
    except BaseException as e:  # noqa: BLE001 - the outcome is the record
        status = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
    sys.stdout.flush()
    os.write(1, ("\n@@STATUS@@" + status).encode())
    os._exit(0)


def _run_one(code: str, limit: float) -> dict:
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        _child(code, wfd, limit)
    os.close(wfd)
    chunks, deadline = [], time.monotonic() + limit
    while True:
        left = deadline - time.monotonic()
        ready = select.select([rfd], [], [], max(left, 0))[0] if left > 0 else []
        if not ready:
            os.kill(pid, signal.SIGKILL)
            status = "timeout"
            break
        data = os.read(rfd, 65536)
        if not data:
            status = None
            break
        chunks.append(data)
    os.close(rfd)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode(errors="replace")
    out, _, tail = text.rpartition("\n@@STATUS@@")
    if status is None:
        status = tail if _ else "crashed"
        text = out if _ else text
    return {"status": status, "stdout": text[-20000:]}


def run(lib: str, examples: str, out: str, only: str | None, limit: float) -> None:
    _import(lib)
    todo = {k: v for k, v in json.load(open(examples)).items()
            if only is None or k.startswith(only)}
    results = {}
    for i, (key, code) in enumerate(sorted(todo.items())):
        results[key] = _run_one(code, limit)
        if (i + 1) % 200 == 0:
            print(f"{i + 1}/{len(todo)}", file=sys.stderr, flush=True)
    json.dump(results, open(out, "w"), indent=0, sort_keys=True)
    bad = sum(r["status"] != "ok" for r in results.values())
    print(f"{lib}: {len(results)} examples run, {bad} raised or timed out -> {out}")


# --- compare ------------------------------------------------------------------------------
def _split(text: str) -> tuple[str, list[float]]:
    text = ADDRESS.sub(" at 0x", text)
    nums = [float(m.group()) for m in NUMBER.finditer(text)]
    skeleton = "".join(NUMBER.sub("#", text).split())  # spacing is not compared
    return skeleton, nums


def _close(a: list[float], b: list[float]) -> bool:
    import math
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y or (math.isnan(x) and math.isnan(y)):
            continue
        if not abs(x - y) <= 1e-5 + 1e-3 * abs(x):
            return False
    return True


def classify(code: str, pd: dict, sp: dict | None) -> str:
    if pd["status"] != "ok":
        if sp is not None and sp["status"].split(":")[0] == pd["status"].split(":")[0]:
            return "ok"
        return "paddle-error"
    if sp is None:
        return "not-run"
    if sp["status"] == "timeout":
        return "timeout"
    if sp["status"] != "ok":
        return "error"
    (ks, ns), (kp, np_) = _split(sp["stdout"]), _split(pd["stdout"])
    if ks == kp and _close(np_, ns):
        return "ok"
    if RANDOM_CODE.search(code):
        return "random" if ks == kp else "random-format"
    return "values" if ks == kp else "format"


def compare(pd_path: str, sp_path: str, examples: str, md: str | None) -> None:
    pd, sp = json.load(open(pd_path)), json.load(open(sp_path))
    codes = json.load(open(examples))
    rows = {k: classify(codes.get(k, ""), pd[k], sp.get(k)) for k in sorted(pd)}
    counts: dict[str, int] = {}
    for c in rows.values():
        counts[c] = counts.get(c, 0) + 1
    print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    if md:
        with open(md, "w") as f:
            f.write(f"# Paddle docstring examples on sampan\n\n{counts}\n")
            for cls in ("error", "timeout", "format", "values", "random-format"):
                f.write(f"\n## {cls}\n\n")
                for k, c in rows.items():
                    if c != cls:
                        continue
                    f.write(f"### {k}\n```python\n{codes.get(k, '')}```\n")
                    if cls in ("error", "timeout"):
                        f.write(f"sampan: `{sp[k]['status']}`\n\n")
                    else:
                        f.write(f"paddle:\n```\n{pd[k]['stdout'][:1500]}\n```\n"
                                f"sampan:\n```\n{sp[k]['stdout'][:1500]}\n```\n")
        json.dump(rows, open(os.path.splitext(md)[0] + ".json", "w"), indent=0)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("--api", required=True)
    e.add_argument("--out", required=True)
    r = sub.add_parser("run")
    r.add_argument("--lib", choices=("paddle", "sampan"), required=True)
    r.add_argument("--examples", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--only")
    r.add_argument("--limit", type=float, default=60.0)
    c = sub.add_parser("compare")
    c.add_argument("paddle_json")
    c.add_argument("sampan_json")
    c.add_argument("--examples", required=True)
    c.add_argument("--md")
    a = ap.parse_args(argv)
    if a.cmd == "extract":
        extract(a.api, a.out)
    elif a.cmd == "run":
        run(a.lib, a.examples, a.out, a.only, a.limit)
    else:
        compare(a.paddle_json, a.sampan_json, a.examples, a.md)


if __name__ == "__main__":
    main()
