"""Executor.train_from_dataset / infer_from_dataset: run a Program once per batch that a
dataset yields (paddle.distributed.InMemoryDataset / QueueDataset, or any object with a
`_batches()` generator of {variable name: array} feeds). One thread runs the batches in order.
"""
from __future__ import annotations

import time

import numpy as np

from .program import default_main_program

__all__ = ["run_from_dataset"]


def _check(api: str, dataset, fetch_list, fetch_info, print_period: int):
    if dataset is None or not hasattr(dataset, "_batches"):
        raise TypeError(f"Executor.{api}: dataset must be a paddle.distributed.InMemoryDataset"
                        f" or QueueDataset, got {type(dataset).__name__}")
    fetch_list = list(fetch_list or [])
    fetch_info = list(fetch_info or [])
    if fetch_info and len(fetch_info) != len(fetch_list):
        raise ValueError(f"Executor.{api}: fetch_info ({len(fetch_info)} names) must name each "
                         f"of fetch_list ({len(fetch_list)} items)")
    if print_period <= 0:
        raise ValueError(f"Executor.{api}: print_period must be > 0, got {print_period}")
    return fetch_list, fetch_info or [getattr(f, "name", str(f)) for f in fetch_list]


def run_from_dataset(exe, api: str, program, dataset, scope, fetch_list, fetch_info,
                     print_period: int, fetch_handler) -> None:
    """Run `program` on every batch of `dataset`; every `print_period` batches print the
    fetched values ("<info>: <value>") and give them to fetch_handler.handler({name: value})."""
    fetch_list, fetch_info = _check(api, dataset, fetch_list, fetch_info, print_period)
    program = default_main_program() if program is None else program
    if fetch_handler is not None:
        fetch_list = list(fetch_handler.var_dict.values())
        fetch_info = list(fetch_handler.var_dict)
    for step, feed in enumerate(dataset._batches(), 1):
        outs = exe.run(program, feed=feed, fetch_list=fetch_list, scope=scope)
        if fetch_list and step % print_period == 0:
            report_fetch(fetch_handler, fetch_info, outs, f"batch: [{step}], ")


def report_fetch(fetch_handler, info: list, values: list, where: str = "") -> None:
    """Hand fetched values to `fetch_handler.handler({name: value})`, or print them as
    Paddle's trainers do: `time: [...], <where>name[size]:[values], ...`."""
    if fetch_handler is not None:
        fetch_handler.handler(dict(zip(info, values)))
        return
    print(f"time: [{time.strftime('%Y-%m-%d %H:%M:%S')}], {where}" +
          ", ".join(f"{n}[{np.size(v)}]:{np.asarray(v).ravel().tolist()}"
                    for n, v in zip(info, values)))
