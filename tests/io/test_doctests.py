"""The `Examples:` in sampan.io docstrings run and show the right output."""
import doctest
import importlib

import pytest

MODULES = ["dataset", "sampler", "batch_sampler", "collate", "dataloader", "worker"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"sampan.io.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS |
                             doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
