"""`paddle.base.wrapped_decorator`: decorators that keep the wrapped function's signature."""
from __future__ import annotations

import contextlib
import functools


def wrap_decorator(decorator_func):
    """Turn `decorator_func(fn) -> wrapper` into a decorator whose result keeps fn's
    name, docstring and signature."""
    @functools.wraps(decorator_func)
    def decorator(fn):
        return functools.wraps(fn)(decorator_func(fn))
    return decorator


signature_safe_contextmanager = wrap_decorator(contextlib.contextmanager)
