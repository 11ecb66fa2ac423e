"""`paddle.io`: datasets, samplers and the DataLoader (with worker processes).

Imports framework and its own modules only (never nn or optimizer).
"""
from __future__ import annotations

from .batch_sampler import BatchSampler, DistributedBatchSampler
from .collate import default_collate_fn, default_convert_fn
from .dataloader import DataLoader
from .dataset import (ChainDataset, ComposeDataset, ConcatDataset, Dataset, IterableDataset,
                      Subset, TensorDataset, random_split)
from .sampler import (RandomSampler, Sampler, SequenceSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from .worker import WorkerInfo, get_worker_info

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
    "ConcatDataset", "Subset", "random_split", "Sampler", "SequenceSampler", "RandomSampler",
    "WeightedRandomSampler", "SubsetRandomSampler", "BatchSampler", "DistributedBatchSampler",
    "DataLoader", "get_worker_info", "WorkerInfo", "default_collate_fn", "default_convert_fn",
]
