"""The reader-neutral form of a Paddle inference model: ops with named slots and attrs,
variables with shapes/dtypes, feed and fetch names. Both program readers produce it and
the translator consumes it. Imports nothing from sampan.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class POp:
    """One Paddle op: `inputs`/`outputs` map slot names to lists of value names."""
    type: str
    inputs: dict
    outputs: dict
    attrs: dict

    def input(self, slot: str):
        names = self.inputs.get(slot) or []
        return names[0] if names else None

    def output(self, slot: str):
        names = self.outputs.get(slot) or []
        return names[0] if names else None


@dataclass
class PVar:
    name: str
    shape: list
    dtype: str
    persistable: bool = False


@dataclass
class PModel:
    """A whole model: ops in execution order, variables by name, inputs and outputs."""
    ops: list
    vars: dict
    feeds: list
    fetches: list
    fmt: str
    params: list = field(default_factory=list)   # persistable names, in declaration order
    aliases: dict = field(default_factory=dict)  # fetched value -> its output name (PIR)
