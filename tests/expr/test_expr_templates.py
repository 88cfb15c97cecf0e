"""Logpoint templates: parsing, brace escapes, error columns, rendering with per-part errors."""

from __future__ import annotations

import pytest
from expr_fakevm import shop

from jdwpd.expr import ExpressionError, Value, parse_template, render


def test_parts_and_escapes():
    template = parse_template("paid {order.id} amount={amount} {{not}} }}{{")
    assert [str(e) for e in template.expressions] == ["order.id", "amount"]
    assert template.parts[0] == "paid " and template.parts[-1] == " {not} }{"
    assert not template.needs_invoke
    assert parse_template("{order.items.size()}").needs_invoke
    assert parse_template("no parts").parts == ("no parts",)
    assert parse_template("").parts == ()
    # Braces inside string and char literals do not end the part.
    assert [str(e) for e in parse_template('{"}" + \'{\'} x').expressions] == ['"}" + \'{\'']


@pytest.mark.parametrize(
    "text, message, column",
    [
        ("x={1 +}", "illegal start of expression", 7),
        ("a {b", "unclosed '{' in template (write '{{' for a brace)", 3),
        ("a } b", "single '}' in template (write '}}' for a brace)", 3),
        ("v={ }", "empty expression in template", 3),
        ("{{ok}} {i++}", "'++' is not allowed: expressions must not change the program's state", 10),
    ],
)
def test_errors_point_into_the_whole_template(text, message, column):
    with pytest.raises(ExpressionError) as info:
        parse_template(text)
    assert (info.value.message, info.value.column, info.value.text) == (message, column, text)


async def test_render_the_issue_19_logpoint():
    vm, frame = shop()
    assert await render("paid {order.id} amount={amount}", frame) == "paid A-17 amount=1200"


async def test_render_formats_like_string_value_of():
    vm, frame = shop()
    line = await render("{1.0f/3} {1e10} {'c'} {true} {none} {order.count} {order.lines[0] * 2L} {s}", frame)
    assert line == "0.33333334 1.0E10 c true null 3 20 hello"


async def test_a_failing_part_does_not_fail_the_line():
    vm, frame = shop()
    line = await render("a={none.x} b={1 / 0} c={order.fail()} d={amount}", frame)
    assert line == ('a=<error: NullPointerException: Cannot read field "x" because "none" is null> '
                    "b=<error: ArithmeticException: / by zero> c=<error: java.lang.IllegalStateException: closed> "
                    "d=1200")


async def test_objects_use_to_string_or_a_type_when_calls_are_not_allowed():
    vm, frame = shop()
    assert await render("{order}", frame) == "Order#A-17"
    assert await render("{order} {order.lines}", frame, allow_invoke=False) == "<shop.Order> <int[]>"
    line = await render("{order.items.size()}", frame, allow_invoke=False)
    assert line.startswith("<error: method calls are not allowed here: size()")
    assert frame.invoked == ["toString"]


async def test_format_value_may_be_sync_or_async():
    vm, frame = shop()

    def plain(value: Value) -> str:
        return f"[{value.signature}]"

    async def awaited(value: Value) -> str:
        return f"<{value.signature}>"

    assert await render("{amount} {s}", frame, format_value=plain) == "[I] [Ljava/lang/String;]"
    assert await render("{amount}", frame, format_value=awaited) == "<I>"
