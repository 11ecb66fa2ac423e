"""utils.unique_name: per-key numbering, guard(prefix), switch round trips (Paddle's rules)."""
import collections

import pytest

import sampan as paddle
from sampan.utils import unique_name


def test_guard_restarts_numbering_and_restores():
    before = unique_name.generate("s4key")
    with unique_name.guard():
        assert unique_name.generate("s4key") == "s4key_0"
        assert unique_name.generate("s4key") == "s4key_1"
        assert unique_name.generate("tmp") == "tmp_0"
    after = unique_name.generate("s4key")
    assert int(after.rsplit("_", 1)[1]) == int(before.rsplit("_", 1)[1]) + 1


@pytest.mark.parametrize("prefix", ["A", b"A"])
def test_guard_prefix(prefix):
    with unique_name.guard(prefix):
        assert unique_name.generate("fc") == "Afc_0"
    with unique_name.guard("B"):
        assert unique_name.generate("fc") == "Bfc_0"
    with unique_name.guard():
        assert unique_name.generate("") == "_0"


def test_switch_returns_previous_pair():
    with unique_name.guard():
        assert unique_name.generate("fc") == "fc_0"
        old_gen, old_checker = unique_name.switch()
        assert isinstance(old_gen, unique_name.UniqueNameGenerator)
        assert unique_name.generate("fc") == "fc_0"
        unique_name.switch(old_gen, old_checker)
        assert unique_name.generate("fc") == "fc_1"


def test_switch_with_counters_dict_shares_it():
    counters = collections.defaultdict(int)
    old = unique_name.switch(counters)
    try:
        assert unique_name.generate("w") == "w_0"
    finally:
        unique_name.switch(old)
    assert counters["w"] == 1


def test_switch_bad_generator():
    with pytest.raises(TypeError, match="new_generator"):
        unique_name.switch(3)


def test_generator_clone_and_checker():
    gen = unique_name.UniqueNameGenerator("p_")
    assert gen("a") == "p_a_0"
    twin = gen.clone()
    assert gen("a") == twin("a") == "p_a_1"
    checker = unique_name.DygraphParameterNameChecker()
    assert checker("w") is False and checker("w") is True


def test_base_alias_is_same_module():
    assert paddle.base.unique_name is unique_name
