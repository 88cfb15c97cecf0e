"""The parse tree of a Java expression: small frozen nodes that back ends walk.

Every node has ``column``: the 1-based column an error about the node points at. For operators
it is the operator's column, for a field access or method call the member's name, for an array
access the ``[``, for anything else where the node starts. Parentheses leave no node (the tree
already says how operands group); ``unparse`` puts them back.

Two back ends walk this tree: the interpreter (``jdwpd.expr.interpreter``) and, later, the
compiler to the agent's condition form (issue 20). Neither needs the source text.

>>> from jdwpd.expr import parse
>>> parse("a.b[i] + 1").tree                                    # doctest: +NORMALIZE_WHITESPACE
Binary(column=8, op='+', left=ArrayAccess(column=4, array=FieldAccess(column=3,
    target=Name(column=1, identifier='a'), name='b'), index=Name(column=5, identifier='i')),
    right=Literal(column=10, signature='I', value=1))
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from jdwpd.expr.access import NULL, STRING
from jdwpd.expr.numbers import primitive

__all__ = [
    "Node", "Literal", "Name", "This", "FieldAccess", "ArrayAccess", "MethodCall", "Unary", "Binary",
    "Conditional", "InstanceOf", "Cast", "TypeName", "PRIMITIVE_TYPES", "STRING_INTRINSICS",
    "children", "walk", "depth", "unparse",
]

#: Java's primitive type keywords and their JNI signatures.
PRIMITIVE_TYPES: dict[str, str] = {
    "boolean": "Z", "byte": "B", "char": "C", "short": "S", "int": "I", "long": "J", "float": "F", "double": "D",
}

#: Methods of java.lang.String the evaluator runs itself, by name -> arity: on a String receiver
#: they need no invoke (and so work where method calls are not allowed, and in the agent).
STRING_INTRINSICS: dict[str, int] = {
    "length": 0, "isEmpty": 0, "charAt": 1, "equals": 1, "contains": 1, "startsWith": 1, "endsWith": 1,
}


@attrs.frozen
class Node:
    """Base of every node."""

    column: int


@attrs.frozen
class Literal(Node):
    """A literal: ``signature`` is ``Z B C S I J F D``, ``STRING`` or ``NULL``; ``value`` a Python
    ``bool``/``int``/``float`` (a char: its UTF-16 code unit as ``int``), ``str`` or ``None``."""

    signature: str
    value: bool | int | float | str | None


@attrs.frozen
class Name(Node):
    """A simple name: a local, else a field of ``this``, else a class (``Math`` in ``Math.PI``),
    else the first part of a package name (``java`` in ``java.lang.Math.PI``)."""

    identifier: str


@attrs.frozen
class This(Node):
    """``this``."""


@attrs.frozen
class FieldAccess(Node):
    """``target.name``: a field of an object, a static field or nested class of a class, the
    ``length`` of an array, or the next part of a qualified class name."""

    target: Node
    name: str


@attrs.frozen
class ArrayAccess(Node):
    """``array[index]``."""

    array: Node
    index: Node


@attrs.frozen
class MethodCall(Node):
    """``target.name(args)``; ``target`` None for an unqualified call ``name(args)`` (on ``this``).

    ``intrinsic`` is true when the name and arity are one of ``STRING_INTRINSICS``: on a String
    receiver the call runs without invoking anything in the VM."""

    target: Node | None
    name: str
    args: tuple[Node, ...]

    @property
    def intrinsic(self) -> bool:
        return self.target is not None and STRING_INTRINSICS.get(self.name) == len(self.args)


@attrs.frozen
class Unary(Node):
    """``op operand`` for ``op`` in ``+ - ~ !``."""

    op: str
    operand: Node


@attrs.frozen
class Binary(Node):
    """``left op right`` for ``op`` in ``* / % + - << >> >>> < > <= >= == != & ^ | && ||``."""

    op: str
    left: Node
    right: Node


@attrs.frozen
class Conditional(Node):
    """``condition ? then : otherwise`` (column: the ``?``)."""

    condition: Node
    then: Node
    otherwise: Node


@attrs.frozen
class TypeName(Node):
    """A type as written in a cast or ``instanceof``: ``name`` is a primitive keyword or a dotted
    class name (``int``, ``String``, ``java.util.List``, ``Outer.Inner``), ``dimensions`` the
    number of ``[]`` after it."""

    name: str
    dimensions: int = 0

    @property
    def primitive(self) -> str | None:
        """The JNI signature of a primitive type without dimensions (``int`` -> ``I``), else None."""
        return PRIMITIVE_TYPES.get(self.name) if self.dimensions == 0 else None

    def __str__(self) -> str:
        return self.name + "[]" * self.dimensions


@attrs.frozen
class InstanceOf(Node):
    """``operand instanceof type`` (column: the keyword)."""

    operand: Node
    type: TypeName


@attrs.frozen
class Cast(Node):
    """``(type) operand`` (column: the ``(``)."""

    type: TypeName
    operand: Node


def children(node: Node) -> tuple[Node, ...]:
    """The operand nodes of ``node``, left to right (a TypeName is not an operand)."""
    match node:
        case FieldAccess(target=t):
            return (t,)
        case ArrayAccess(array=a, index=i):
            return (a, i)
        case MethodCall(target=t, args=args):
            return args if t is None else (t, *args)
        case Unary(operand=o) | Cast(operand=o) | InstanceOf(operand=o):
            return (o,)
        case Binary(left=l, right=r):
            return (l, r)
        case Conditional(condition=c, then=t, otherwise=o):
            return (c, t, o)
    return ()


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children (iterative: deep trees are fine)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def depth(node: Node) -> int:
    """The number of nodes on the longest path from ``node`` down (a literal: 1). Iterative."""
    best = 0
    stack = [(node, 1)]
    while stack:
        current, level = stack.pop()
        best = max(best, level)
        stack.extend((child, level + 1) for child in children(current))
    return best


_PRECEDENCE = {
    "||": 2, "&&": 3, "|": 4, "^": 5, "&": 6, "==": 7, "!=": 7, "<": 8, ">": 8, "<=": 8, ">=": 8,
    "<<": 9, ">>": 9, ">>>": 9, "+": 10, "-": 10, "*": 11, "/": 11, "%": 11,
}
_INSTANCEOF, _PREFIX, _POSTFIX = 8, 12, 13


def _quote(text: str, quote: str) -> str:
    out = []
    for ch in text:
        code = ord(ch)
        if ch in (quote, "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or 0xD800 <= code < 0xE000 or code == 0x7F:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return quote + "".join(out) + quote


def _literal(node: Literal) -> str:
    sig, value = node.signature, node.value
    if sig == NULL:
        return "null"
    if sig == "Z":
        return "true" if value else "false"
    if sig == STRING:
        return _quote(str(value), '"')
    if sig == "C":
        return _quote(chr(int(primitive(value))), "'")
    if sig == "J":
        return f"{value}L"
    if sig in "FD":
        from jdwpd.expr.format import java_double, java_float

        text = java_float(primitive(value)) if sig == "F" else java_double(primitive(value))
        if text in ("NaN", "Infinity", "-Infinity"):
            # No literal spells these; a constant expression does.
            zero = "0.0f" if sig == "F" else "0.0"
            return {"NaN": f"({zero} / {zero})", "Infinity": f"(1{zero[1:]} / {zero})",
                    "-Infinity": f"(-1{zero[1:]} / {zero})"}[text]
        return text + ("f" if sig == "F" else "")
    return str(value)


def _unparse(node: Node) -> tuple[str, int]:
    """Source text of ``node`` and the precedence of its top operator (for parenthesizing)."""
    match node:
        case Literal():
            text = _literal(node)
            return text, (_PREFIX if text.startswith("-") else _POSTFIX)
        case Name(identifier=ident):
            return ident, _POSTFIX
        case This():
            return "this", _POSTFIX
        case FieldAccess(target=t, name=name):
            return f"{_operand(t, _POSTFIX)}.{name}", _POSTFIX
        case ArrayAccess(array=a, index=i):
            return f"{_operand(a, _POSTFIX)}[{unparse(i)}]", _POSTFIX
        case MethodCall(target=t, name=name, args=args):
            call = f"{name}({', '.join(unparse(arg) for arg in args)})"
            return (call if t is None else f"{_operand(t, _POSTFIX)}.{call}"), _POSTFIX
        case Unary(op=op, operand=o):
            inner = _operand(o, _PREFIX)
            # "- -x" must not become "--x".
            sep = " " if op in "+-" and inner[:1] == op else ""
            return f"{op}{sep}{inner}", _PREFIX
        case Cast(type=t, operand=o):
            return f"({t}) {_operand(o, _PREFIX)}", _PREFIX
        case Binary(op=op, left=l, right=r):
            prec = _PRECEDENCE[op]
            # Left-associative: the right operand needs parentheses at equal precedence.
            return f"{_operand(l, prec)} {op} {_operand(r, prec + 1)}", prec
        case InstanceOf(operand=o, type=t):
            return f"{_operand(o, _INSTANCEOF)} instanceof {t}", _INSTANCEOF
        case Conditional(condition=c, then=t, otherwise=o):
            return f"{_operand(c, 2)} ? {unparse(t)} : {_operand(o, 1)}", 1
    raise TypeError(f"not an expression node: {node!r}")


def _operand(node: Node, minimum: int) -> str:
    text, prec = _unparse(node)
    return text if prec >= minimum else f"({text})"


def unparse(node: Node) -> str:
    """Java source for the tree, parenthesized only where needed; ``parse(unparse(t)).tree``
    equals ``t`` up to columns.

    >>> from jdwpd.expr import parse
    >>> unparse(parse("(a + b) * c.d(1, 'x')").tree)
    "(a + b) * c.d(1, 'x')"
    """
    return _unparse(node)[0]
