"""Logpoint templates: text with ``{expression}`` parts, ``{{`` and ``}}`` for literal braces.

>>> t = parse_template("paid {order.id} amount={amount} {{ok}}")
>>> [str(e) for e in t.expressions], t.parts[0], t.parts[-1]
(['order.id', 'amount'], 'paid ', ' {ok}')
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable

import attrs

from jdwpd.expr.access import STRING, Value, ValueAccess
from jdwpd.expr.errors import ExpressionError
from jdwpd.expr.interpreter import Evaluator
from jdwpd.expr.parser import MAX_LENGTH, Expression, parse
from jdwpd.expr.types import BOXES, type_name

__all__ = ["Template", "parse_template", "render"]

FormatValue = Callable[[Value], "str | Awaitable[str]"]


@attrs.frozen
class Template:
    """A parsed template: ``parts`` alternate literal text (``str``) and ``Expression``s, in order."""

    text: str
    parts: tuple[str | Expression, ...]

    @property
    def expressions(self) -> tuple[Expression, ...]:
        """The expression parts, in order."""
        return tuple(part for part in self.parts if isinstance(part, Expression))

    @property
    def needs_invoke(self) -> bool:
        """Whether any part may call a method in the VM (see ``Expression.needs_invoke``)."""
        return any(e.needs_invoke for e in self.expressions)

    def __str__(self) -> str:
        return self.text


def _closing_brace(text: str, start: int) -> int:
    """Where the ``}`` closing the part opened at ``text[start - 1]`` is, skipping quoted literals; -1 if none."""
    pos, quote = start, None
    while pos < len(text):
        ch = text[pos]
        if quote:
            if ch == "\\":
                pos += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "}":
            return pos
        pos += 1
    return -1


def parse_template(text: str) -> Template:
    """Parse a template; an ExpressionError's column counts from the template's start.

    >>> parse_template("x={1 +}")
    Traceback (most recent call last):
    ...
    jdwpd.expr.errors.ExpressionError: illegal start of expression (column 7)
        x={1 +}
              ^
    """
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"template too long ({len(text)} characters; at most {MAX_LENGTH})")
    parts: list[str | Expression] = []
    literal: list[str] = []
    pos = 0
    while pos < len(text):
        ch = text[pos]
        if ch in "{}" and text.startswith(ch * 2, pos):
            literal.append(ch)
            pos += 2
            continue
        if ch == "}":
            raise ExpressionError("single '}' in template (write '}}' for a brace)", pos + 1, text)
        if ch != "{":
            literal.append(ch)
            pos += 1
            continue
        end = _closing_brace(text, pos + 1)
        if end < 0:
            raise ExpressionError("unclosed '{' in template (write '{{' for a brace)", pos + 1, text)
        source = text[pos + 1 : end]
        if not source.strip():
            raise ExpressionError("empty expression in template", pos + 1, text)
        try:
            expression = parse(source)
        except ExpressionError as err:
            # Point into the whole template: that is the text the user wrote.
            raise ExpressionError(err.message, None if err.column is None else err.column + pos + 1, text) from None
        if literal:
            parts.append("".join(literal))
            literal = []
        parts.append(expression)
        pos = end + 1
    if literal:
        parts.append("".join(literal))
    return Template(text, tuple(parts))


async def _default_format(evaluator: Evaluator, value: Value) -> str:
    """``String.valueOf`` for primitives, strings, boxes and null; ``toString()`` for other objects
    where calls are allowed, else ``<Type>``."""
    plain = value.is_null or value.is_primitive or value.signature == STRING or value.signature in BOXES
    if not plain and not evaluator.allow_invoke:
        # an enum constant prints as its name (as toString() would, and as snapshots show it), read
        # from java.lang.Enum's field: no code runs in the VM
        access = evaluator.access
        try:
            if await access.is_instance(value, "Ljava/lang/Enum;"):
                name = await access.field(value, "name")
                if name is not None and not name.is_null:
                    return await access.string_text(name)
        except ExpressionError:
            pass
        return f"<{type_name(value.signature)}>"
    return await evaluator.string_of(value, evaluator.expression.tree)


async def render(
    template: Template | str,
    access: ValueAccess,
    *,
    allow_invoke: bool = True,
    format_value: FormatValue | None = None,
) -> str:
    """The template's text with each part's value; a part that fails shows ``<error: message>``
    and the rest of the line still renders (as production logpoints do).

    ``format_value`` formats a part's value (it may be async); by default primitives, strings
    and null print as ``String.valueOf`` does and other objects through their ``toString()``.
    """
    if isinstance(template, str):
        template = parse_template(template)
    out: list[str] = []
    for part in template.parts:
        if isinstance(part, str):
            out.append(part)
            continue
        evaluator = Evaluator(part, access, allow_invoke=allow_invoke)
        try:
            value = await evaluator.value(part.tree)
            if format_value is None:
                out.append(await _default_format(evaluator, value))
            else:
                text = format_value(value)
                out.append(await text if inspect.isawaitable(text) else text)
        except ExpressionError as err:
            out.append(f"<error: {err.message}>")
    return "".join(out)
