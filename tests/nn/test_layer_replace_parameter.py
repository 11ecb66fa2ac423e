"""Assigning a new Parameter to an existing parameter attribute keeps its place in
parameters() / state_dict() (Paddle 3.3.1: ['weight', 'bias'] before and after)."""
import sampan as paddle


def test_replaced_parameter_keeps_its_order():
    layer = paddle.nn.Linear(2, 3)
    new = paddle.create_parameter([2, 3], "float32")
    layer.weight = new
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    assert list(layer.state_dict()) == ["weight", "bias"]
    assert layer.weight is new
