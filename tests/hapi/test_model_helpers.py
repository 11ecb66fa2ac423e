"""paddle.hapi.model.to_list, Paddle's module-level helper (its metric tests import it)."""
from sampan.hapi.model import to_list


def test_to_list():
    assert to_list(None) is None
    assert to_list((1, 2)) == [1, 2] and to_list([3]) == [3] and to_list(4) == [4]
