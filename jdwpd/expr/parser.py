"""Parse a Java expression into a tree (``jdwpd.expr.tree``): a Pratt parser over Java's
precedence table, with javac's wording for syntax errors and a clear refusal for what an
expression evaluated in a debugger must not do (assignments, ``++``/``--``, ``new``, lambdas).

>>> e = parse("a + b * 2 > 3 ? x : y")
>>> e.tree.column, type(e.tree).__name__, e.needs_invoke
(15, 'Conditional', False)
>>> parse("order.items.size() * 2").needs_invoke
True
>>> parse("name.equals(\\"x\\") && name.length() > 1").needs_invoke
False
"""

from __future__ import annotations

from typing import cast

import attrs

from jdwpd.expr.access import NULL, STRING
from jdwpd.expr.errors import ExpressionError
from jdwpd.expr.lexer import Token, tokenize
from jdwpd.expr.tree import (
    PRIMITIVE_TYPES,
    ArrayAccess,
    Binary,
    Cast,
    Conditional,
    FieldAccess,
    InstanceOf,
    Literal,
    MethodCall,
    Name,
    Node,
    This,
    TypeName,
    Unary,
    depth,
    walk,
)

__all__ = ["Expression", "parse", "MAX_LENGTH", "MAX_DEPTH"]

#: The longest expression accepted, in characters.
MAX_LENGTH = 4096
#: The deepest tree accepted (nodes on the longest path): evaluation recurses over the tree.
MAX_DEPTH = 200

# Binding powers: how tightly an infix operator holds its left operand (Java's precedence).
_BINARY = {
    "||": 2, "&&": 3, "|": 4, "^": 5, "&": 6, "==": 7, "!=": 7, "<": 8, ">": 8, "<=": 8, ">=": 8,
    "<<": 9, ">>": 9, ">>>": 9, "+": 10, "-": 10, "*": 11, "/": 11, "%": 11,
}
_TERNARY, _INSTANCEOF, _PREFIX, _POSTFIX = 1, 8, 12, 13
_ASSIGNMENTS = frozenset("= += -= *= /= %= &= |= ^= <<= >>= >>>=".split())
_LITERAL_KINDS = {"int": "I", "long": "J", "float": "F", "double": "D", "char": "C", "string": STRING}
# Tokens that may follow ``(Name)`` when it is a cast (JLS 15.16: UnaryExpressionNotPlusMinus).
_CAST_FOLLOWERS_OP = frozenset({"(", "!", "~"})
_NO_SIDE_EFFECTS = "expressions must not change the program's state"


@attrs.frozen
class Expression:
    """A parsed expression: its ``text``, its parse ``tree`` and whether evaluating it may call
    methods in the VM (``needs_invoke``).

    ``needs_invoke`` is true when the tree has a method call other than the String methods the
    evaluator runs itself (``length() isEmpty() charAt(i) equals(x) contains(s) startsWith(s)
    endsWith(s)``, see ``tree.STRING_INTRINSICS``). Those count as free: on a receiver that turns
    out not to be a String they become real calls, refused where calls are not allowed. String
    concatenation of an object other than a String or a boxed primitive calls its ``toString()``
    the same way.
    """

    text: str
    tree: Node
    needs_invoke: bool = attrs.field()

    @needs_invoke.default
    def _needs_invoke(self) -> bool:
        return any(isinstance(node, MethodCall) and not node.intrinsic for node in walk(self.tree))

    def __str__(self) -> str:
        return self.text


