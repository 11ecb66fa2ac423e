"""paddle.distributed.fleet.data_generator: the user-side converters that turn raw text lines
into MultiSlot records (`<n> v1 .. vn <m> w1 .. wm ...`), the text an InMemoryDataset /
QueueDataset reads through its `pipe_command` (e.g. `python my_reader.py`).

A user subclasses MultiSlotDataGenerator (int/float values) or MultiSlotStringDataGenerator
(string values), overrides `generate_sample(line)` (and optionally `generate_batch`) and calls
`run_from_stdin()`; each parsed sample is written to stdout. Standard library only.
"""
from __future__ import annotations

import sys
from typing import Callable, Iterable

__all__ = ["DataGenerator", "MultiSlotDataGenerator", "MultiSlotStringDataGenerator"]


class DataGenerator:
    """Base class: reads lines, calls `generate_sample`, batches the samples by `set_batch`'s
    size through `generate_batch` and writes each sample as `_gen_str` formats it.

    Examples:
        >>> import sampan.distributed.fleet as fleet
        >>> class Words(fleet.MultiSlotDataGenerator):
        ...     def generate_sample(self, line):
        ...         def reader():
        ...             yield [("words", [int(w) for w in line.split()]), ("label", [1])]
        ...         return reader
        >>> Words()._gen_str([("words", [3, 4]), ("label", [1])])
        '2 3 4 1 1\\n'
    """

    def __init__(self) -> None:
        self._proto_info = None
        self.batch_size_ = 32

    def set_batch(self, batch_size: int) -> None:
        """The number of samples handed to `generate_batch` at a time (default 32)."""
        self.batch_size_ = batch_size

    def run_from_memory(self) -> None:
        """Write the samples of `generate_sample(None)` to stdout (debugging, benchmarks)."""
        self._write(self.generate_sample(None)())

    def run_from_stdin(self) -> None:
        """Parse every line of stdin with `generate_sample` and write the records to stdout."""
        self._write(sample for line in sys.stdin for sample in self.generate_sample(line)())

    def _write(self, samples: Iterable) -> None:
        batch = []
        for sample in samples:
            if sample is None:
                continue
            batch.append(sample)
            if len(batch) == self.batch_size_:
                self._flush(batch)
                batch = []
        if batch:
            self._flush(batch)

    def _flush(self, batch: list) -> None:
        for sample in self.generate_batch(batch)():
            sys.stdout.write(self._gen_str(sample))

    def _gen_str(self, line) -> str:
        raise NotImplementedError("pls use MultiSlotDataGenerator or PairWiseDataGenerator")

    def generate_sample(self, line: str | None) -> Callable[[], Iterable]:
        """Override: return a generator function yielding samples `[(name, [value, ...]), ...]`
        parsed from `line`."""
        raise NotImplementedError(
            "Please rewrite this function to return a list or tuple: "
            "[(name, [feasign, ...]), ...] or ((name, [feasign, ...]), ...)")

    def generate_batch(self, samples: list) -> Callable[[], Iterable]:
        """Override to process a batch of samples (e.g. padding); default: unchanged."""
        def local_iter():
            yield from samples
        return local_iter


def _fields(line, example: str) -> list:
    if isinstance(line, zip):
        line = list(line)
    if not isinstance(line, (list, tuple)):
        raise ValueError(f"the output of process() must be in list or tuple type, got "
                         f"{type(line).__name__}. Example: {example}")
    return list(line)


class MultiSlotStringDataGenerator(DataGenerator):
    """A DataGenerator whose slot values are strings, written as they are."""

    def _gen_str(self, line) -> str:
        parts = []
        for name, elements in _fields(line, "[('words', ['1926', '08', '17']), ('label', ['1'])]"):
            parts.append(" ".join([str(len(elements)), *elements]))
        return " ".join(parts) + "\n"


class MultiSlotDataGenerator(DataGenerator):
    """A DataGenerator whose slot values are ints or floats; the first sample fixes the slot
    names and order (a slot turns `float` once a float value appears in it)."""

    def _gen_str(self, line) -> str:
        fields = _fields(line, "[('words', [1926, 8, 17]), ('label', [1])]")
        first = self._proto_info is None
        if first:
            self._proto_info = []
        elif len(fields) != len(self._proto_info):
            raise ValueError("the complete field set of two given line are inconsistent.")
        parts = []
        for index, (name, elements) in enumerate(fields):
            _check_slot(name, elements)
            if first:
                self._proto_info.append((name, "uint64"))
            elif name != self._proto_info[index][0]:
                raise ValueError(f"the field name of two given line are not match: "
                                 f"require<{self._proto_info[index][0]}>, get<{name}>.")
            checked = first or self._proto_info[index][1] != "float"  # as Paddle: a float
            for elem in elements if checked else ():                   # slot takes any value
                if isinstance(elem, float):
                    self._proto_info[index] = (name, "float")
                elif not isinstance(elem, int):
                    raise ValueError(f"the type of element{type(elem)} must be in int or float")
            parts.append(" ".join([str(len(elements)), *map(str, elements)]))
        return " ".join(parts) + "\n"


def _check_slot(name, elements) -> None:
    if not isinstance(name, str):
        raise ValueError(f"name{type(name)} must be in str type")
    if not isinstance(elements, list):
        raise ValueError(f"elements{type(elements)} must be in list type")
    if not elements:
        raise ValueError("the elements of each field can not be empty, you need padding it "
                         "in process().")
