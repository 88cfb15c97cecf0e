"""The Java expression evaluator: parse, type-check and interpret Java expressions in a frame.

Pure (no I/O): it reaches a VM only through a ``ValueAccess``. Used by breakpoint conditions,
logpoint templates, ``evaluate`` and snapshot watch expressions. See docs/expressions.md.

>>> import trio
>>> from jdwpd.expr import parse, evaluate
>>> class NoFrame:
...     async def local(self, name): return None
...     async def this(self): return None
...     async def find_class(self, name): return None
>>> trio.run(evaluate, "1.0f / 3 + \\"!\\"", NoFrame())
Value(signature='Ljava/lang/String;', data='0.33333334!')
"""

from jdwpd.expr.access import NULL, STRING, Value, ValueAccess
from jdwpd.expr.errors import EvaluationError, ExpressionError, InvocationException
from jdwpd.expr.format import java_double, java_float, primitive_text
from jdwpd.expr.interpreter import evaluate
from jdwpd.expr.parser import MAX_DEPTH, MAX_LENGTH, Expression, parse
from jdwpd.expr.template import Template, parse_template, render
from jdwpd.expr.tree import unparse

__all__ = [
    "parse", "parse_template", "evaluate", "render", "Expression", "Template", "ExpressionError",
    "EvaluationError", "InvocationException", "Value", "ValueAccess", "STRING", "NULL", "unparse",
    "java_double", "java_float", "primitive_text", "MAX_DEPTH", "MAX_LENGTH",
]
