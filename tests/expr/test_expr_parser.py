"""The parser: precedence, every literal form, refusals, and error columns."""

from __future__ import annotations

import math

import pytest

from jdwpd.expr import MAX_DEPTH, STRING, ExpressionError, parse, unparse
from jdwpd.expr.tree import Binary, Cast, Conditional, InstanceOf, Literal, MethodCall, Name, Unary, walk


def lit(text: str) -> tuple[str, object]:
    tree = parse(text).tree
    assert isinstance(tree, Literal), tree
    return tree.signature, tree.value


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0", ("I", 0)), ("42", ("I", 42)), ("2147483647", ("I", 2147483647)), ("-2147483648", ("I", -2147483648)),
        ("1_000_000", ("I", 1000000)), ("0x1F", ("I", 31)), ("0XfF", ("I", 255)), ("0xFFFFFFFF", ("I", -1)),
        ("0x8000_0000", ("I", -2147483648)), ("017", ("I", 15)), ("0_17", ("I", 15)), ("0b101", ("I", 5)),
        ("0B1111_0000", ("I", 240)), ("10L", ("J", 10)), ("10l", ("J", 10)),
        ("9223372036854775807L", ("J", 2**63 - 1)), ("-9223372036854775808L", ("J", -(2**63))),
        ("0xFFFFFFFFFFFFFFFFL", ("J", -1)), ("0x7fffffffffffffffL", ("J", 2**63 - 1)),
        ("1.5", ("D", 1.5)), ("1.", ("D", 1.0)), (".5", ("D", 0.5)), ("1e3", ("D", 1000.0)), ("1E-3", ("D", 0.001)),
        ("2.5e+2", ("D", 250.0)), ("1d", ("D", 1.0)), ("1D", ("D", 1.0)), ("1_0.0_1", ("D", 10.01)),
        ("0x1p4", ("D", 16.0)), ("0x1.8p1", ("D", 3.0)), ("0x.8p0f", ("F", 0.5)),
        ("1f", ("F", 1.0)), ("0.1f", ("F", 0.10000000149011612)), ("3.4028235e38f", ("F", 3.4028234663852886e38)),
        ("1.4e-45f", ("F", 1.401298464324817e-45)), ("4.9e-324", ("D", 5e-324)),
        ("'a'", ("C", 97)), ("'\\n'", ("C", 10)), ("'\\''", ("C", 39)), ("'\\\\'", ("C", 92)), ("'\\u0041'", ("C", 65)),
        ("'\\uuu0041'", ("C", 65)), ("'\\0'", ("C", 0)), ("'\\377'", ("C", 255)), ("'\\s'", ("C", 32)),
        ("'\"'", ("C", 34)), ("'é'", ("C", 233)),
        ('"hi"', (STRING, "hi")), ('""', (STRING, "")), ('"a\\tb\\"c"', (STRING, 'a\tb"c')),
        ('"\\u00e9\\101"', (STRING, "éA")), ('"\\uD83D\\uDE00"', (STRING, "😀")), ('"😀"', (STRING, "😀")),
        ("true", ("Z", True)), ("false", ("Z", False)), ("null", ("null", None)),
    ],
)
def test_literals(text, expected):
    assert lit(text) == expected


def test_float_literal_rounds_once_to_float32():
    # 1.00000017881393432617187499 is just below the midpoint between two floats: through double
    # it would land on the midpoint and round to even (up); javac rounds it down.
    assert lit("1.00000017881393432617187499f") == ("F", 1.0000001192092896)
    assert lit("1.00000017881393432617187501f") == ("F", 1.0000002384185791)


