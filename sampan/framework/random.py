"""The global random generator: seed(), get/set_rng_state. Random ops receive seeds from it.

Random ops are pure: their kernel takes a `seed` attr; public functions get it from
`op_seed`, so every random result is reproducible after `paddle.seed(n)`. Imports only
framework.flags.

Seeds of random ops follow Paddle 3.3.1:
- eager: each call draws its op seed from the global generator now;
- static: building a Program draws nothing. An op without a fixed seed records seed 0 and
  the Executor draws it from the global generator each time the Program runs, so
  `paddle.seed(s)`, build, run gives what eager gives after `paddle.seed(s)` (and
  `paddle.seed(s)` after building, before running, gives the same). Initializers and dropout
  record `PROGRAM_SEED`: the builder replaces it by the random_seed of the Program being
  built (0 when unset), so `startup.random_seed = s` set before building fixes the
  initial values and `main.random_seed = s` fixes dropout masks; other random ops ignore
  Program.random_seed, as Paddle's PIR programs do.
- host-side draws (samplers, random transform parameters) use `next_seed`, in any mode.
"""
from __future__ import annotations

import numpy as np

from .flags import in_dynamic_mode

# the seed attr of an op that takes the random_seed of the Program it is built into
PROGRAM_SEED = -1


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
    """The next seed of the global generator, in any mode (host-side draws, the Executor)."""
    return default_generator.next_seed()


def op_seed(seed: int = 0, program: bool = False) -> int:
    """The `seed` attr of one random op: `seed` when non-zero; in eager mode a draw of the
    global generator; while a Program is built, 0 (the Executor draws it at every run) or,
    with `program=True`, `PROGRAM_SEED` (the Program's random_seed, fixed at build time)."""
    if seed:
        return int(seed)
    if in_dynamic_mode():
        return default_generator.next_seed()
    return PROGRAM_SEED if program else 0


# functions `seed -> None` that seed the default Programs (static.program registers one when
# it loads; before that no Program exists)
program_seed_setters: list = []


def _manual_program_seed(seed: int) -> None:
    """Paddle's paddle.framework.random._manual_program_seed (its unittests call it): the
    random_seed of the default main and startup Programs and of Programs created later."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"_manual_program_seed: seed must be an int, got "
                        f"{type(seed).__name__}")
    for setter in program_seed_setters:
        setter(int(seed))


def rng(seed_value: int) -> np.random.Generator:
    """The NumPy generator a random kernel uses for one call."""
    return np.random.Generator(np.random.PCG64(seed_value))
