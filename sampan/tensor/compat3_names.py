"""Paddle 3.x top-level dtype aliases and constants (paddle.float is float32, paddle.long is
int64, paddle.pi, paddle.newaxis, paddle.manual_seed). A module of names only: it defines no
functions, because `float`/`int` here shadow the builtins. Imports `framework`.
"""
from __future__ import annotations

import math as _math

from ..framework import dtype as _dt
from ..framework.random import seed as manual_seed

float, double, half = _dt.float32, _dt.float64, _dt.float16  # noqa: A001
cfloat, cdouble = _dt.complex64, _dt.complex128
int, long, short = _dt.int32, _dt.int64, _dt.int16  # noqa: A001
e, inf, nan, pi = _math.e, _math.inf, _math.nan, _math.pi
newaxis = None

__all__ = ["cdouble", "cfloat", "double", "e", "float", "half", "inf", "int", "long",
           "manual_seed", "nan", "newaxis", "pi", "short"]
