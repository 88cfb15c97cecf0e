"""Java's ``String.valueOf`` for primitives: what string concatenation and templates print.

Floating-point numbers print as ``Double.toString``/``Float.toString`` do: the shortest digits
that read back as the same value (JDK 19+ specifies exactly this; earlier JDKs print the same for
all but rare values), in plain notation from 10^-3 up to 10^7 and in computerized scientific
notation outside that range.

>>> java_double(1.0), java_double(100.0), java_double(1e10), java_double(1e-5), java_double(0.001)
('1.0', '100.0', '1.0E10', '1.0E-5', '0.001')
>>> java_float(to_float32(1.0 / 3)), java_double(float("nan")), java_double(-float("inf"))
('0.33333334', 'NaN', '-Infinity')
>>> java_char(65), primitive_text("Z", True), primitive_text("J", -5)
('A', 'true', '-5')
"""

from __future__ import annotations

import math
from decimal import Decimal

from jdwpd.expr.numbers import primitive, to_float32

__all__ = ["java_double", "java_float", "java_char", "primitive_text"]


def _java_decimal(digits: str, exponent: int, negative: bool) -> str:
    """Render ``0.<digits> * 10**exponent`` (digits without trailing zeros) as Java does."""
    sign = "-" if negative else ""
    # ``point`` is where the decimal point goes in the digits: value = d1 d2 ... (point) ...
    point = exponent
    if -3 < point <= 7:
        # 10^-3 <= |x| < 10^7: plain notation with at least one digit on each side.
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        whole = digits[:point].ljust(point, "0")
        frac = digits[point:] or "0"
        return f"{sign}{whole}.{frac}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{point - 1}"


def _shortest(value: float, significant: int | None) -> tuple[str, int]:
    """The shortest digits of |value| that round-trip, and the decimal exponent (value = 0.ddd * 10**e).

    ``significant`` None: round-trip as a double (Python's repr); else try 1..9 digits against float32.
    """
    magnitude = abs(value)
    if significant is None:
        text = repr(magnitude)
    else:
        for count in range(1, 10):
            text = f"{magnitude:.{count - 1}e}"
            if to_float32(float(text)) == magnitude:
                break
    if len(Decimal(text).normalize().as_tuple().digits) == 1:
        # Java picks among decimals of length 1 *or 2* the closest (Double.MIN_VALUE is 4.9E-324,
        # not 5.0E-324): the correctly rounded 2-digit decimal is that one.
        text = f"{magnitude:.1e}"
    _, digit_tuple, exp = Decimal(text).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    trailing = len(digit_tuple) - len("".join(map(str, digit_tuple)).rstrip("0"))
    assert isinstance(exp, int)
    exp += trailing
    return digits, len(digits) + exp


def _special(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return None


def java_double(value: float) -> str:
    """``Double.toString(value)``."""
    special = _special(value)
    if special is not None:
        return special
    digits, exponent = _shortest(value, None)
    return _java_decimal(digits, exponent, value < 0)


def java_float(value: float) -> str:
    """``Float.toString(value)`` for a value that is a float32."""
    special = _special(value)
    if special is not None:
        return special
    digits, exponent = _shortest(value, 9)
    return _java_decimal(digits, exponent, value < 0)


def java_char(code: int) -> str:
    """A char (a UTF-16 code unit) as a one-character Python string (a lone surrogate stays one)."""
    return chr(code)


def primitive_text(signature: str, value: object) -> str:
    """``String.valueOf`` of a primitive of type ``signature``."""
    if signature == "Z":
        return "true" if value else "false"
    if signature == "C":
        return java_char(int(primitive(value)))
    if signature == "F":
        return java_float(float(primitive(value)))
    if signature == "D":
        return java_double(float(primitive(value)))
    return str(int(primitive(value)))
