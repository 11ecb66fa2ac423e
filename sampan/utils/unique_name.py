"""Unique names for variables and layers (`linear_0.w_0`, `tmp_3`): generate/switch/guard.

One module-level `UniqueNameGenerator` numbers names per key; `guard(prefix)` and `switch()`
swap it for a fresh one (a str/bytes `guard` argument becomes the new generator's prefix, as
in Paddle). Internal code may pass a plain counters dict to `switch` (the dict becomes the new
generator's `ids`, so numbering it keeps survives), and passes back what `switch` returned.
"""
from __future__ import annotations

import collections
import contextlib
import copy

__all__ = ["generate", "switch", "guard"]


class UniqueNameGenerator:
    """Names `prefix + key + '_' + N`, N counting up from 0 per key."""

    def __init__(self, prefix: str | None = None):
        self.ids = collections.defaultdict(int)
        self.prefix = "" if prefix is None else prefix

    def __call__(self, key: str) -> str:
        return self.generate(key)

    def generate(self, key: str) -> str:
        n = self.ids[key]
        self.ids[key] += 1
        return self.prefix + "_".join([key, str(n)])

    def generate_with_ignorable_key(self, key: str) -> str:
        return self.generate(key)

    def clone(self) -> "UniqueNameGenerator":
        new = UniqueNameGenerator(self.prefix)
        new.ids = copy.deepcopy(self.ids)
        return new


class DygraphParameterNameChecker:
    """Remembers parameter names; calling it says whether a name was seen before."""

    def __init__(self):
        self._name_set: set = set()

    def __call__(self, name: str) -> bool:
        if name in self._name_set:
            return True
        self._name_set.add(name)
        return False


generator = UniqueNameGenerator()
dygraph_parameter_name_checker = DygraphParameterNameChecker()


def generate(key: str) -> str:
    """Return a unique name ``key_N`` (with the current guard's prefix, if any).

    Args:
        key (str): the stem of the name.

    Returns:
        str: ``prefix + key + '_' + N``, N counting up from 0 per key in the current namespace.

    Examples:
        >>> import sampan as paddle
        >>> with paddle.utils.unique_name.guard():
        ...     names = [paddle.utils.unique_name.generate('fc') for _ in range(2)]
        >>> print(*names)
        fc_0 fc_1
    """
    return generator(key)


def generate_with_ignorable_key(key: str) -> str:
    """Like `generate` (Paddle names dygraph temporaries differently; sampan does not)."""
    return generator(key)


def _as_generator(new_generator) -> UniqueNameGenerator:
    if new_generator is None:
        return UniqueNameGenerator()
    if isinstance(new_generator, UniqueNameGenerator):
        return new_generator
    if isinstance(new_generator, dict):     # internal: a counters dict, shared as ids
        gen = UniqueNameGenerator()
        gen.ids = new_generator
        return gen
    raise TypeError("paddle.utils.unique_name.switch: new_generator must be a "
                    f"UniqueNameGenerator or None, got {type(new_generator).__name__}")


def switch(new_generator=None, new_para_name_checker=None) -> tuple:
    """Switch to a new namespace (a fresh one when `new_generator` is None).

    Args:
        new_generator (UniqueNameGenerator, optional): the namespace to use. Default None: a
            new anonymous one. The pair returned by an earlier `switch` is accepted too.
        new_para_name_checker (DygraphParameterNameChecker, optional): Default None: a new one.

    Returns:
        tuple: the previous (UniqueNameGenerator, DygraphParameterNameChecker).

    Examples:
        >>> import sampan as paddle
        >>> with paddle.utils.unique_name.guard():
        ...     name1 = paddle.utils.unique_name.generate('fc')
        ...     old_gen, old_checker = paddle.utils.unique_name.switch()
        ...     name2 = paddle.utils.unique_name.generate('fc')
        ...     _ = paddle.utils.unique_name.switch(old_gen, old_checker)
        ...     name3 = paddle.utils.unique_name.generate('fc')
        >>> print(name1, name2, name3)
        fc_0 fc_0 fc_1
    """
    global generator, dygraph_parameter_name_checker
    if isinstance(new_generator, tuple) and new_para_name_checker is None:
        new_generator, new_para_name_checker = new_generator
    old = (generator, dygraph_parameter_name_checker)
    generator = _as_generator(new_generator)
    dygraph_parameter_name_checker = (DygraphParameterNameChecker()
                                      if new_para_name_checker is None
                                      else new_para_name_checker)
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Use a new namespace inside the `with` block; names count from 0 again.

    Args:
        new_generator (str|bytes|UniqueNameGenerator, optional): a str or bytes becomes the
            prefix of every name generated in the block. Default None: no prefix.

    Examples:
        >>> import sampan as paddle
        >>> with paddle.utils.unique_name.guard('A'):
        ...     name_1 = paddle.utils.unique_name.generate('fc')
        >>> with paddle.utils.unique_name.guard('B'):
        ...     name_2 = paddle.utils.unique_name.generate('fc')
        >>> print(name_1, name_2)
        Afc_0 Bfc_0
    """
    if isinstance(new_generator, bytes):
        new_generator = new_generator.decode()
    if isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(*old)
