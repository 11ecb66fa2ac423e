"""Random operators: uniform, normal, randint, randperm, bernoulli, multinomial, poisson, ...

Kernels are pure: each takes a `seed` attr (drawn by the public function from the global
generator) and draws from `framework.random.rng(seed)`, so a result is a function of its
attrs and inputs. None is differentiable. Imports `framework` and `ops.opdef` only.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from ..framework.random import rng
from .opdef import OpDef, TensorSpec, register


class _Random(OpDef):
    random = True


@register
class Uniform(_Random):
    """out ~ U[min, max) elementwise, of `shape` and float `dtype`."""

    name = "uniform"
    inputs = ()
    attrs = {"shape": [], "dtype": "float32", "min": -1.0, "max": 1.0, "seed": 0}

    def infer(self, shape=(), dtype="float32", min=-1.0, max=1.0, seed=0):
        return TensorSpec(shape, dtype)

    def compute(self, xp, shape=(), dtype="float32", min=-1.0, max=1.0, seed=0):
        out = rng(seed).uniform(min, max, tuple(shape))
        return out.astype(_dt.convert_dtype(dtype).np)


@register
class Normal(_Random):
    """out ~ N(mean, std ** 2) elementwise, of `shape` and float `dtype`."""

    name = "normal"
    inputs = ()
    attrs = {"shape": [], "mean": 0.0, "std": 1.0, "dtype": "float32", "seed": 0}

    def infer(self, shape=(), mean=0.0, std=1.0, dtype="float32", seed=0):
        return TensorSpec(shape, dtype)

    def compute(self, xp, shape=(), mean=0.0, std=1.0, dtype="float32", seed=0):
        out = rng(seed).normal(mean, std, tuple(shape))
        return out.astype(_dt.convert_dtype(dtype).np)


@register
class Randint(_Random):
    """out ~ uniform integers in [low, high), of `shape` and integer `dtype`."""

    name = "randint"
    inputs = ()
    attrs = {"low": 0, "high": 1, "shape": [], "dtype": "int64", "seed": 0}

    def infer(self, low=0, high=1, shape=(), dtype="int64", seed=0):
        if high <= low:
            raise ValueError(f"randint: high must be greater than low, got low={low}, "
                             f"high={high}")
        return TensorSpec(shape, dtype)

    def compute(self, xp, low=0, high=1, shape=(), dtype="int64", seed=0):
        self.infer(low, high, shape, dtype, seed)
        out = rng(seed).integers(low, high, tuple(shape), dtype=xp.int64)
        return out.astype(_dt.convert_dtype(dtype).np)


@register
class Randperm(_Random):
    """out = a random permutation of 0 .. n-1 in `dtype`."""

    name = "randperm"
    inputs = ()
    attrs = {"n": 1, "dtype": "int64", "seed": 0}

    def infer(self, n=1, dtype="int64", seed=0):
        if n < 0:
            raise ValueError(f"randperm: n must be non-negative, got {n}")
        return TensorSpec((n,), dtype)

    def compute(self, xp, n=1, dtype="int64", seed=0):
        self.infer(n, dtype, seed)
        return rng(seed).permutation(n).astype(_dt.convert_dtype(dtype).np)


@register
class Bernoulli(_Random):
    """out[i] = 1 with probability x[i] else 0, in x's (float) dtype."""

    name = "bernoulli"
    attrs = {"seed": 0}
    check = True

    def infer(self, x, seed=0):
        if x.dtype.kind != "f":
            raise TypeError(f"bernoulli: x must be a floating point tensor of probabilities, "
                            f"got {x.dtype.name}")
        return x

    def compute(self, xp, x, seed=0):
        return (rng(seed).random(x.shape) < x).astype(x.dtype)


@register
class Poisson(_Random):
    """out[i] ~ Poisson(rate x[i]), in x's (float) dtype."""

    name = "poisson"
    attrs = {"seed": 0}
    check = True

    def infer(self, x, seed=0):
        if x.dtype.kind != "f":
            raise TypeError(f"poisson: x must be a floating point tensor of rates, got "
                            f"{x.dtype.name}")
        return x

    def compute(self, xp, x, seed=0):
        return xp.asarray(rng(seed).poisson(x.astype(xp.float64))).astype(x.dtype)


