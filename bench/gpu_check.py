"""GPU check of issue #18 in one short run, section by section (results saved after each):

    conv    the GEMM-shaped conv kernels (backend/cupy_conv.py) on the GPU against
            backend/conv.py on the CPU, and their forward time against PyTorch's cuDNN
    static  static Programs (Executor(CUDAPlace)) and to_static training against the CPU
    amp     auto_cast O1 / decorate O2 float16 training steps run with float16 device arrays
    train   MLP, ResNet-20 and Transformer training steps and ResNet-50 batch-32 inference,
            sampan on the GPU against PyTorch CUDA
    profile per-op milliseconds (synchronized) in the MLP, ResNet-20 and ResNet-50 steps
    ops     the op database on the GPU against the CPU (values and gradients)

    PYTHONPATH=. python bench/gpu_check.py [--sections conv,static,amp,train,profile,ops]
        [--ops-seconds 60] [--steps 10] [--json PATH] [--fake]

Without a usable GPU it says so and exits 0. `--fake` runs every section on the test-only
fake device with small shapes and no PyTorch (a dry run of this script on any machine).
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time

import numpy as np


class _Timeout(BaseException):  # not caught by the `except Exception` inside sections
    pass


def _alarm(signum, frame):
    raise _Timeout("took too long")


def _err(err: BaseException) -> str:
    return f"{type(err).__name__}: {str(err)[:240]}"


def _time(step, sync, steps: int, warm: int = 3) -> float:
    for _ in range(warm):
        step()
    sync()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    sync()
    return round((time.perf_counter() - t0) / steps * 1e3, 3)


class Ctx:
    """The place, the synchronize call and the sizes of one run."""

    def __init__(self, fake: bool, steps: int) -> None:
        import sampan as paddle
        self.paddle, self.fake, self.steps = paddle, fake, steps
        if fake:
            from sampan.backend.fake import FakePlace
            self.place, self.sync = FakePlace(0), (lambda: None)
        else:
            self.place, self.sync = paddle.CUDAPlace(0), paddle.device.cuda.synchronize
        self.partial: dict = {}   # the running section's results (kept on a timeout)
        self.workload_seconds = 40  # per sampan training workload (run_train)
        self.torch = None
        if not fake:
            try:
                import torch
                self.torch = torch
            except ImportError:
                pass

    def on_device(self):
        from sampan.framework import place as _place
        _place.set_place(self.place)

    def on_cpu(self):
        from sampan.framework import place as _place
        _place.set_place(self.paddle.CPUPlace())


# --- conv -----------------------------------------------------------------------------------
CONV_CASES = [  # x shape, w shape, stride, pads, dilation, groups
    ((2, 6, 9, 7), (4, 3, 3, 3), [1, 2], [1, 1, 0, 2], [1, 2], 2),
    ((3, 4, 8), (8, 1, 3), [2], [1, 1], [1], 4),
    ((2, 16, 6, 5), (4, 16, 3, 2), [1, 1], [0, 2, 1, -1], [2, 1], 1),
    ((2, 3, 5, 6, 4), (2, 3, 3, 3, 2), [2, 1, 1], [1, 1, 0, 1, 1, 0], [1, 1, 1], 1),
    ((2, 4, 7, 7), (4, 1, 3, 3), [2, 2], [1, 1, 1, 1], [1, 1], 4),
]
CONV_TIMED = [  # ResNet-20 and ResNet-50 layers: x shape, w shape, stride, pad
    ((32, 16, 32, 32), (16, 16, 3, 3), 1, 1), ((32, 64, 8, 8), (64, 64, 3, 3), 1, 1),
    ((32, 3, 224, 224), (64, 3, 7, 7), 2, 3), ((32, 64, 56, 56), (64, 64, 3, 3), 1, 1),
    ((32, 256, 56, 56), (64, 256, 1, 1), 1, 0), ((32, 512, 7, 7), (512, 512, 3, 3), 1, 1),
]


def run_conv(ctx: Ctx) -> dict:
    from sampan.backend import conv as C
    from sampan.framework import place as _place
    xp = ctx.place.backend()
    rng = np.random.default_rng(0)
    out = ctx.partial
    out.update(checked=0, failed={})
    for k, (xs, ws, st, pads, dil, g) in enumerate(CONV_CASES):
        x, w = rng.standard_normal(xs), rng.standard_normal(ws)
        y = C.conv_array(np, x, w, st, pads, dil, g)
        gy = rng.standard_normal(y.shape)
        dx, dw, dy, dgy = (_place.move(a, ctx.place) for a in (x, w, y, gy))
        pairs = [(C.conv_array(xp, dx, dw, st, pads, dil, g), y),
                 (C.weight_corr_array(xp, dx, dgy, ws[2:], st, pads, dil, g),
                  C.weight_corr_array(np, x, gy, ws[2:], st, pads, dil, g)),
                 (C.conv_transpose_array(xp, dgy, dw, list(xs[2:]), st, pads, dil, g),
                  C.conv_transpose_array(np, gy, w, list(xs[2:]), st, pads, dil, g))]
        for name, (got, want) in zip(("conv", "weight", "transpose"), pairs):
            try:
                np.testing.assert_allclose(_place.backend_of(got).to_host(got), want,
                                           rtol=1e-9, atol=1e-9)
                out["checked"] += 1
            except AssertionError as err:
                out["failed"][f"case{k}-{name}"] = _err(err)
    out["timed_ms"] = [_time_conv(ctx, *case) for case in (CONV_TIMED[:2] if ctx.fake
                                                             else CONV_TIMED)]
    return out


def _time_conv(ctx: Ctx, xs, ws, stride, pad) -> dict:
    from sampan.backend import conv as C
    from sampan.framework import place as _place
    if ctx.fake:
        xs = (2,) + xs[1:]
    xp = ctx.place.backend()
    rng = np.random.default_rng(1)
    x = _place.move(rng.standard_normal(xs).astype("float32"), ctx.place)
    w = _place.move(rng.standard_normal(ws).astype("float32"), ctx.place)
    row = {"x": list(xs), "w": list(ws), "sampan": _time(
        lambda: C.conv_array(xp, x, w, [stride] * 2, [pad] * 4, [1, 1], 1), ctx.sync, 5, 2)}
    if ctx.torch is not None:
        T = ctx.torch
        tx, tw = T.as_tensor(x, device="cuda"), T.as_tensor(w, device="cuda")
        with T.no_grad():
            row["torch"] = _time(lambda: T.nn.functional.conv2d(tx, tw, None, stride, pad),
                                 T.cuda.synchronize, 5, 2)
    return row


# --- static and to_static ---------------------------------------------------------------------
def run_static(ctx: Ctx) -> dict:
    from tests.backend import static_check as S
    out = ctx.partial
    cpu_losses, cpu_out, _ = S.train_static(ctx.paddle.CPUPlace())
    losses, dev_out, scope = S.train_static(ctx.place)
    out["static_mlp_max_diff"] = float(np.max(np.abs(np.asarray(losses) - cpu_losses)))
    from sampan.framework import place as _place
    out["static_scope_on_device"] = all(_place.is_device_array(v) for v in scope._vars.values())
    main, res = S.cond_program()
    x = np.array([1.0, -2.0, 3.0], "float32")
    got, = ctx.paddle.static.Executor(ctx.place).run(main, feed={"x": x}, fetch_list=[res])
    out["control_flow_ok"] = bool(np.allclose(got, (x * 8 + 7) - 1.0))
    dev = S.train_to_static(ctx.place)
    cpu = S.train_to_static(ctx.paddle.CPUPlace())
    out["to_static_max_diff"] = max(float(np.max(np.abs(a - b))) for a, b in zip(dev, cpu))
    out["static_step_ms"] = _static_step_ms(ctx)
    out["cuda_places"] = repr(ctx.paddle.static.cuda_places())
    return out


def _static_step_ms(ctx: Ctx) -> float:
    """A static MLP (784-512-256-10, batch 128, Adam) training step on the device."""
    P = ctx.paddle
    from tests.static_util import static_guard
    main, startup = P.static.Program(), P.static.Program()
    with static_guard(main, startup):
        x = P.static.data("x", [128, 784], "float32")
        y = P.static.data("y", [128, 1], "int64")
        h = P.static.nn.fc(P.static.nn.fc(x, 512, activation="relu"), 256, activation="relu")
        loss = P.nn.functional.cross_entropy(P.static.nn.fc(h, 10), y)
        P.optimizer.Adam(1e-3).minimize(loss)
    exe, scope = P.static.Executor(ctx.place), P.static.Scope()
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((128, 784)).astype("float32"),
            "y": rng.integers(0, 10, (128, 1))}
    with P.static.scope_guard(scope):
        exe.run(startup)
        feed = {k: P.to_tensor(v, place=ctx.place) for k, v in feed.items()}
        return _time(lambda: exe.run(main, feed=feed, fetch_list=[loss], return_numpy=False),
                     ctx.sync, ctx.steps)


# --- AMP float16 ------------------------------------------------------------------------------
def run_amp(ctx: Ctx) -> dict:
    P = ctx.paddle
    out = ctx.partial
    ctx.on_device()
    try:
        for level in ("O1", "O2"):
            P.seed(0)
            model = P.nn.Sequential(P.nn.Conv2D(3, 8, 3, padding=1), P.nn.BatchNorm2D(8),
                                    P.nn.ReLU(), P.nn.Flatten(), P.nn.Linear(8 * 16 * 16, 10))
            opt = P.optimizer.Momentum(0.01, parameters=model.parameters())
            if level == "O2":
                model, opt = P.amp.decorate(model, opt, level="O2")
            scaler = P.amp.GradScaler(init_loss_scaling=1024.0)
            x = P.to_tensor(np.random.default_rng(0).standard_normal((8, 3, 16, 16))
                            .astype("float32"))
            y = P.to_tensor(np.arange(8) % 10)
            seen = {}

            def step():
                with P.amp.auto_cast(level=level):
                    logits = model(x)
                    loss = P.nn.functional.cross_entropy(logits, y)
                seen["dtype"], seen["place"] = logits.dtype.name, str(logits.place)
                seen["array"] = type(logits._data).__module__
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
                opt.clear_grad()
                seen["loss"] = float(loss.numpy())
            out[level] = {"ms": _time(step, ctx.sync, ctx.steps), **seen}
    finally:
        ctx.on_cpu()
    return out


# --- training steps and ResNet-50 inference ----------------------------------------------------
def run_train(ctx: Ctx) -> dict:
    """PyTorch first (quick), then sampan; each sampan workload gets its own time limit."""
    from bench.train_step import paddle_step, torch_step
    out = ctx.partial
    names = ("mlp", "resnet20", "transformer")
    if ctx.torch is not None:
        T = ctx.torch
        T.set_default_device("cuda")
        try:
            for name in names:
                out[f"torch {name} ms"] = _time(torch_step(T, name), T.cuda.synchronize,
                                                ctx.steps)
            out["torch resnet50 b32 infer ms"] = _time(_torch_r50(T), T.cuda.synchronize,
                                                       ctx.steps)
        finally:
            T.set_default_device("cpu")
        out["torch"] = T.__version__
    ctx.on_device()
    steps = {name: (lambda n=name: paddle_step(ctx.paddle, n)) for name in names}
    steps["resnet50 b32 infer"] = lambda: _paddle_r50(ctx)
    for name, make in steps.items():
        signal.alarm(ctx.workload_seconds)
        try:
            out[f"sampan {name} ms"] = _time(make(), ctx.sync, ctx.steps)
        except (Exception, _Timeout) as err:  # noqa: BLE001 - a finding to report
            out[f"sampan {name} error"] = _err(err)
        finally:
            signal.alarm(0)
    return out


def _r50_input(ctx: Ctx):
    shape = (2, 3, 64, 64) if ctx.fake else (32, 3, 224, 224)
    return np.random.default_rng(0).standard_normal(shape).astype("float32")


def _paddle_r50(ctx: Ctx):
    P = ctx.paddle
    model = P.vision.models.resnet50()
    model.eval()
    x = P.to_tensor(_r50_input(ctx))

    def infer():
        with P.no_grad():
            model(x)
    return infer


def _torch_r50(T):
    nn = T.nn

    class Bottleneck(nn.Module):
        def __init__(self, cin, width, stride):
            super().__init__()
            cout = width * 4
            self.body = nn.Sequential(
                nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
                nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width),
                nn.ReLU(), nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout))
            self.short = nn.Identity() if stride == 1 and cin == cout else nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            return T.relu(self.body(x) + self.short(x))

    layers, cin = [], 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = width * 4
    model = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                          nn.MaxPool2d(3, 2, 1), *layers, nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(2048, 1000)).eval()
    x = T.randn(32, 3, 224, 224)

    def infer():
        with T.no_grad():
            model(x)
    return infer


# --- where the time goes ---------------------------------------------------------------------
def run_profile(ctx: Ctx) -> dict:
    """Per op: calls and milliseconds (synchronized after each op) in 2 steps of each
    workload, the 12 costliest ops first."""
    from bench.train_step import paddle_step
    from sampan.framework.flags import dispatch_wrapper
    out = ctx.partial
    ctx.on_device()
    try:
        for name in ("mlp", "resnet20", "resnet50_infer"):
            step = _paddle_r50(ctx) if name == "resnet50_infer" else paddle_step(ctx.paddle,
                                                                                 name)
            step()
            ctx.sync()
            cost: dict = {}

            def timed(op, inputs, attrs, nxt):
                t0 = time.perf_counter()
                res = nxt(op, inputs, attrs)
                ctx.sync()
                row = cost.setdefault(op.name, [0, 0.0])
                row[0] += 1
                row[1] += time.perf_counter() - t0
                return res
            t0 = time.perf_counter()
            with dispatch_wrapper(timed):
                for _ in range(2):
                    step()
            total = (time.perf_counter() - t0) / 2 * 1e3
            top = sorted(cost.items(), key=lambda kv: -kv[1][1])[:12]
            out[name] = {"step_ms_synced_per_op": round(total, 2),
                         "ops": {k: [c // 2, round(t / 2 * 1e3, 2)] for k, (c, t) in top}}
    finally:
        ctx.on_cpu()
    out["eager_add_us"] = _add_overhead(ctx)
    return out


def _add_overhead(ctx: Ctx) -> dict:
    """Microseconds per eager `x + y` on 256-element float32 device tensors."""
    n = 200 if ctx.fake else 3000
    x = ctx.paddle.to_tensor(np.ones(256, "float32"), place=ctx.place)
    res = {"sampan": _time(lambda: x + x, ctx.sync, n, 50) * 1e3}
    xp = ctx.place.backend()
    res["array library"] = _time(lambda: xp.add(x._data, x._data), ctx.sync, n, 50) * 1e3
    if ctx.torch is not None:
        tx = ctx.torch.ones(256, device="cuda")
        res["torch"] = _time(lambda: tx + tx, ctx.torch.cuda.synchronize, n, 50) * 1e3
    return {k: round(v, 2) for k, v in res.items()}


# --- the op database --------------------------------------------------------------------------
def run_ops(ctx: Ctx, seconds: float, per_entry: int) -> dict:
    from tests.backend.device_check import check_entry
    from tests.ops.op_db import ENTRIES
    out = ctx.partial
    out.update(passed=0, failed={}, not_run=len(ENTRIES))
    t0 = time.perf_counter()
    for k, entry in enumerate(ENTRIES):
        out["not_run"] = len(ENTRIES) - k
        out["seconds"] = round(time.perf_counter() - t0, 1)
        if time.perf_counter() > t0 + seconds:
            break
        if entry.op in ("send_recv", "recv") or entry.name in ("send_recv", "recv"):
            continue   # MPI exchanges host buffers (CPU tensors only)
        signal.alarm(per_entry)
        try:
            check_entry(entry, ctx.place, max_samples=2)
            out["passed"] += 1
        except (Exception, _Timeout) as err:  # noqa: BLE001 - every failure is a finding
            out["failed"][entry.name] = _err(err)
        finally:
            signal.alarm(0)
    else:
        out["not_run"] = 0
    return out


def _terminated(signum, frame):
    raise _Stop("terminated (outer time limit)")


class _Stop(BaseException):
    pass


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sections", default="conv,static,amp,train,profile,ops")
    ap.add_argument("--ops-seconds", type=float, default=60.0)
    ap.add_argument("--per-entry", type=int, default=6)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--json", default="")
    ap.add_argument("--fake", action="store_true")
    ap.add_argument("--section-seconds", type=int, default=120,
                    help="time limit of each section but ops")
    args = ap.parse_args()
    import sampan as paddle
    if not args.fake and not paddle.is_compiled_with_cuda():
        print("no usable GPU (CuPy and a CUDA device are needed); nothing to check")
        return 0
    ctx = Ctx(args.fake, 1 if args.fake else args.steps)
    ctx.workload_seconds = max(1, args.section_seconds // 4)
    report = {"device": "fake" if args.fake else paddle.device.cuda.get_device_name(),
              "numpy": np.__version__}
    if not args.fake:
        import cupy
        report["cupy"] = cupy.__version__
        try:  # whether cuDNN is reachable through CuPy (a possible later conv path)
            import cupyx.cudnn  # noqa: F401
            report["cudnn"] = str(cupy.cuda.cudnn.getVersion())
        except Exception as err:  # noqa: BLE001
            report["cudnn"] = _err(err)
    print(json.dumps(report), flush=True)
    runs = {"conv": lambda: run_conv(ctx), "static": lambda: run_static(ctx),
            "amp": lambda: run_amp(ctx), "train": lambda: run_train(ctx),
            "profile": lambda: run_profile(ctx),
            "ops": lambda: run_ops(ctx, args.ops_seconds, args.per_entry)}
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGTERM, _terminated)   # `timeout` ends the run: keep what we have
    for name in args.sections.split(","):
        t0 = time.perf_counter()
        if name not in ("ops", "train"):  # those keep their own alarms and time budgets
            signal.alarm(args.section_seconds)
        ctx.partial, stop = {}, False
        try:
            report[name] = runs[name]()
        except (Exception, _Timeout, _Stop) as err:  # noqa: BLE001 - report it, go on
            report[name] = {**ctx.partial, "error": _err(err)}
            stop = isinstance(err, _Stop)
        finally:
            signal.alarm(0)
            ctx.on_cpu()
        report[f"{name}_s"] = round(time.perf_counter() - t0, 1)
        print(json.dumps({name: report[name]}), flush=True)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(report, f, indent=1)
        if stop:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
