"""Wide & deep CTR model trained with parameter servers: Paddle's static PS recipe
(fleet.init, fleet.distributed_optimizer(...).minimize, is_server/init_server/run_server,
is_worker/init_worker/train/stop_worker) with `import sampan as paddle`.

Both embedding tables have 10^7 rows, but only the rows of ids seen in training ever exist
(on the servers, sharded by id). Clicks depend on a few "hot" feature ids, so the wide part
learns them. Run on 2 parameter servers and 2 trainers:

    python -m sampan.distributed.launch --server_num 2 --trainer_num 2 examples/ps_ctr.py

or in one process (the tables then live in-process):

    python examples/ps_ctr.py
"""
from __future__ import annotations

import argparse
import os

import numpy as np

import sampan as paddle
import sampan.distributed.fleet as fleet

VOCAB = 10 ** 7      # rows of each sparse table
SLOTS = 2            # sparse feature slots per example
DENSE = 4            # dense features
EMB = 8              # deep embedding width


def synthetic_data(n: int, seed: int = 0) -> dict:
    """n examples: SLOTS ids drawn from 400 ids spread over [0, VOCAB), DENSE floats, and a
    click label that mostly depends on whether the ids are among 40 hot ones."""
    rng = np.random.default_rng(seed)
    used = rng.choice(VOCAB, 400, replace=False)
    hot = used[:40]
    ids = rng.choice(used, (n, SLOTS))
    dense = rng.standard_normal((n, DENSE)).astype("float32")
    score = 3.0 * np.isin(ids[:, 0], hot) + 2.5 * np.isin(ids[:, 1], hot) \
        + 0.5 * dense[:, 0] - 1.5
    label = (rng.random(n) < 1.0 / (1.0 + np.exp(-score))).astype("int64")
    return {"ids": ids.reshape(n, SLOTS, 1).astype("int64"), "dense": dense,
            "label": label.reshape(n, 1)}


def wide_and_deep():
    """The network: (loss, predicted click probability, AUC variable)."""
    ids = paddle.static.data("ids", [None, SLOTS, 1], "int64")
    dense = paddle.static.data("dense", [None, DENSE], "float32")
    label = paddle.static.data("label", [None, 1], "int64")
    init = paddle.nn.initializer.Uniform(-0.05, 0.05)
    deep_emb = paddle.static.nn.sparse_embedding(
        ids, [VOCAB, EMB], param_attr=paddle.ParamAttr(name="deep_emb", initializer=init))
    wide_emb = paddle.static.nn.sparse_embedding(
        ids, [VOCAB, 1], param_attr=paddle.ParamAttr(name="wide_emb", initializer=init))
    deep = paddle.concat([paddle.reshape(deep_emb, [-1, SLOTS * EMB]), dense], axis=1)
    deep = paddle.static.nn.fc(deep, 32, activation="relu")
    deep = paddle.static.nn.fc(deep, 16, activation="relu")
    logit = paddle.static.nn.fc(deep, 1) + paddle.sum(wide_emb, axis=1)
    prob = paddle.nn.functional.sigmoid(logit)
    loss = paddle.mean(paddle.nn.functional.binary_cross_entropy_with_logits(
        logit, paddle.cast(label, "float32")))
    auc, _, _ = paddle.static.auc(paddle.concat([1 - prob, prob], axis=1), label)
    return loss, prob, auc


def train(exe, loss, prob, auc, data: dict, epochs: int, batch: int) -> dict:
    """Each global batch is split between the trainers (this one takes its slice)."""
    k, n_workers = fleet.worker_index(), fleet.worker_num()
    n = len(data["label"])
    per = batch // n_workers
    mine, probs, losses = [], [], []
    for epoch in range(epochs):
        for start in range(0, n - batch + 1, batch):
            rows = np.arange(start + k * per, start + (k + 1) * per)
            feed = {name: value[rows] for name, value in data.items()}
            loss_v, prob_v, auc_v = exe.run(paddle.static.default_main_program(),
                                            feed=feed, fetch_list=[loss, prob, auc])
            losses.append(float(loss_v))
            if epoch == epochs - 1:
                mine.append(rows)
                probs.append(prob_v.reshape(-1))
        print(f"trainer {k} epoch {epoch}: loss {np.mean(losses[-(n // batch):]):.4f} "
              f"auc {float(auc_v):.4f}")
    return {"rows": np.concatenate(mine), "prob": np.concatenate(probs),
            "loss": np.array(losses), "auc": float(auc_v)}


def main(epochs: int = 4, batch: int = 64, n: int = 2048, sync: bool = True,
         out: str | None = None):
    paddle.enable_static()
    paddle.seed(0)
    fleet.init()
    loss, prob, auc = wide_and_deep()
    strategy = fleet.DistributedStrategy()
    strategy.a_sync = not sync
    optimizer = fleet.distributed_optimizer(paddle.optimizer.Adagrad(learning_rate=0.05),
                                            strategy)
    optimizer.minimize(loss)

    if fleet.is_server():
        fleet.init_server()
        fleet.run_server()
        return None
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(paddle.static.default_startup_program())
    fleet.init_worker()
    result = train(exe, loss, prob, auc, synthetic_data(n), epochs, batch)
    from sampan.distributed.ps.client import get_client   # sampan extra: rows that exist
    result["table_rows"] = get_client().table_sizes()
    fleet.stop_worker()
    if out:
        os.makedirs(out, exist_ok=True)
        np.savez(os.path.join(out, f"trainer_{fleet.worker_index()}.npz"),
                 rows=result["rows"], prob=result["prob"], loss=result["loss"],
                 auc=result["auc"], table_rows=[result["table_rows"].get("deep_emb", 0),
                                                result["table_rows"].get("wide_emb", 0)])
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--num_examples", type=int, default=2048)
    parser.add_argument("--async_mode", action="store_true", help="a_sync=True")
    parser.add_argument("--out", default=None, help="save each trainer's results here")
    args = parser.parse_args()
    main(args.epochs, args.batch, args.num_examples, not args.async_mode, args.out)
