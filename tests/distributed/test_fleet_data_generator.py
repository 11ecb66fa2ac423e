"""fleet.MultiSlotDataGenerator / MultiSlotStringDataGenerator: records, batching and errors
as Paddle 3.3.1 writes them (outputs recorded from Paddle)."""
import io
import sys

import pytest

import sampan.distributed.fleet as fleet
from sampan.distributed.fleet import data_generator as dg


class _Reader(fleet.MultiSlotDataGenerator):
    def generate_sample(self, line):
        def reader():
            v = line.split()
            yield zip(["dense", "ids", "label"],
                      [[float(v[0]), 0.5], [int(x) for x in v[1:3]], [int(v[3])]])
        return reader


class _Words(fleet.MultiSlotStringDataGenerator):
    def generate_sample(self, line):
        def reader():
            yield [("words", line.split()), ("label", ["1"])]
        return reader


def _run(gen, text, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    gen.run_from_stdin()
    return capsys.readouterr().out


def test_multislot_records_and_proto_info(monkeypatch, capsys):
    r = _Reader()
    r.set_batch(2)
    out = _run(r, "1.5 3 4 0\n2 5 6 1\n3 7 8 1\n", monkeypatch, capsys)
    assert out == "2 1.5 0.5 2 3 4 1 0\n2 2.0 0.5 2 5 6 1 1\n2 3.0 0.5 2 7 8 1 1\n"
    assert r._proto_info == [("dense", "float"), ("ids", "uint64"), ("label", "uint64")]
    assert _run(_Words(), "a b\nc\n", monkeypatch, capsys) == "2 a b 1 1\n1 c 1 1\n"


def test_generate_batch_sees_set_batch_sized_groups(monkeypatch, capsys):
    sizes = []

    class Batched(_Reader):
        def generate_batch(self, samples):
            sizes.append(len(samples))
            return super().generate_batch(samples)

    b = Batched()
    b.set_batch(2)
    _run(b, "1 1 1 0\n2 2 2 0\n3 3 3 0\n", monkeypatch, capsys)
    assert sizes == [2, 1]


@pytest.mark.parametrize("bad, msg", [
    ("x", "must be in list or tuple type"),
    ([("w", [])], "can not be empty"),
    ([(1, [1])], "name<class 'int'> must be in str type"),
    ([("w", (1,))], "elements<class 'tuple'> must be in list type"),
    ([("w", ["s"])], "element<class 'str'> must be in int or float"),
])
def test_multislot_errors(bad, msg):
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        _Reader()._gen_str(bad)


def test_later_lines_must_match_the_first():
    r = _Reader()
    r._gen_str([("a", [1])])
    with pytest.raises(ValueError, match="field set of two given line are inconsistent"):
        r._gen_str([("a", [1]), ("b", [2])])
    with pytest.raises(ValueError, match="require<a>, get<b>"):
        r._gen_str([("b", [1])])


def test_base_class_needs_overrides():
    with pytest.raises(NotImplementedError, match="MultiSlotDataGenerator"):
        dg.DataGenerator()._gen_str([("a", [1])])
    with pytest.raises(NotImplementedError, match="rewrite this function"):
        dg.DataGenerator().generate_sample("x")
