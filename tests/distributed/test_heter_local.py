"""The heterogeneous PS in one process (LocalHeter, threads): a heter worker serves the dense
section of a wide&deep program (Executor.start_heter_trainer) while trainers run the cpu part
with send_and_recv; one trainer trains exactly like the single-process program."""
import threading

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.backend.fake import FakePlace
from sampan.distributed.ps.heter import LocalHeter
from sampan.ops import heter as heter_ops
from sampan.static.heter import heter_programs
from tests.static.test_heter_split import build_wide_deep, wide_deep_feeds

PARAMS = ["emb", "fc0.w", "fc0.b", "fc1.w", "fc1.b"]
HETER_PARAMS = PARAMS[1:]


@pytest.fixture(autouse=True)
def _no_runtime():
    yield
    heter_ops.set_heter_client(None)
    heter_ops.set_heter_server(None)


def _single(feeds, make_opt):
    main, startup, v = build_wide_deep(make_opt)
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    losses = [exe.run(main, feed=f, fetch_list=[v["loss"]], scope=scope)[0] for f in feeds]
    return np.array(losses), {p: np.array(scope.get(p)) for p in PARAMS}


class Worker(threading.Thread):
    """A heter worker: its own Executor and Scope, initialised by the startup program."""

    def __init__(self, main, startup, place=None, **kwargs):
        super().__init__(daemon=True)
        self.main, self.kwargs = main, kwargs
        self.exe, self.scope = static.Executor(place), static.Scope()
        self.exe.run(startup, scope=self.scope)
        self.served, self.error = None, None

    def run(self):
        try:
            self.served = self.exe.start_heter_trainer(self.main, scope=self.scope,
                                                       **self.kwargs)
        except Exception as exc:  # noqa: BLE001 - the test reads it
            self.error = exc


def _heter_run(feeds, built, local, **worker_kwargs):
    main, startup, v = built
    plan = heter_programs(main, fetch_list=[v["loss"]])
    worker = Worker(main, startup, **worker_kwargs)
    worker.start()
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    losses = [exe.run(plan.trainer, feed=f, fetch_list=[v["loss"]], scope=scope)[0]
              for f in feeds]
    local.stop_worker(0)
    worker.join(30)
    assert worker.error is None and not worker.is_alive()
    params = {p: np.array((worker.scope if p in HETER_PARAMS else scope).get(p))
              for p in PARAMS}
    return np.array(losses), params, worker, plan


@pytest.mark.parametrize("make_opt", [
    lambda: paddle.optimizer.SGD(0.1),
    lambda: paddle.optimizer.Adam(0.05),
    lambda: paddle.optimizer.SGD(0.1, weight_decay=0.01),   # regularization ops go along
    lambda: paddle.optimizer.Momentum(0.1, grad_clip=paddle.nn.ClipGradByNorm(0.05))],
    ids=["sgd", "adam", "sgd-weight-decay", "momentum-clip-by-norm"])
def test_one_trainer_trains_like_the_single_process_program(make_opt):
    feeds = wide_deep_feeds(6)
    ref_losses, ref = _single(feeds, make_opt)
    local = LocalHeter(trainer_num=1, timeout=30).enter()
    losses, params, worker, plan = _heter_run(feeds, build_wide_deep(make_opt), local)
    assert worker.served == len(feeds)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-6, atol=1e-7)
    for name in PARAMS:
        np.testing.assert_allclose(params[name], ref[name], rtol=1e-6, atol=1e-7,
                                   err_msg=name)
    assert ref_losses[-1] < ref_losses[0]
    # the trainer's program holds no heter-section op, the worker's no cpu op
    trainer_types = [op.type for op in plan.trainer.global_block().ops]
    assert trainer_types.count("send_and_recv") == 1 and "concat" not in trainer_types
    assert "embedding" not in [op.type for op in plan.section.global_block().ops]
    assert {op.input("param")[0] for op in plan.section.global_block().ops
            if op.type in ("sgd", "adam", "momentum")} == set(HETER_PARAMS)


