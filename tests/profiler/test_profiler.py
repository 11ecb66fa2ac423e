"""paddle.profiler: scheduler states (vs Paddle 3.3.1), recording a training loop through the
dispatch chain, the chrome trace (format, op events, step markers, nesting), summary tables,
the result file round trip, errors."""
import glob
import json

import numpy as np
import pytest

import sampan as paddle
import sampan.profiler as profiler
from sampan.framework import flags

S = profiler.ProfilerState
# Paddle 3.3.1: make_scheduler(closed=1, ready=1, record=2, repeat=2, skip_first=1), steps 0..11
PADDLE_STATES = [0, 0, 1, 2, 3, 0, 1, 2, 3, 0, 0, 0]


def test_make_scheduler_matches_paddle():
    s = profiler.make_scheduler(closed=1, ready=1, record=2, repeat=2, skip_first=1)
    assert [s(i).value for i in range(12)] == PADDLE_STATES


def test_make_scheduler_errors():
    with pytest.raises(ValueError, match="make_scheduler: closed"):
        profiler.make_scheduler(closed=-1, ready=0, record=1)
    with pytest.raises(ValueError, match="record must be >= 1"):
        profiler.make_scheduler(closed=0, ready=0, record=0)
    with pytest.raises(ValueError, match="Profiler: scheduler"):
        profiler.Profiler(scheduler=(3, 1))


def _train(p, steps=4):
    paddle.seed(0)
    lin = paddle.nn.Linear(4, 2)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=lin.parameters())
    x = paddle.to_tensor(np.random.RandomState(0).randn(3, 4).astype("float32"))
    p.start()
    for _ in range(steps):
        with profiler.RecordEvent("forward_block"):
            loss = lin(x).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        p.step(num_samples=3)
    p.stop()


def test_trace_of_training_loop(tmp_path):
    p = profiler.Profiler(targets=[profiler.ProfilerTarget.CPU], scheduler=(1, 3),
                          on_trace_ready=profiler.export_chrome_tracing(str(tmp_path)))
    _train(p)
    files = glob.glob(str(tmp_path / "*.paddle_trace.json"))
    assert len(files) == 1
    doc = json.load(open(files[0]))
    assert doc["displayTimeUnit"] == "ms"
    spans = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    for e in spans:
        assert {"name", "cat", "pid", "tid", "ts", "dur"} <= set(e)
        assert e["dur"] >= 0
    steps = [e for e in spans if e["cat"] == "ProfileStep"]
    assert [e["name"] for e in steps] == ["ProfileStep#1", "ProfileStep#2"]  # steps 1..2
    ops = [e for e in spans if e["cat"] == "Operator"]
    names = {e["name"] for e in ops}
    assert {"linear", "mean", "matmul"} <= names  # forward and backward (matmul in linear's vjp)
    user = [e for e in spans if e["cat"] == "PythonUserDefined"]
    assert len(user) == 2
    eps = 1e-3  # microseconds: rounding of the float timestamps

    def inside(a, b):
        return b["ts"] - eps <= a["ts"] and a["ts"] + a["dur"] <= b["ts"] + b["dur"] + eps

    for u in user:  # each user span nests in a step, and holds the forward ops
        assert any(inside(u, s) for s in steps)
        assert any(inside(o, u) and o["name"] == "linear" for o in ops)
    assert all(any(inside(o, s) for s in steps) for o in ops)
    assert any(e["ph"] == "M" and e["name"] == "thread_name" for e in doc["traceEvents"])


def test_wrapper_only_while_recording():
    assert flags.STATE.wrappers == ()
    p = profiler.Profiler(scheduler=profiler.make_scheduler(closed=1, ready=0, record=1,
                                                            repeat=1))
    p.start()
    assert flags.STATE.wrappers == ()  # step 0 is CLOSED
    p.step()
    assert len(flags.STATE.wrappers) == 1
    paddle.ones([2]) + 1
    p.step()
    assert flags.STATE.wrappers == ()
    p.stop()
    names = [e.name for e in p.profiler_result.get_data()]
    assert "add" in names and "ProfileStep#1" in names


