"""Java's tokens, as far as expressions need them: names, keywords, literals, operators.

>>> [(t.kind, t.value) for t in tokenize("x+0x1F*2L")][:-1]
[('name', 'x'), ('op', '+'), ('int', 31), ('op', '*'), ('long', 2)]

Literal values are checked here as javac checks them (``integer number too large``, bad
underscores, malformed escapes), except that the decimal literals 2147483648 and
9223372036854775808L are allowed through with ``needs_minus`` set: only the parser knows whether
a unary minus stands right before them.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from fractions import Fraction

import attrs

from jdwpd.expr.errors import ExpressionError
from jdwpd.expr.numbers import to_float32

__all__ = ["Token", "tokenize", "KEYWORDS"]

#: Java keywords (and the literals true/false/null): never names.
KEYWORDS = frozenset(
    "abstract assert boolean break byte case catch char class const continue default do double else enum "
    "extends final finally float for goto if implements import instanceof int interface long native new "
    "package private protected public return short static strictfp super switch synchronized this throw "
    "throws transient try void volatile while true false null".split()
)

# Longest first, so that ">>>=" is one token and not ">>" then ">=".
_OPERATORS = sorted(
    "( ) [ ] { } . , ; ? : @ :: -> ... = += -= *= /= %= &= |= ^= <<= >>= >>>= == != < > <= >= "
    "+ - * / % ++ -- << >> >>> & | ^ ~ ! && ||".split(),
    key=len,
    reverse=True,
)

_DIGITS = {"x": "0-9a-fA-F", "b": "01", "o": "0-7", "d": "0-9"}
_HEX_FLOAT = re.compile(r"0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)[fFdD]?")
_DEC_FLOAT = re.compile(r"(?:[0-9][0-9_]*\.(?:[0-9][0-9_]*)?|\.[0-9][0-9_]*|[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?[fFdD]?")
_INTEGER = re.compile(r"0[xX][0-9a-fA-F_]*[lL]?|0[bB][01_]*[lL]?|[0-9][0-9_]*[lL]?")
_ESCAPES = {"b": 8, "t": 9, "n": 10, "f": 12, "r": 13, "s": 32, '"': 34, "'": 39, "\\": 92}


@attrs.frozen
class Token:
    """One token: ``kind`` is ``name``, ``keyword``, ``op``, ``int``, ``long``, ``float``,
    ``double``, ``char``, ``string`` or ``end``; ``value`` the name, keyword, operator or literal
    value (a char: its code unit); ``column`` 1-based."""

    kind: str
    value: int | float | str | None
    column: int
    text: str
    needs_minus: bool = False


def _is_name_start(ch: str) -> bool:
    return ch == "$" or ch == "_" or ch.isalpha()


def _is_name_part(ch: str) -> bool:
    return ch == "$" or ch == "_" or ch.isalnum()


def _check_underscores(digits: str, column: int, text: str, leading_ok: bool = False) -> str:
    """Java allows ``_`` only between digits; return the digits without them."""
    if digits.endswith("_") or (digits.startswith("_") and not leading_ok):
        raise ExpressionError("illegal underscore", column, text)
    return digits.replace("_", "")


def _integer(raw: str, column: int, text: str) -> Token:
    is_long = raw[-1] in "lL"
    body = raw[:-1] if is_long else raw
    bits = 64 if is_long else 32
    lower = body.lower()
    if lower.startswith(("0x", "0b")):
        digits = _check_underscores(body[2:], column, text)
        if not digits:
            kind = "hexadecimal" if lower[1] == "x" else "binary"
            raise ExpressionError(f"{kind} numbers must contain at least one {kind} digit", column, text)
        value = int(digits, 16 if lower[1] == "x" else 2)
        unsigned = True
    elif len(body) > 1 and body[0] == "0":
        digits = _check_underscores(body[1:], column, text, leading_ok=True)
        if any(d in "89" for d in digits):
            raise ExpressionError("illegal digit in an octal literal", column, text)
        value = int(digits, 8)
        unsigned = True
    else:
        value = int(_check_underscores(body, column, text))
        unsigned = False
    kind = "long" if is_long else "int"
    if unsigned:
        if value >= 1 << bits:
            raise ExpressionError("integer number too large", column, text)
        if value >= 1 << (bits - 1):
            value -= 1 << bits  # 0xFFFFFFFF is -1: two's complement, as Java reads it
        return Token(kind, value, column, raw)
    if value > 1 << (bits - 1):
        raise ExpressionError("integer number too large", column, text)
    return Token(kind, value, column, raw, needs_minus=value == 1 << (bits - 1))


def _floating(raw: str, column: int, text: str, hexadecimal: bool) -> Token:
    is_float = raw[-1] in "fF"
    body = raw[:-1] if raw[-1] in "fFdD" else raw
    if hexadecimal:
        match = _HEX_FLOAT.fullmatch(raw)
        assert match is not None
        whole, frac, exp = match.group(1), match.group(2) or "", match.group(3)
        for part in (whole, frac, exp.lstrip("+-")):
            if part:
                _check_underscores(part, column, text)
        whole, frac, exp = whole.replace("_", ""), frac.replace("_", ""), exp.replace("_", "")
        if not whole and not frac:
            raise ExpressionError("malformed floating-point literal", column, text)
        value = float.fromhex(f"0x{whole or '0'}.{frac or '0'}p{exp}")
    else:
        mantissa, _, exponent = body.lower().partition("e")
        whole, _, frac = mantissa.partition(".")
        for part in (whole, frac, exponent.lstrip("+-")):
            if part:
                _check_underscores(part, column, text)
        if "e" in body.lower() and not exponent.lstrip("+-"):
            raise ExpressionError("malformed floating-point literal", column, text)
        value = float(body.replace("_", ""))
    if is_float:
        if hexadecimal:
            value = to_float32(value)
        else:
            # Round the decimal straight to float32 (rounding through double first can be off).
            value = _decimal_to_float32(body.replace("_", ""))
    if math.isinf(value):
        raise ExpressionError("floating-point number too large", column, text)
    if hexadecimal:
        mantissa, nonzero = body[2:].lower().partition("p")[0], "123456789abcdef"
    else:
        mantissa, nonzero = body.lower().partition("e")[0], "123456789"
    if value == 0 and any(ch in nonzero for ch in mantissa):
        raise ExpressionError("floating-point number too small", column, text)
    return Token("float" if is_float else "double", value, column, raw)


def _decimal_to_float32(text: str) -> float:
    """A decimal literal rounded once, to the nearest float32 (ties to even), as javac does.

    Rounding to double first and then to float32 is right except when the double lands exactly
    halfway between two float32 values: then the exact value says which way to go.
    """
    exact = Fraction(text)
    double = float(exact)
    single = to_float32(double)
    if Fraction(double) == exact or math.isinf(single) or math.isinf(double):
        return single
    other = _f32_step(single, 1 if double > single else -1)
    if math.isinf(other) or Fraction(double) != (Fraction(single) + Fraction(other)) / 2:
        return single
    return other if abs(Fraction(other) - exact) < abs(Fraction(single) - exact) else single


def _f32_step(value: float, direction: int) -> float:
    """The next float32 from ``value`` up (1) or down (-1)."""
    (bits,) = struct.unpack("<i", struct.pack("<f", value))
    if value == 0:
        bits = 1 if direction > 0 else -2147483647
        (out,) = struct.unpack("<f", struct.pack("<i", bits))
        return out
    bits += direction if value > 0 else -direction
    try:
        (out,) = struct.unpack("<f", struct.pack("<i", bits))
    except struct.error:
        return math.inf
    return out


def _char_escape(text: str, pos: int, column_of: Callable[[int], int], full: str) -> tuple[int, int]:
    """Decode the escape at ``text[pos] == '\\\\'``: (code unit, next position)."""
    if pos + 1 >= len(text):
        raise ExpressionError("illegal escape character", column_of(pos), full)
    ch = text[pos + 1]
    if ch in _ESCAPES:
        return _ESCAPES[ch], pos + 2
    if ch == "u":
        end = pos + 1
        while end < len(text) and text[end] == "u":
            end += 1
        digits = text[end : end + 4]
        if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise ExpressionError("illegal unicode escape", column_of(pos), full)
        return int(digits, 16), end + 4
    if ch in "01234567":
        # Octal: up to three digits, the first at most 3 when there are three.
        limit = 3 if ch in "0123" else 2
        end = pos + 1
        while end < len(text) and end - (pos + 1) < limit and text[end] in "01234567":
            end += 1
        return int(text[pos + 1 : end], 8), end
    raise ExpressionError("illegal escape character", column_of(pos + 1), full)


def _quoted(text: str, start: int, quote: str) -> tuple[list[int], int]:
    """The code units of the literal opening at ``text[start]``, and the position after it."""
    units: list[int] = []
    pos = start + 1
    while True:
        if pos >= len(text) or text[pos] in "\r\n":
            kind = "unclosed string literal" if quote == '"' else "unclosed character literal"
            raise ExpressionError(kind, start + 1, text)
        ch = text[pos]
        if ch == quote:
            return units, pos + 1
        if ch == "\\":
            unit, pos = _char_escape(text, pos, lambda p: p + 1, text)
            units.append(unit)
            continue
        code = ord(ch)
        if code > 0xFFFF:
            code -= 0x10000
            units.extend((0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)))
        else:
            units.append(code)
        pos += 1


def units_to_str(units: list[int]) -> str:
    """UTF-16 code units to a Python string (pairs joined; a lone surrogate stays one)."""
    raw = b"".join(u.to_bytes(2, "little") for u in units)
    return raw.decode("utf-16-le", "surrogatepass")


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with one ``end`` token; ExpressionError on a bad token."""
    tokens: list[Token] = []
    pos, n = 0, len(text)
    while pos < n:
        ch = text[pos]
        column = pos + 1
        if ch in " \t\r\n\f":
            pos += 1
            continue
        if text.startswith("//", pos):
            end = text.find("\n", pos)
            pos = n if end < 0 else end
            continue
        if text.startswith("/*", pos):
            end = text.find("*/", pos + 2)
            if end < 0:
                raise ExpressionError("unclosed comment", column, text)
            pos = end + 2
            continue
        if _is_name_start(ch):
            end = pos + 1
            while end < n and _is_name_part(text[end]):
                end += 1
            word = text[pos:end]
            tokens.append(Token("keyword" if word in KEYWORDS else "name", word, column, word))
            pos = end
            continue
        if ch.isdigit() or (ch == "." and pos + 1 < n and text[pos + 1].isdigit()):
            hex_float = _HEX_FLOAT.match(text, pos)
            dec_float = _DEC_FLOAT.match(text, pos)
            integer = _INTEGER.match(text, pos)
            if hex_float:
                raw = hex_float.group()
                tokens.append(_floating(raw, column, text, hexadecimal=True))
            elif integer and text[pos : pos + 2].lower() not in ("0x", "0b") and dec_float and (
                len(dec_float.group()) > len(integer.group())
            ):
                raw = dec_float.group()
                tokens.append(_floating(raw, column, text, hexadecimal=False))
            elif integer:
                raw = integer.group()
                tokens.append(_integer(raw, column, text))
            else:
                raw = dec_float.group() if dec_float else ch
                tokens.append(_floating(raw, column, text, hexadecimal=False))
            pos += len(raw)
            if pos < n and (_is_name_part(text[pos]) or text[pos] == "."):
                if text[pos] in "eEpP":
                    raise ExpressionError("malformed floating-point literal", column, text)
                if text[pos] != "." or tokens[-1].kind in ("float", "double"):
                    raise ExpressionError("malformed number", column, text)
            continue
        if ch == '"':
            if text.startswith('"""', pos):
                raise ExpressionError("text blocks are not supported in expressions; use a string literal",
                                      column, text)
            units, pos = _quoted(text, pos, '"')
            tokens.append(Token("string", units_to_str(units), column, text[column - 1 : pos]))
            continue
        if ch == "'":
            units, end = _quoted(text, pos, "'")
            if len(units) != 1:
                message = "empty character literal" if not units else "unclosed character literal"
                raise ExpressionError(message, column, text)
            tokens.append(Token("char", units[0], column, text[pos:end]))
            pos = end
            continue
        for op in _OPERATORS:
            if text.startswith(op, pos):
                tokens.append(Token("op", op, column, op))
                pos += len(op)
                break
        else:
            raise ExpressionError(f"illegal character: '{ch}'", column, text)
    tokens.append(Token("end", None, n + 1, ""))
    return tokens
