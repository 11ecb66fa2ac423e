"""DataLoader throughput: batches/s with num_workers=0 vs 2 over a dataset whose samples
each cost ~1 ms of NumPy work (a per-sample Python transform, like image augmentation).

Run: python bench/dataloader_throughput.py [--batches 60] [--batch-size 16]
Prints one line per configuration; no assertions (see bench/RESULTS.md for numbers).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import sampan.io as io  # noqa: E402


def _transform(img: np.ndarray, idx: int) -> np.ndarray:
    """Normalise, flip, blur and crop one 3x128x128 image: plain NumPy, small arrays."""
    x = (img.astype(np.float32) - 127.5) / 127.5
    if idx % 2:
        x = x[:, :, ::-1]
    for _ in range(10):
        x = 0.25 * (np.roll(x, 1, axis=1) + np.roll(x, -1, axis=1) +
                    np.roll(x, 1, axis=2) + np.roll(x, -1, axis=2))
    return np.ascontiguousarray(x[:, 8:120, 8:120])


class Images(io.Dataset):
    def __init__(self, n: int) -> None:
        self.n = n
        self.base = np.random.default_rng(0).integers(0, 256, (3, 128, 128), dtype=np.uint8)

    def __getitem__(self, idx: int):
        return _transform(self.base, idx), idx % 10

    def __len__(self) -> int:
        return self.n


def batches_per_s(ds: Images, batch_size: int, num_workers: int, use_shm: bool,
                  epochs: int = 3) -> float:
    loader = io.DataLoader(ds, batch_size=batch_size, num_workers=num_workers,
                           use_shared_memory=use_shm, persistent_workers=num_workers > 0)
    for _ in loader:  # warm-up epoch (starts persistent workers)
        pass
    start = time.perf_counter()
    count = 0
    for _ in range(epochs):
        for _ in loader:
            count += 1
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ds = Images(args.batches * args.batch_size)
    print(f"cpus={os.cpu_count()} batch_size={args.batch_size}, {args.batches} batches/epoch, 3 epochs, "
          f"best of {args.rounds} rounds")
    configs = [(0, True), (2, True), (2, False)]
    best = {cfg: 0.0 for cfg in configs}
    for _ in range(args.rounds):  # interleaved rounds, best of: robust to a busy machine
        for cfg in configs:
            best[cfg] = max(best[cfg], batches_per_s(ds, args.batch_size, *cfg))
    for (workers, use_shm), rate in best.items():
        label = f"num_workers={workers}" + (f" shm={use_shm}" if workers else "")
        print(f"{label:28s} {rate:8.1f} batches/s  ({rate * args.batch_size:8.0f} samples/s)")
    rate0 = best[(0, True)] * args.batch_size
    print(f"per-sample cost in the main process: {1e3 / rate0:.2f} ms (transform + collate)")

if __name__ == "__main__":
    main()