def test_summary_tables_sorted():
    p = profiler.Profiler(scheduler=(0, 2))
    _train(p, steps=3)
    text = p.summary_text(sorted_by=profiler.SortedKeys.CPUTotal, time_unit="us")
    for title in ("Overview Summary", "Model Summary", "Operator Summary",
                  "UserDefined Summary"):
        assert title in text
    assert "Time unit: us" in text
    op_part = text.split("Operator Summary")[1].split("UserDefined Summary")[0]
    rows = [line.split() for line in op_part.splitlines()
            if line and line[0].isalpha() and not line.startswith(("Name", "Time"))]
    totals = [float(r[2]) for r in rows]
    assert totals == sorted(totals, reverse=True) and len(rows) >= 4
    calls = {r[0]: int(r[1]) for r in rows}
    assert calls["linear"] == 2 and calls["mean"] == 2
    assert "forward_block" in text.split("UserDefined Summary")[1]
    only = p.summary_text(views=profiler.SummaryView.OperatorView)
    assert "Operator Summary" in only and "Overview Summary" not in only
    with pytest.raises(ValueError, match="time_unit"):
        p.summary_text(time_unit="min")


def test_protobuf_round_trip(tmp_path):
    p = profiler.Profiler(scheduler=(0, 1),
                          on_trace_ready=profiler.export_protobuf(str(tmp_path), "w0"))
    _train(p, steps=2)
    files = glob.glob(str(tmp_path / "w0_time_*.paddle_trace.pb"))
    assert len(files) == 1
    result = profiler.load_profiler_result(files[0])
    got = [(e.name, e.type, e.duration) for e in result.get_data()]
    want = [(e.name, e.type, e.duration) for e in p.profiler_result.get_data()]
    assert got == want and len(got) > 5
    result.save(str(tmp_path / "again.json"), "json")
    assert json.load(open(tmp_path / "again.json"))["traceEvents"]
    (tmp_path / "bad.pb").write_text("{}")
    with pytest.raises(ValueError, match="load_profiler_result"):
        profiler.load_profiler_result(str(tmp_path / "bad.pb"))


def test_timer_only_and_record_event_off():
    p = profiler.Profiler(timer_only=True)
    _train(p, steps=2)
    assert p.profiler_result is None and flags.STATE.wrappers == ()
    assert p.step_info() == ""   # the timing ended with stop(); profiler/test_timer.py
    with pytest.raises(RuntimeError, match="Profiler.summary: nothing recorded"):
        p.summary()
    with profiler.RecordEvent("idle"):  # no profiler: records nothing, raises nothing
        pass
    with pytest.raises(TypeError, match="RecordEvent: name"):
        profiler.RecordEvent(3)


def test_context_manager_default_records_all():
    with profiler.Profiler() as p:
        paddle.ones([2]) * 3
        p.step()
        paddle.ones([2]) - 1
    names = {e.name for e in p.profiler_result.get_data()}
    assert {"multiply", "subtract"} <= names


def test_record_shapes_in_trace(tmp_path):
    p = profiler.Profiler(scheduler=(0, 1), record_shapes=True)
    p.start()
    paddle.matmul(paddle.ones([2, 3]), paddle.ones([3, 4]))
    p.step()
    p.stop()
    p.export(str(tmp_path / "t.json"))
    doc = json.load(open(tmp_path / "t.json"))
    mm = [e for e in doc["traceEvents"] if e["name"] == "matmul"]
    assert mm and mm[0]["args"]["input_shapes"] == {"x": [2, 3], "y": [3, 4]}
    with pytest.raises(ValueError, match="format must be 'json' or 'pb'"):
        p.export(str(tmp_path / "t.x"), "xml")