@pytest.mark.parametrize(
    "text, message, column",
    [
        ("2147483648", "integer number too large", 1),
        ("1 + 2147483648", "integer number too large", 5),
        ("- 2147483649", "integer number too large", 3),
        ("9223372036854775808L", "integer number too large", 1),
        ("0x1_0000_0000", "integer number too large", 1),
        ("0x", "hexadecimal numbers must contain at least one hexadecimal digit", 1),
        ("1_", "illegal underscore", 1),
        ("0x_1", "illegal underscore", 1),
        ("09", "illegal digit in an octal literal", 1),
        ("1e", "malformed floating-point literal", 1),
        ("1e999", "floating-point number too large", 1),
        ("1e-999", "floating-point number too small", 1),
        ("1e39f", "floating-point number too large", 1),
        ("x + 1e-50f", "floating-point number too small", 5),
        ("'ab'", "unclosed character literal", 1),
        ("''", "empty character literal", 1),
        ('"abc', "unclosed string literal", 1),
        ('"a\\qb"', "illegal escape character", 4),
        ("'\\u00g1'", "illegal unicode escape", 2),
        ("a # b", "illegal character: '#'", 3),
        ("1 +", "illegal start of expression", 4),
        ("", "expression expected", 1),
        ("  ", "expression expected", 1),
        ("(a + b", "')' expected", 7),
        ("a + b)", "unbalanced ')'", 6),
        ("f(a b)", "')' or ',' expected", 5),
        ("a b", "end of expression expected (an operator is missing?)", 3),
        ("a;", "statements are not supported: write one expression without ';'", 2),
        ("a ? b", "':' expected", 6),
        ("a.", "<identifier> expected", 3),
        ("a.1", "end of expression expected (an operator is missing?)", 2),
        ("x = 1", "assignments are not allowed: expressions must not change the program's state", 3),
        ("x += 1", "assignments are not allowed: expressions must not change the program's state", 3),
        ("a[0] >>>= 1", "assignments are not allowed: expressions must not change the program's state", 6),
        ("i++", "'++' is not allowed: expressions must not change the program's state", 2),
        ("--i", "'--' is not allowed: expressions must not change the program's state", 1),
        ("new Object()", "object creation (new) is not supported in expressions", 1),
        ("x -> x", "lambdas and method references are not supported in expressions", 3),
        ("String::valueOf", "lambdas and method references are not supported in expressions", 7),
        ("String.class", "class literals are not supported in expressions", 8),
        ("int.class", "class literals are not supported in expressions", 1),
        ("super.x", "'super' is not supported in expressions; use this.field or a cast", 1),
        ("o instanceof String s", "pattern matching in instanceof is not supported in expressions", 21),
        ("(List<String>) x", "generic type arguments are not supported in expressions; use the raw type", 6),
        ("(Map<K, List<V>>) x", "generic type arguments are not supported in expressions; use the raw type", 5),
        ("x.<T>m()", "explicit type arguments are not supported in expressions", 3),
        ('"""\nab"""', "text blocks are not supported in expressions; use a string literal", 1),
        ("/* open", "unclosed comment", 1),
        ("if (a) b", "illegal start of expression", 1),
    ],
)
def test_errors_have_javac_messages_and_columns(text, message, column):
    with pytest.raises(ExpressionError) as info:
        parse(text)
    assert (info.value.message, info.value.column) == (message, column)
    assert info.value.text == text


def test_error_string_shows_a_caret_under_the_column():
    with pytest.raises(ExpressionError) as info:
        parse("order.total >> > 1")
    assert str(info.value) == (
        "illegal start of expression (column 16)\n"
        "    order.total >> > 1\n"
        "                   ^"
    )


@pytest.mark.parametrize(
    "text, grouped",
    [
        ("a + b * c", "a + b * c"),
        ("(a + b) * c", "(a + b) * c"),
        ("a - b - c", "a - b - c"),
        ("a - (b - c)", "a - (b - c)"),
        ("a << b + c", "a << b + c"),
        ("a < b == c > d", "a < b == c > d"),
        ("a & b ^ c | d", "a & b ^ c | d"),
        ("a | b ^ c & d", "a | b ^ c & d"),
        ("a || b && c", "a || b && c"),
        ("a && b || c", "a && b || c"),
        ("a ? b : c ? d : e", "a ? b : c ? d : e"),
        ("(a ? b : c) ? d : e", "(a ? b : c) ? d : e"),
        ("a || b ? c + 1 : d", "a || b ? c + 1 : d"),
        ("-a * b", "-a * b"),
        ("-(a * b)", "-(a * b)"),
        ("!a.b.c()", "!a.b.c()"),
        ("- -a", "- -a"),
        ("~-a", "~-a"),
        ("(int) a + b", "(int) a + b"),
        ("(int) (a + b)", "(int) (a + b)"),
        ("(int) -a", "(int) -a"),
        ("(String) o + s", "(String) o + s"),
        ("(a) + b", "a + b"),
        ("(a)", "a"),
        ("(Object[]) o", "(Object[]) o"),
        ("(java.util.List) o", "(java.util.List) o"),
        ("(byte[][]) o", "(byte[][]) o"),
        ("(a) - 1", "a - 1"),
        ("a instanceof B && c", "a instanceof B && c"),
        ("a instanceof java.util.List == false", "a instanceof java.util.List == false"),
        ("x[i][j].k", "x[i][j].k"),
        ("f(a, b + 1)[0].g()", "f(a, b + 1)[0].g()"),
        ("a >>> 1 >> 2 << 3", "a >>> 1 >> 2 << 3"),
        ("1.5f * 2L", "1.5f * 2L"),
        ("'\\n' + \"\\\"\"", "'\\n' + \"\\\"\""),
    ],
)
def test_precedence_round_trips_through_unparse(text, grouped):
    tree = parse(text).tree
    assert unparse(tree) == grouped
    again = parse(unparse(tree)).tree
    assert unparse(again) == grouped


