"""The examples in jdwpd.expr's docstrings run and stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["errors", "tree", "lexer", "types", "format", "parser", "interpreter", "template", "__init__"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module("jdwpd.expr" if name == "__init__" else f"jdwpd.expr.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