class _Parser:
    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.pos = 0
        self.nesting = 0

    # -- tokens -----------------------------------------------------------------------------
    @property
    def token(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.tokens[self.pos]
        if token.kind != "end":
            self.pos += 1
        return token

    def error(self, message: str, token: Token | None = None) -> ExpressionError:
        return ExpressionError(message, (token or self.token).column, self.text)

    def is_op(self, op: str, token: Token | None = None) -> bool:
        token = token or self.token
        return token.kind == "op" and token.value == op

    def expect(self, op: str) -> Token:
        if not self.is_op(op):
            raise self.error(f"'{op}' expected")
        return self.advance()

    def identifier(self) -> Token:
        token = self.token
        if token.kind != "name":
            raise self.error("<identifier> expected")
        return self.advance()

    # -- expressions ------------------------------------------------------------------------
    def expression(self, power: int = 0) -> Node:
        """An expression whose infix operators all bind tighter than ``power``."""
        self.nesting += 1
        if self.nesting > MAX_DEPTH:
            raise self.error(f"expression nested too deeply (more than {MAX_DEPTH} levels)")
        try:
            left = self.prefix()
            while True:
                token = self.token
                if token.kind == "op":
                    op = cast(str, token.value)  # an operator's value is its text
                    if op in _ASSIGNMENTS:
                        raise self.error(f"assignments are not allowed: {_NO_SIDE_EFFECTS}")
                    if op in ("++", "--"):
                        raise self.error(f"'{op}' is not allowed: {_NO_SIDE_EFFECTS}")
                    if op in (".", "[") and power < _POSTFIX:
                        left = self.postfix(left)
                        continue
                    if op in ("->", "::"):
                        raise self.error("lambdas and method references are not supported in expressions")
                    if op == "?" and power < _TERNARY:
                        self.advance()
                        then = self.expression(0)
                        self.expect(":")
                        otherwise = self.expression(_TERNARY - 1)
                        left = Conditional(token.column, left, then, otherwise)
                        continue
                    bp = _BINARY.get(op)
                    if bp is not None and bp > power:
                        self.advance()
                        right = self.expression(bp)
                        left = Binary(token.column, op, left, right)
                        continue
                elif token.kind == "keyword" and token.value == "instanceof" and _INSTANCEOF > power:
                    self.advance()
                    if self.token.kind == "keyword" and self.token.value == "final":
                        raise self.error("pattern matching in instanceof is not supported in expressions")
                    kind = self.type_name()
                    if self.token.kind == "name":
                        raise self.error("pattern matching in instanceof is not supported in expressions")
                    left = InstanceOf(token.column, left, kind)
                    continue
                return left
        finally:
            self.nesting -= 1

    def prefix(self) -> Node:
        token = self.token
        kind = token.kind
        if kind in _LITERAL_KINDS:
            self.advance()
            if token.needs_minus:
                raise self.error("integer number too large", token)
            return Literal(token.column, _LITERAL_KINDS[kind], token.value)
        if kind == "name":
            self.advance()
            if self.is_op("("):
                return MethodCall(token.column, None, str(token.value), self.arguments())
            return Name(token.column, str(token.value))
        if kind == "keyword":
            word = token.value
            if word in ("true", "false"):
                self.advance()
                return Literal(token.column, "Z", word == "true")
            if word == "null":
                self.advance()
                return Literal(token.column, NULL, None)
            if word == "this":
                self.advance()
                if self.is_op("("):
                    raise self.error("constructor calls are not supported in expressions")
                return This(token.column)
            if word == "new":
                raise self.error("object creation (new) is not supported in expressions")
            if word == "super":
                raise self.error("'super' is not supported in expressions; use this.field or a cast")
            if word == "switch":
                raise self.error("switch expressions are not supported in expressions")
            if word in PRIMITIVE_TYPES or word == "void":
                raise self.error("class literals are not supported in expressions"
                                 if self.is_op(".", self.peek()) else "illegal start of expression")
            raise self.error("illegal start of expression")
        if kind == "op":
            op = cast(str, token.value)
            if op in ("++", "--"):
                raise self.error(f"'{op}' is not allowed: {_NO_SIDE_EFFECTS}")
            if op in ("+", "-", "~", "!"):
                self.advance()
                following = self.token
                if op == "-" and following.needs_minus:
                    # -2147483648 and -9223372036854775808L: the one place these literals are legal.
                    self.advance()
                    magnitude = following.value
                    assert isinstance(magnitude, int)  # needs_minus: an int or a long literal's
                    literal = Literal(token.column, _LITERAL_KINDS[following.kind], -magnitude)
                    return self.postfix_chain(literal)
                return Unary(token.column, op, self.expression(_PREFIX - 1))
            if op == "(":
                return self.parenthesized()
        if kind == "end":
            raise self.error("illegal start of expression" if self.tokens[0].kind != "end" else "expression expected")
        raise self.error("illegal start of expression")

    def postfix_chain(self, left: Node) -> Node:
        while self.is_op(".") or self.is_op("["):
            left = self.postfix(left)
        return left

    def postfix(self, left: Node) -> Node:
        """``.name``, ``.name(args)`` or ``[index]`` after ``left``."""
        token = self.advance()
        if token.value == "[":
            self.nesting += 1
            try:
                index = self.expression(0)
            finally:
                self.nesting -= 1
            self.expect("]")
            return ArrayAccess(token.column, left, index)
        member = self.token
        if member.kind == "keyword" and member.value == "class":
            raise self.error("class literals are not supported in expressions")
        if member.kind == "keyword" and member.value in ("this", "new", "super"):
            raise self.error(f"'.{member.value}' is not supported in expressions")
        if self.is_op("<"):
            raise self.error("explicit type arguments are not supported in expressions")
        name = self.identifier()
        if self.is_op("("):
            return MethodCall(name.column, left, str(name.value), self.arguments())
        return FieldAccess(name.column, left, str(name.value))

    def arguments(self) -> tuple[Node, ...]:
        self.expect("(")
        args: list[Node] = []
        if not self.is_op(")"):
            while True:
                args.append(self.expression(0))
                if self.is_op(","):
                    self.advance()
                    continue
                break
        if not self.is_op(")"):
            raise self.error("')' or ',' expected" if args else "')' expected")
        self.advance()
        return tuple(args)

    def parenthesized(self) -> Node:
        """``( expression )`` or a cast ``(Type) operand``."""
        open_paren = self.token
        cast = self.cast_type()
        if cast is not None:
            kind, _ = cast
            operand = self.expression(_PREFIX - 1)
            return Cast(open_paren.column, kind, operand)
        self.advance()
        inner = self.expression(0)
        self.expect(")")
        return inner

    def cast_type(self) -> tuple[TypeName, bool] | None:
        """If a cast starts here, consume ``(Type)`` and return the type; else consume nothing."""
        start = self.pos
        first = self.peek()
        primitive = first.kind == "keyword" and first.value in PRIMITIVE_TYPES
        if not primitive and first.kind != "name":
            return None
        self.advance()  # (
        try:
            kind = self.type_name()
        except ExpressionError:
            if primitive or self.generic_cast():
                raise
            self.pos = start  # e.g. (a < b): not a type after all
            return None
        if not self.is_op(")"):
            if primitive:
                raise self.error("')' expected")
            self.pos = start
            return None
        after = self.peek()
        if not primitive or kind.dimensions:
            # (Name) is a cast only when what follows cannot continue an expression: javac's rule.
            starts_operand = (
                after.kind in ("name", "int", "long", "float", "double", "char", "string")
                or (after.kind == "keyword" and after.value in ("this", "true", "false", "null", "new", "super"))
                or (after.kind == "op" and after.value in _CAST_FOLLOWERS_OP)
            )
            if not starts_operand:
                self.pos = start
                return None
        self.advance()  # )
        return kind, primitive

    def generic_cast(self) -> bool:
        """At ``<`` after a name in parentheses: whether ``<...>)`` follows, as in ``(List<String>) x``."""
        ahead, level = self.pos, 0
        while ahead < len(self.tokens):
            token = self.tokens[ahead]
            if token.kind == "op" and token.value in ("<", ">", ">>", ">>>"):
                level += 1 if token.value == "<" else -len(str(token.value))
            elif not (token.kind == "name" or (token.kind == "op" and token.value in (".", ",", "?", "[", "]"))
                      or (token.kind == "keyword" and token.value in ("extends", "super"))):
                return False
            ahead += 1
            if level <= 0:
                nxt = self.tokens[ahead]
                return level == 0 and nxt.kind == "op" and nxt.value == ")"
        return False

    def type_name(self) -> TypeName:
        """A type: a primitive keyword or a dotted name, then ``[]`` pairs."""
        token = self.token
        if token.kind == "keyword" and token.value in PRIMITIVE_TYPES:
            self.advance()
            name = str(token.value)
        elif token.kind == "name":
            parts = [str(self.advance().value)]
            while self.is_op(".") and self.peek().kind == "name":
                self.advance()
                parts.append(str(self.advance().value))
            name = ".".join(parts)
            if self.is_op("<"):
                raise self.error("generic type arguments are not supported in expressions; use the raw type")
        else:
            raise self.error("<identifier> expected")
        dims = 0
        while self.is_op("[") and self.is_op("]", self.peek()):
            self.advance()
            self.advance()
            dims += 1
        return TypeName(token.column, name, dims)


def parse(text: str) -> Expression:
    """Parse one Java expression; ExpressionError (with the column) if it is not one we accept.

    >>> parse("1 +").tree
    Traceback (most recent call last):
    ...
    jdwpd.expr.errors.ExpressionError: illegal start of expression (column 4)
        1 +
           ^
    """
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression too long ({len(text)} characters; at most {MAX_LENGTH})", None, None)
    tokens = tokenize(text)
    parser = _Parser(text, tokens)
    if parser.token.kind == "end":
        raise ExpressionError("expression expected", 1, text)
    tree = parser.expression(0)
    token = parser.token
    if token.kind != "end":
        if token.kind == "op" and token.value == ";":
            raise parser.error("statements are not supported: write one expression without ';'")
        if token.kind == "op" and token.value in (")", "]"):
            raise parser.error(f"unbalanced '{token.value}'")
        raise parser.error("end of expression expected (an operator is missing?)")
    if depth(tree) > MAX_DEPTH:
        raise ExpressionError(f"expression nested too deeply (more than {MAX_DEPTH} levels)", 1, text)
    return Expression(text, tree)