def test_precedence_shapes():
    tree = parse("a + b * c").tree
    assert isinstance(tree, Binary) and tree.op == "+" and isinstance(tree.right, Binary) and tree.right.op == "*"
    tree = parse("a - b - c").tree
    assert isinstance(tree.left, Binary) and tree.left.op == "-"  # left associative
    tree = parse("a ? b : c ? d : e").tree
    assert isinstance(tree, Conditional) and isinstance(tree.otherwise, Conditional)  # right associative
    tree = parse("!a == b").tree
    assert isinstance(tree, Binary) and isinstance(tree.left, Unary)
    tree = parse("(T) a.b").tree
    assert isinstance(tree, Cast) and tree.type.name == "T"
    tree = parse("x instanceof T").tree
    assert isinstance(tree, InstanceOf) and tree.column == 3


def test_columns_point_at_operators_and_members():
    tree = parse("order.items.size() * 2").tree
    assert isinstance(tree, Binary) and tree.column == 20
    call = tree.left
    assert isinstance(call, MethodCall) and call.name == "size" and call.column == 13 and not call.intrinsic
    assert call.target.column == 7  # .items
    assert parse("  x").tree == Name(3, "x")


def test_needs_invoke():
    assert parse("order.items.size() * 2").needs_invoke
    assert parse("m()").needs_invoke
    assert parse("s.equals(\"a\", 1)").needs_invoke  # not String.equals's arity
    assert parse("Math.max(1, 2)").needs_invoke
    assert not parse("order.total > 100").needs_invoke
    for text in ('name.equals("x")', "s.length() > 0 && !s.isEmpty()", "s.charAt(0) == 'a'",
                 's.contains("b") || s.startsWith("c") || s.endsWith("d")', "a[i].x == null ? 1 : 2"):
        assert not parse(text).needs_invoke, text
    assert not parse('"a" + 1').needs_invoke


def test_comments_and_whitespace():
    assert unparse(parse("a /* the a */ + // rest\n b").tree) == "a + b"


def test_depth_and_length_limits():
    deep = "(" * (MAX_DEPTH + 5) + "1" + ")" * (MAX_DEPTH + 5)
    with pytest.raises(ExpressionError, match="nested too deeply"):
        parse(deep)
    with pytest.raises(ExpressionError, match="nested too deeply"):
        parse("- " * 150 + "~" * 150 + "1")
    with pytest.raises(ExpressionError, match="nested too deeply"):
        parse(" + ".join(["1"] * 400))  # a flat chain is a deep tree
    parse("(" * 150 + "1" + ")" * 150)
    parse(" + ".join(["1"] * 150))
    with pytest.raises(ExpressionError, match="too long"):
        parse("1" + " " * 5000)


def test_trees_are_frozen_and_walkable():
    expression = parse("a.b(c[1], -d) ? 1.5 : 'x'")
    nodes = list(walk(expression.tree))
    assert [type(n).__name__ for n in nodes] == [
        "Conditional", "MethodCall", "Name", "ArrayAccess", "Name", "Literal", "Unary", "Name", "Literal", "Literal"]
    with pytest.raises(AttributeError):
        expression.tree.column = 3  # type: ignore[misc]
    assert hash(expression.tree) == hash(parse("a.b(c[1], -d) ? 1.5 : 'x'").tree)
    assert str(expression) == expression.text


def test_nan_and_infinity_literals_unparse_to_constant_expressions():
    assert unparse(Literal(1, "D", math.inf)) == "(1.0 / 0.0)"
    assert unparse(Literal(1, "F", math.nan)) == "(0.0f / 0.0f)"
