"""A heterogeneous-PS job (test_heter_launch.py): a wide&deep program whose dense tower is
built under device_guard('gpu'); under the launcher the trainer runs the cpu part and a heter
worker the tower (fleet.is_server() on it, as in Paddle 2.x). With --single the same program
trains in one process without fleet (the reference). Writes <out>/<role>.npz."""
import argparse
import os

import numpy as np

import sampan as paddle
import sampan.distributed.fleet as fleet
from sampan import static

STEPS = 6
PARAMS = ["emb", "fc0.w", "fc0.b", "fc1.w", "fc1.b"]


def build():
    main, startup = static.default_main_program(), static.default_startup_program()
    main.random_seed = startup.random_seed = 3
    ids = static.data("ids", [-1, 3], "int64")
    dense = static.data("dense", [-1, 4], "float32")
    label = static.data("label", [-1, 1], "float32")
    with static.device_guard("cpu"):
        emb = static.nn.embedding(ids, size=[10, 4], param_attr=paddle.ParamAttr(name="emb"))
        pooled = paddle.mean(emb, axis=1)
    with static.device_guard("gpu"):
        h = paddle.concat([pooled, dense], axis=1)
        h = static.nn.fc(h, 8, activation="relu", weight_attr=paddle.ParamAttr(name="fc0.w"),
                         bias_attr=paddle.ParamAttr(name="fc0.b"))
        out = static.nn.fc(h, 1, weight_attr=paddle.ParamAttr(name="fc1.w"),
                           bias_attr=paddle.ParamAttr(name="fc1.b"))
    with static.device_guard("cpu"):
        loss = paddle.mean(paddle.square(out - label))
    return main, startup, loss


def feeds():
    rng = np.random.default_rng(0)
    return [{"ids": rng.integers(0, 10, (5, 3)).astype("int64"),
             "dense": rng.random((5, 4)).astype("float32"),
             "label": rng.random((5, 1)).astype("float32")} for _ in range(STEPS)]


def train(exe, main, loss) -> list:
    return [float(exe.run(main, feed=f, fetch_list=[loss])[0]) for f in feeds()]


def save(path: str, losses, names) -> None:
    """Losses, the parameters `names` and the array module holding the first of them (numpy,
    or cupy on a heter worker computing on its GPU)."""
    scope = static.global_scope()
    module = type(scope._vars.get(names[0])).__module__.split(".")[0]
    np.savez(path, losses=np.array(losses), module=np.array(module),
             **{n: np.array(scope.get(n)) for n in names})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--single", action="store_true")
    args = parser.parse_args()
    paddle.enable_static()
    main_prog, startup, loss = build()
    exe = static.Executor()
    if args.single:
        paddle.optimizer.SGD(0.1).minimize(loss)
        exe.run(startup)
        save(os.path.join(args.out, "single.npz"), train(exe, main_prog, loss), PARAMS)
        return
    fleet.init()
    strategy = fleet.DistributedStrategy()
    strategy.a_sync = False
    fleet.distributed_optimizer(paddle.optimizer.SGD(0.1), strategy).minimize(loss)
    if fleet.is_server():
        fleet.init_server()
        fleet.run_server()
        if os.environ.get("TRAINING_ROLE") == "HETER_TRAINER":   # not a parameter server
            save(os.path.join(args.out, "heter.npz"), [], PARAMS[1:])
        return
    exe.run(startup)
    fleet.init_worker()
    losses = train(exe, main_prog, loss)
    fleet.stop_worker()
    save(os.path.join(args.out, "trainer.npz"), losses, PARAMS[:1])


if __name__ == "__main__":
    main()
