"""Java's float32 rounding in Python, as every float operation and conversion does it; what a
primitive's value is.

A leaf of the expression package: the lexer, the formatter and the type rules all use it.
"""

from __future__ import annotations

import math
import struct
from typing import cast

_FLOAT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
# Halfway between the largest float32 and 2**128: from here up a double rounds to infinity.
_FLOAT_OVERFLOW = 2.0**128 - 2.0**103


Primitive = bool | int | float  # Z: a bool, C: its UTF-16 code unit, F and D: a float, the others: an int


def primitive(data: object) -> Primitive:
    """``data`` (a Value's or a Literal's, typed for every kind of value) known to be a primitive's."""
    return cast(Primitive, data)


def to_float32(value: float) -> float:
    """The float32 nearest to ``value`` (ties to even), as a Python float; overflow gives an infinity."""
    if math.isnan(value) or math.isinf(value):
        return value
    if abs(value) >= _FLOAT_OVERFLOW:
        return math.copysign(math.inf, value)
    if abs(value) > _FLOAT_MAX:
        return math.copysign(_FLOAT_MAX, value)
    return struct.unpack("<f", struct.pack("<f", value))[0]


def int_to_float32(value: int) -> float:
    """A long converted to float by one rounding (through double it could round twice)."""
    if abs(value) < 1 << 53:
        return to_float32(float(value))
    magnitude = abs(value)
    shift = magnitude.bit_length() - 24
    kept, rest = divmod(magnitude, 1 << shift)
    half = 1 << (shift - 1)
    if rest > half or (rest == half and kept & 1):
        kept += 1
    return math.copysign(float(kept << shift), value)
