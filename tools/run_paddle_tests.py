"""Run a directory of PaddlePaddle's own unittest files against sampan (or a real Paddle).

Each file runs in its own subprocess, under `python -m sampan` (so every `import paddle...`
resolves to sampan) or, with `--python /path/to/paddle/python --real-paddle`, under a real
PaddlePaddle to record the baseline. Per-test outcomes are written as JSON; with
`--baseline BASELINE.json` the pass rate counts only the tests that passed on Paddle, and the
failures are grouped by their error line (most frequent first) for the failure list.

    python tools/run_paddle_tests.py /work/paddle_tests/api --python /work/pdenv/bin/python \
        --real-paddle --json /work/paddle_tests/paddle.json
    python tools/run_paddle_tests.py /work/paddle_tests/api --baseline \
        /work/paddle_tests/paddle.json --json /work/paddle_tests/sampan.json --groups 40

The test files are never part of this repository; this script only uses the standard library.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

MARKER = "@@SAMPAN-PADDLE-TESTS@@"


def _error_line(err) -> str:
    """The last line of a formatted exception: 'Type: message' (first message line)."""
    exc_type, exc, _ = err
    text = str(exc).strip().splitlines()
    return f"{exc_type.__name__}: {text[0] if text else ''}"[:300]


def _pir_compat() -> None:
    """Tests from 2024 decorate with pir_utils.test_with_pir_api, which Paddle 3.x removed
    (PIR became the default there). Supply an identity decorator, on both sides alike."""
    import paddle.pir_utils as pir_utils  # noqa: the module under test, real or sampan
    if not hasattr(pir_utils, "test_with_pir_api"):
        pir_utils.test_with_pir_api = lambda fn: fn
    if not hasattr(pir_utils, "test_with_dygraph_pir"):
        pir_utils.test_with_dygraph_pir = lambda fn: fn


def run_one(path: str) -> dict:
    """Import one test file as a module, run its unittest cases, return per-test outcomes."""
    import importlib.util
    import unittest

    outcomes: dict = {}

    class Collector(unittest.TestResult):
        def addSuccess(self, test):
            outcomes[test.id()] = ["pass", ""]

        def addFailure(self, test, err):
            outcomes[test.id()] = ["fail", _error_line(err)]

        def addError(self, test, err):
            outcomes[test.id()] = ["error", _error_line(err)]

        def addSkip(self, test, reason):
            outcomes[test.id()] = ["skip", str(reason)[:200]]

        def addExpectedFailure(self, test, err):
            outcomes[test.id()] = ["pass", ""]

        def addUnexpectedSuccess(self, test):
            outcomes[test.id()] = ["fail", "unexpected success"]

    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(path))[0]
    result = {"file": os.path.basename(path), "tests": outcomes, "import_error": ""}
    try:
        _pir_compat()
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        suite = unittest.TestLoader().loadTestsFromModule(module)
    except BaseException as exc:  # noqa: a file that cannot even load fails all its tests
        result["import_error"] = _error_line((type(exc), exc, None))
        return result
    suite.run(Collector())
    return result


def _launch(path: str, args) -> dict:
    """Run one file in a fresh process (own session, killed whole on timeout)."""
    me = os.path.abspath(__file__)
    if args.real_paddle:
        cmd = [args.python, me, "--one", path]
    else:
        cmd = [args.python, "-m", "sampan", me, "--one", path]
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONWARNINGS="ignore")
    with tempfile.TemporaryDirectory(prefix="paddle_test_") as cwd:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {"file": os.path.basename(path), "tests": {},
                    "import_error": f"Timeout: over {args.timeout} s"}
    for line in reversed(out.splitlines()):
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    tail = [ln for ln in out.strip().splitlines() if ln.strip()][-1:] or [""]
    return {"file": os.path.basename(path), "tests": {},
            "import_error": f"Crash (exit {proc.returncode}): {tail[0][:200]}"}


def _normalise(line: str) -> str:
    """Group error lines that differ only in numbers, names of temporaries or arrays."""
    line = re.sub(r"0x[0-9a-f]+", "0x_", line)
    line = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", line)
    return line[:160]


def summarise(results: list, baseline: dict | None, groups: int) -> dict:
    """Per-file and total counts; failures of baseline-passing tests grouped by error line."""
    total = passed = 0
    per_file, failures = [], {}
    for res in sorted(results, key=lambda r: r["file"]):
        tests = res["tests"]
        wanted = (baseline.get(res["file"], set()) if baseline is not None
                  else set(tests))
        ok = sum(1 for t in wanted if tests.get(t, ["missing"])[0] == "pass")
        total += len(wanted)
        passed += ok
        per_file.append((res["file"], ok, len(wanted)))
        for t in sorted(wanted):
            state, msg = tests.get(t, ["missing", res["import_error"] or "not run"])
            if state != "pass":
                key = _normalise(msg or state)
                failures.setdefault(key, []).append(f"{res['file']}::{t}: {msg}")
    ranked = sorted(failures.items(), key=lambda kv: -len(kv[1]))[:groups]
    return {"passed": passed, "total": total, "files": per_file,
            "groups": [(len(v), k, v[0]) for k, v in ranked]}


def _load_baseline(path: str) -> dict:
    with open(path) as fh:
        data = json.load(fh)
    return {r["file"]: {t for t, (state, _) in r["tests"].items() if state == "pass"}
            for r in data["results"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--files", nargs="*", help="file names in the directory (default: all "
                        "test_*.py)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--real-paddle", action="store_true",
                        help="run under --python's own paddle (the baseline)")
    parser.add_argument("--baseline", help="JSON of a --real-paddle run: count only its passes")
    parser.add_argument("--json", help="write every per-test outcome here")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--groups", type=int, default=30)
    args = parser.parse_args(argv)
    if args.one:
        print("\n" + MARKER + json.dumps(run_one(args.one)), flush=True)
        return 0
    names = args.files or sorted(os.path.basename(p) for p in
                                 glob.glob(os.path.join(args.directory, "test_*.py")))
    paths = [os.path.join(os.path.abspath(args.directory), n) for n in names]
    start = time.time()
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(_launch, p, args) for p in paths]
        for done in concurrent.futures.as_completed(futures):
            results.append(done.result())
            print(f"[{len(results)}/{len(paths)}] {results[-1]['file']}", file=sys.stderr,
                  flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"results": results}, fh, indent=0)
    baseline = _load_baseline(args.baseline) if args.baseline else None
    summary = summarise(results, baseline, args.groups)
    for name, ok, n in summary["files"]:
        print(f"{ok:5d}/{n:<5d} {name}")
    print("\nlargest failure groups (count, error, example):")
    for count, key, example in summary["groups"]:
        print(f"{count:5d}  {key}\n       e.g. {example[:240]}")
    pct = 100.0 * summary["passed"] / max(summary["total"], 1)
    print(f"\n{summary['passed']} of {summary['total']} tests pass ({pct:.1f}%) in "
          f"{len(paths)} files, {time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
