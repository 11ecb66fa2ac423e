"""Paddle's functional learning-rate decays in paddle.optimizer.lr (noam_decay,
exponential_decay, natural_exp_decay, inverse_time_decay, polynomial_decay, piecewise_decay,
cosine_decay, linear_lr_warmup): each returns the equivalent LRScheduler, as Paddle 3.3.1
does in dynamic mode. sampan returns the scheduler in static mode too (an optimizer built
with it reads its value at every run). Re-exported by optimizer/lr.py; imports its siblings.
"""
from __future__ import annotations

from .lr_cyclic import CosineAnnealingDecay
from .lr_decay import (ExponentialDecay, InverseTimeDecay, LinearWarmup, NaturalExpDecay,
                       NoamDecay, PiecewiseDecay, PolynomialDecay)


def noam_decay(d_model, warmup_steps, learning_rate=1.0) -> NoamDecay:
    """The Noam decay of "Attention is all you need" (see NoamDecay).

    Examples:
        >>> import sampan as paddle
        >>> lr = paddle.optimizer.lr.noam_decay(0.01, 200, learning_rate=2.0)
        >>> lr.step()
        >>> round(lr(), 6)
        0.007071
    """
    return NoamDecay(d_model, warmup_steps, learning_rate=learning_rate)


def exponential_decay(learning_rate, decay_steps, decay_rate,
                      staircase: bool = False) -> ExponentialDecay:
    """learning_rate * decay_rate ** epoch (ExponentialDecay; as in Paddle's dynamic mode,
    decay_steps and staircase are not used)."""
    return ExponentialDecay(learning_rate, decay_rate)


def natural_exp_decay(learning_rate, decay_steps, decay_rate,
                      staircase: bool = False) -> NaturalExpDecay:
    """learning_rate * exp(-decay_rate * epoch) (NaturalExpDecay; decay_steps and staircase
    are not used, as in Paddle's dynamic mode)."""
    return NaturalExpDecay(learning_rate, decay_rate)


def inverse_time_decay(learning_rate, decay_steps, decay_rate,
                       staircase: bool = False) -> InverseTimeDecay:
    """learning_rate / (1 + decay_rate * epoch) (InverseTimeDecay; decay_steps and staircase
    are not used, as in Paddle's dynamic mode)."""
    return InverseTimeDecay(learning_rate, decay_rate)


def polynomial_decay(learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                     cycle: bool = False) -> PolynomialDecay:
    """Polynomial decay from learning_rate to end_learning_rate over decay_steps."""
    return PolynomialDecay(learning_rate, decay_steps, end_learning_rate, power, cycle)


def piecewise_decay(boundaries, values) -> PiecewiseDecay:
    """values[i] while the step is below boundaries[i]; values[-1] after the last one."""
    if len(values) - len(boundaries) != 1:
        raise ValueError(f"piecewise_decay: len(values) - len(boundaries) must be 1, got "
                         f"{len(values)} values and {len(boundaries)} boundaries")
    return PiecewiseDecay(boundaries, values)


def cosine_decay(learning_rate, step_each_epoch, epochs) -> CosineAnnealingDecay:
    """Cosine annealing of learning_rate over `epochs` (CosineAnnealingDecay; step_each_epoch
    is not used, as in Paddle's dynamic mode)."""
    return CosineAnnealingDecay(learning_rate, epochs)


def linear_lr_warmup(learning_rate, warmup_steps, start_lr, end_lr) -> LinearWarmup:
    """Linear warm-up from start_lr to end_lr over warmup_steps, then learning_rate (a float
    or another scheduler); see LinearWarmup."""
    return LinearWarmup(learning_rate, warmup_steps, start_lr, end_lr)
