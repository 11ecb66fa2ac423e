"""The global random generator: seed(), get/set_rng_state. Random ops receive seeds from it.

Random ops are pure: their kernel takes a `seed` attr; public functions draw that seed here,
so every random result is reproducible after `paddle.seed(n)`. Imports nothing from sampan.
"""
from __future__ import annotations

import numpy as np


class Generator:
    """A seedable stream of op seeds (Paddle's `paddle.framework.core.default_cpu_generator`)."""

    def __init__(self, seed: int = 34342423252) -> None:
        self.manual_seed(seed)

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        self._stream = None   # built on first use: `import sampan` need not load numpy.random
        return self

    @property
    def _rng(self):
        if self._stream is None:
            self._stream = np.random.Generator(np.random.PCG64(self._seed))
        return self._stream

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        new = int(np.random.SeedSequence().entropy % (2 ** 63))
        self.manual_seed(new)
        return new

    def next_seed(self) -> int:
        return int(self._rng.integers(1, 2 ** 63 - 1))

    def get_state(self) -> dict:
        return {"seed": self._seed, "state": self._rng.bit_generator.state}

    def set_state(self, state: dict) -> None:
        self._seed = state["seed"]
        self._rng.bit_generator.state = state["state"]


default_generator = Generator()


def seed(seed: int) -> Generator:
    """Seed the global generator; every random op afterwards is deterministic."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"seed: seed must be an int, got {type(seed).__name__}")
    np.random.seed(int(seed) % (2 ** 32))
    return default_generator.manual_seed(int(seed))


def get_rng_state(device=None) -> list:
    return [default_generator.get_state()]


def set_rng_state(state_list, device=None) -> None:
    state = state_list[0] if isinstance(state_list, (list, tuple)) else state_list
    default_generator.set_state(state)


def next_seed() -> int:
    return default_generator.next_seed()


def rng(seed_value: int) -> np.random.Generator:
    """The NumPy generator a random kernel uses for one call."""
    return np.random.Generator(np.random.PCG64(seed_value))