@register
class Exponential(_Random):
    """out ~ Exponential(rate lam) elementwise, shaped and typed like x (Tensor.exponential_)."""

    name = "exponential"
    attrs = {"lam": 1.0, "seed": 0}
    saves = ()
    check = True

    def infer(self, x, lam=1.0, seed=0):
        if x.dtype.kind != "f":
            raise TypeError(f"exponential_: x must be a floating point tensor, got "
                            f"{x.dtype.name}")
        return x

    def compute(self, xp, x, lam=1.0, seed=0):
        return rng(seed).exponential(1.0 / lam, x.shape).astype(x.dtype)


@register
class Multinomial(_Random):
    """out = `num_samples` category indices per row drawn with probabilities ∝ x (int64).

    x is 1-D [C] or 2-D [B, C] of non-negative weights (rows need not sum to 1).
    """

    name = "multinomial"
    attrs = {"num_samples": 1, "replacement": False, "seed": 0}
    check = True

    def infer(self, x, num_samples=1, replacement=False, seed=0):
        if x.ndim not in (1, 2):
            raise ValueError(f"multinomial: x must be 1-D or 2-D, got shape {list(x.shape)}")
        if x.dtype.kind != "f":
            raise TypeError(f"multinomial: x must be a floating point tensor, got "
                            f"{x.dtype.name}")
        cats = x.shape[-1]
        if not replacement and cats != -1 and num_samples > cats:
            raise ValueError(f"multinomial: num_samples ({num_samples}) must not exceed the "
                             f"number of categories ({cats}) when replacement is False")
        return TensorSpec(tuple(x.shape[:-1]) + (num_samples,), _dt.int64)

    def compute(self, xp, x, num_samples=1, replacement=False, seed=0):
        gen = rng(seed)
        rows = x.reshape(-1, x.shape[-1]).astype(xp.float64)
        if (rows < 0).any() or not xp.isfinite(rows).all():
            raise ValueError("multinomial: x must hold finite, non-negative weights")
        out = xp.empty((rows.shape[0], num_samples), dtype=xp.int64)
        for i, w in enumerate(rows):
            total = w.sum()
            if total <= 0:
                raise ValueError(f"multinomial: the weights of row {i} sum to {total}; "
                                 f"each row needs a positive sum")
            if not replacement and num_samples > int((w > 0).sum()):
                raise ValueError(f"multinomial: row {i} has only {int((w > 0).sum())} "
                                 f"non-zero weights, fewer than num_samples={num_samples} "
                                 f"without replacement")
            out[i] = gen.choice(w.size, num_samples, replace=replacement, p=w / total)
        return out.reshape(x.shape[:-1] + (num_samples,))


@register
class Cauchy(_Random):
    """out ~ Cauchy(loc, scale) elementwise, shaped and typed like x (Tensor.cauchy_)."""

    name = "cauchy"
    attrs = {"loc": 0.0, "scale": 1.0, "seed": 0}
    saves = ()
    check = True

    def infer(self, x, loc=0.0, scale=1.0, seed=0):
        if x.dtype.kind != "f":
            raise TypeError(f"cauchy_: x must be a floating point tensor, got {x.dtype.name}")
        return x

    def compute(self, xp, x, loc=0.0, scale=1.0, seed=0):
        u = rng(seed).random(x.shape)
        return xp.asarray(loc + scale * xp.tan(xp.pi * (u - 0.5))).astype(x.dtype)


@register
class Geometric(_Random):
    """out = log(u) / log(1 - probs), u ~ U(0, 1], shaped and typed like x (Tensor.geometric_).

    NOTE: like Paddle's geometric_, the values are not rounded up to integers: this is the
    continuous (exponential) relaxation whose ceiling is Geometric(probs) on {1, 2, ...}.
    """

    name = "geometric"
    attrs = {"probs": 0.5, "seed": 0}
    saves = ()
    check = True

    def infer(self, x, probs=0.5, seed=0):
        if x.dtype.kind != "f":
            raise TypeError(f"geometric_: x must be a floating point tensor, got "
                            f"{x.dtype.name}")
        if not 0 < probs < 1:
            raise ValueError(f"geometric_: probs must be in (0, 1), got {probs}")
        return x

    def compute(self, xp, x, probs=0.5, seed=0):
        u = 1.0 - rng(seed).random(x.shape)  # in (0, 1]
        return xp.asarray(xp.log(u) / xp.log1p(-probs)).astype(x.dtype)
