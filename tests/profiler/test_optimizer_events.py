"""Optimizer updates under paddle.profiler: each eager optimizer.step() is an "Optimization
Step" span of type Optimization (as Paddle's wrapped step), and each update kernel (which
runs outside dispatch) an Operator event named after its op, nested inside the step."""
import sampan as paddle
import sampan.profiler as profiler
from sampan.framework import trace
from sampan.profiler import TracerEventType as T


def _train(opt_cls, steps: int, **kw):
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU(), paddle.nn.Linear(3, 2))
    opt = opt_cls(parameters=net.parameters(), **kw)
    with profiler.Profiler(scheduler=(1, 1 + steps)) as p:
        for _ in range(steps + 1):
            net(paddle.rand([5, 4])).mean().backward()
            opt.step()
            opt.clear_grad()
            p.step()
    return p


def test_step_is_an_optimization_span_holding_the_update_kernels():
    p = _train(paddle.optimizer.Adam, 2)
    events = p.profiler_result.events
    steps = [e for e in events if e.type is T.Optimization]
    assert [e.name for e in steps] == ["Optimization Step"] * 2
    updates = [e for e in events if e.type is T.Operator and e.name == "adam"]
    assert len(updates) == 2 * 4  # 4 parameters, 2 recorded steps
    for u in updates:
        assert any(s.start <= u.start and u.end <= s.end for s in steps)
    text = p.summary_text()
    assert "Optimization" in text.split("Model Summary")[1].split("Operator Summary")[0]
    assert "adam" in text.split("Operator Summary")[1]


def test_other_optimizer_and_chrome_trace(tmp_path):
    p = _train(paddle.optimizer.Momentum, 1, learning_rate=0.1, momentum=0.9)
    names = [(e.name, e.type) for e in p.profiler_result.events]
    assert ("momentum", T.Operator) in names and ("Optimization Step", T.Optimization) in names
    path = tmp_path / "trace.json"
    p.export(str(path), format="json")
    text = path.read_text()
    assert '"Optimization Step"' in text and '"momentum"' in text


def test_no_events_and_no_sink_outside_recording():
    paddle.seed(0)
    net = paddle.nn.Linear(2, 2)
    opt = paddle.optimizer.SGD(parameters=net.parameters())
    with profiler.Profiler(scheduler=(2, 3)) as p:
        for i in range(4):
            assert (trace.SINK[0] is not None) == (i == 2)  # only while recording
            net(paddle.ones([1, 2])).sum().backward()
            opt.step()
            opt.clear_grad()
            p.step()
    assert trace.SINK[0] is None
    assert sum(e.type is T.Optimization for e in p.profiler_result.events) == 1
