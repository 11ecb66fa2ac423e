"""distribution.constraint / distribution.variable, the transforms' _domain/_codomain (as
Paddle names them), Paddle's per-distribution module paths, and base-Transform errors."""
import importlib

import pytest

import sampan as paddle
from sampan.distribution import constraint, transform, variable


def test_constraints_on_numbers_and_tensors():
    assert constraint.Real()(1.0) is True
    assert constraint.Range(0, 1)(0.5) is True and constraint.Range(0, 1)(2) is False
    assert constraint.Positive()(1) is True and constraint.Positive()(-1) is False
    got = constraint.Range(0.0, 1.0)(paddle.to_tensor([0.5, 2.0, -1.0]))
    assert got.numpy().tolist() == [True, False, False]
    assert bool(constraint.simplex(paddle.to_tensor([0.5, 0.5])))
    assert not bool(constraint.simplex(paddle.to_tensor([-0.5, 1.5])))
    with pytest.raises(NotImplementedError):
        constraint.Constraint()(1.0)


def test_variables():
    with pytest.raises(NotImplementedError):
        variable.Variable(False, 0, constraint.Constraint()).constraint(1)
    ind = variable.Independent(variable.real, 10)
    assert (ind.event_rank, ind.is_discrete) == (10, False)
    with pytest.raises(ValueError, match="at least 10"):
        ind.constraint(paddle.rand([2, 3, 4]))
    pos = variable.Independent(variable.positive, 1)
    ok = pos.constraint(paddle.to_tensor([[1.0, 2.0], [1.0, -1.0]]))
    assert ok.numpy().tolist() == [True, False]
    stack = variable.Stack([variable.real], 10)
    assert stack.is_discrete is False
    with pytest.raises(ValueError, match="axis 10"):
        stack.constraint(paddle.rand([2, 3, 4]))


def test_transform_domains():
    exp = transform.ExpTransform()
    assert isinstance(exp._domain, variable.Real) and isinstance(exp._codomain, variable.Positive)
    assert isinstance(transform.AbsTransform()._codomain, variable.Positive)
    assert isinstance(transform.Transform()._codomain, variable.Real)
    sig = transform.SigmoidTransform()._codomain
    assert sig.constraint(paddle.to_tensor([0.5, 1.5])).numpy().tolist() == [True, False]
    chain = transform.ChainTransform([transform.IndependentTransform(exp, k) for k in (1, 10, 8)])
    assert isinstance(chain._domain, variable.Independent)
    assert chain._domain.event_rank == 10
    chain = transform.ChainTransform([transform.IndependentTransform(exp, k) for k in (9, 4, 5)])
    assert chain._codomain.event_rank == 9
    ind = transform.IndependentTransform(exp, 2)
    assert isinstance(ind._domain, variable.Independent) and ind._codomain.event_rank == 2
    assert transform.SoftmaxTransform()._domain.event_rank == 1
    assert isinstance(transform.StackTransform([exp], 0)._domain, variable.Stack)


@pytest.mark.parametrize("module,name", [
    ("continuous_bernoulli", "ContinuousBernoulli"), ("beta", "Beta"), ("normal", "Normal"),
    ("lognormal", "LogNormal"), ("geometric", "Geometric"), ("gumbel", "Gumbel"),
    ("binomial", "Binomial"), ("exponential", "Exponential")])
def test_paddle_module_paths(module, name):
    mod = importlib.import_module(f"sampan.distribution.{module}")
    assert getattr(mod, name) is getattr(paddle.distribution, name)
    assert getattr(paddle.distribution, module) is mod


def test_base_transform_errors_and_shapes():
    t = transform.Transform()
    with pytest.raises(NotImplementedError):
        t.forward_log_det_jacobian(paddle.rand([2, 3]))
    with pytest.raises(NotImplementedError):
        t.inverse_log_det_jacobian(paddle.rand([2, 3]))
    assert transform.ExpTransform().forward_shape([]) == []     # as given, as in Paddle
    assert transform.ExpTransform().forward_shape((2, 3)) == (2, 3)
    assert transform.StickBreakingTransform().forward_shape([2, 3]) == (2, 4)