def test_two_trainers_share_the_heter_worker():
    feeds = wide_deep_feeds(8, seed=5)
    local = LocalHeter(trainer_num=2, timeout=30).enter()
    main, startup, v = build_wide_deep()
    plan = heter_programs(main, fetch_list=[v["loss"]])
    worker = Worker(main, startup)
    worker.start()
    results = {}

    def trainer(rank):
        exe, scope = static.Executor(), static.Scope()
        exe.run(startup, scope=scope)
        results[rank] = [exe.run(plan.trainer, feed=f, fetch_list=[v["loss"]],
                                 scope=scope)[0] for f in feeds[rank::2]]
        local.stop_worker(rank)

    threads = [threading.Thread(target=trainer, args=(r,)) for r in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    worker.join(30)
    assert worker.error is None and worker.served == len(feeds)
    assert all(np.isfinite(results[r]).all() and len(results[r]) == 4 for r in range(2))
    start = static.Scope()
    static.Executor().run(startup, scope=start)
    assert not np.allclose(worker.scope.get("fc0.w"), start.get("fc0.w"))


def test_fetches_are_printed_and_handed_to_the_fetch_handler(capsys):
    feeds = wide_deep_feeds(4)
    local = LocalHeter(trainer_num=1, timeout=30).enter()
    built = build_wide_deep()
    v = built[2]
    _heter_run(feeds, built, local, fetch_list=[v["loss"].name], fetch_info=["loss"],
               print_period=2, debug=True)
    out = capsys.readouterr().out
    assert out.count("loss[1]:") == 2 and out.count("served in") == 4

    built = build_wide_deep()

    class Handler:
        var_dict = {"the_loss": built[2]["loss"]}

        def __init__(self):
            self.seen = []

        def handler(self, values):
            self.seen.append(values)

    handler = Handler()
    local = LocalHeter(trainer_num=1, timeout=30).enter()
    _heter_run(feeds, built, local, fetch_handler=handler, print_period=1)
    assert [list(d) for d in handler.seen] == [["the_loss"]] * 4


def test_errors_name_the_cause():
    main, startup, v = build_wide_deep()
    plan = heter_programs(main, fetch_list=[v["loss"]])
    exe, scope = static.Executor(), static.Scope()
    exe.run(startup, scope=scope)
    feed = wide_deep_feeds(1)[0]
    with pytest.raises(RuntimeError, match="send_and_recv: no heter client"):
        exe.run(plan.trainer, feed=feed, fetch_list=[v["loss"]], scope=scope)
    with pytest.raises(RuntimeError, match="start_heter_trainer: no heter server"):
        exe.start_heter_trainer(main, scope=scope)
    quiet = LocalHeter(trainer_num=1, timeout=0.2).enter()
    with pytest.raises(TimeoutError, match="no request from any trainer within 0.2 s"):
        exe.start_heter_trainer(main, scope=scope)
    with pytest.raises(TimeoutError, match="no answer from the heter worker"):
        exe.run(plan.trainer, feed=feed, fetch_list=[v["loss"]], scope=scope)
    quiet._requests.get_nowait()   # the unanswered request
    # a worker serving another program answers with an error the trainer raises
    local = LocalHeter(trainer_num=1, timeout=30).enter()
    wrong = plan.trainer.clone()
    wrong.global_block().ops[2].attrs["message_name"] = "heter_section_0_1"
    worker = Worker(main, startup)
    worker.start()
    with pytest.raises(RuntimeError, match=f"serves section '{plan.message_name}', got a "
                                           f"request for 'heter_section_0_1'"):
        exe.run(wrong, feed=feed, fetch_list=[v["loss"]], scope=scope)
    local.stop_worker(0)
    worker.join(30)
    assert worker.served == 0
    with pytest.raises(ValueError, match="has no heter section"):
        heter_programs(static.Program())
    with pytest.raises(ValueError, match="trainer_num must be a positive int"):
        LocalHeter(trainer_num=0)


def test_a_clip_across_both_sides_cannot_be_split():
    main, _, _ = build_wide_deep(lambda: paddle.optimizer.Momentum(
        0.1, grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0)))
    with pytest.raises(ValueError, match="heter worker's optimizer op .* reads .* which the "
                                         "trainer computes; gradient clipping across"):
        heter_programs(main)


def test_heter_worker_on_a_device_place():
    """The worker's Executor on a device place (the test-only fake device here; a GPU in
    bench/heter_gpu_check.py): values cross between host and device."""
    feeds = wide_deep_feeds(4)
    ref_losses, ref = _single(feeds, None)
    local = LocalHeter(trainer_num=1, timeout=30).enter()
    losses, params, worker, _ = _heter_run(feeds, build_wide_deep(), local, place=FakePlace(0))
    assert worker.served == 4
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6)
    for name in PARAMS:
        np.testing.assert_allclose(params[name], ref[name], rtol=1e-5, atol=1e-6,
                                   err_msg=name)
