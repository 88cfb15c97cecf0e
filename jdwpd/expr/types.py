"""Java's primitive types and conversions, exactly: wrapping, narrowing, float32 rounding, IEEE
division and remainder, and the names javac uses for types in messages.

>>> wrap(2**31, "I"), narrow(3.9, "I"), narrow(float("nan"), "I"), narrow(200, "B")
(-2147483648, 3, 0, -56)
>>> to_float32(0.1)
0.10000000149011612
>>> type_name("Ljava/lang/String;"), type_name("[[I"), type_name("Lshop/Order$Line;")
('String', 'int[][]', 'shop.Order.Line')
"""

from __future__ import annotations

import math

from jdwpd.expr.access import NULL
from jdwpd.expr.numbers import int_to_float32, primitive, to_float32
from jdwpd.expr.tree import Binary, Cast, Conditional, InstanceOf, Literal, Node, Unary, walk

__all__ = [
    "INTEGRAL", "NUMERIC", "BOXES", "UNBOXED", "wrap", "narrow", "to_float32", "int_to_float32",
    "binary_promotion", "unary_promotion", "convert", "divide", "remainder", "type_name",
    "STRING_SUPERTYPES", "FITS", "static_type", "is_constant",
]

#: Integral primitive signatures (char included: it takes part in arithmetic as an int).
INTEGRAL = frozenset("BCSIJ")
#: Numeric primitive signatures.
NUMERIC = frozenset("BCSIJFD")
#: Wrapper class signature -> the primitive it boxes.
BOXES: dict[str, str] = {
    "Ljava/lang/Boolean;": "Z", "Ljava/lang/Byte;": "B", "Ljava/lang/Character;": "C",
    "Ljava/lang/Short;": "S", "Ljava/lang/Integer;": "I", "Ljava/lang/Long;": "J",
    "Ljava/lang/Float;": "F", "Ljava/lang/Double;": "D",
}
#: Primitive -> its wrapper class signature.
UNBOXED: dict[str, str] = {v: k for k, v in BOXES.items()}
#: The classes and interfaces every java.lang.String is an instance of (Java 17).
STRING_SUPERTYPES = frozenset({
    "Ljava/lang/String;", "Ljava/lang/Object;", "Ljava/lang/CharSequence;", "Ljava/lang/Comparable;",
    "Ljava/io/Serializable;", "Ljava/lang/constant/Constable;", "Ljava/lang/constant/ConstantDesc;",
})

_BITS = {"B": 8, "S": 16, "I": 32, "J": 64}


def wrap(value: int, signature: str) -> int:
    """``value`` reduced to the integral type's width, as Java's arithmetic and narrowing do
    (``C``: unsigned 16 bits)."""
    if signature == "C":
        return value & 0xFFFF
    bits = _BITS[signature]
    half = 1 << (bits - 1)
    return ((value + half) & ((1 << bits) - 1)) - half


def _float_to_integral(value: float, bits: int) -> int:
    """Java's float/double -> int/long: NaN is 0, out of range saturates, else truncates."""
    if math.isnan(value):
        return 0
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if value <= low:
        return low
    if value >= high:
        return high
    return int(value)


def narrow(value: bool | int | float, signature: str) -> int | float:
    """``value`` (a number) converted to the numeric type ``signature`` by Java's primitive
    widening or narrowing conversion (JLS 5.1.2, 5.1.3)."""
    if signature == "D":
        return float(value)
    if signature == "F":
        return int_to_float32(value) if isinstance(value, int) else to_float32(value)
    if isinstance(value, float):
        # double -> byte/short/char goes through int first (JLS 5.1.3).
        value = _float_to_integral(value, 64 if signature == "J" else 32)
    return wrap(int(value), signature)


def convert(value: bool | int | float, source: str, target: str) -> bool | int | float:
    """A primitive of type ``source`` as type ``target`` (both numeric, or both ``Z``)."""
    if source == target:
        return value
    return narrow(value, target)


def unary_promotion(signature: str) -> str:
    """byte, short and char compute as int (JLS 5.6)."""
    return "I" if signature in "BSC" else signature


def binary_promotion(left: str, right: str) -> str:
    """The type two numeric operands compute in (JLS 5.6.2)."""
    for sig in "DFJ":
        if sig in (left, right):
            return sig
    return "I"


def divide(a: int | float, b: int | float, signature: str) -> int | float:
    """``a / b`` in the promoted type; integer division by zero raises ZeroDivisionError."""
    if signature in "IJ":
        if b == 0:
            raise ZeroDivisionError("/ by zero")
        quotient = abs(int(a)) // abs(int(b))  # ints here: int() says so to the checker
        return wrap(quotient if (a < 0) == (b < 0) else -quotient, signature)
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    result = a / b
    return to_float32(result) if signature == "F" else result


def remainder(a: int | float, b: int | float, signature: str) -> int | float:
    """``a % b``: the sign of the dividend (truncated division), IEEE rules for floats."""
    if signature in "IJ":
        if b == 0:
            raise ZeroDivisionError("/ by zero")
        rest = abs(int(a)) % abs(int(b))
        return wrap(rest if a >= 0 else -rest, signature)
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0:
        return math.nan
    if math.isinf(b):
        return a
    return math.fmod(a, b)  # exact, so float32 operands give a float32 result


def type_name(signature: str) -> str:
    """A type as javac names it in messages: simple names for java.lang, dotted otherwise."""
    dims = len(signature) - len(signature.lstrip("["))
    element = signature[dims:]
    names = {v: k for k, v in {
        "boolean": "Z", "byte": "B", "char": "C", "short": "S", "int": "I", "long": "J", "float": "F",
        "double": "D", "void": "V",
    }.items()}
    if element in names:
        base = names[element]
    elif element == "null":
        base = "<null>"
    elif element.startswith("L") and element.endswith(";"):
        base = element[1:-1].replace("/", ".").replace("$", ".")
        if base.startswith("java.lang.") and base.count(".") == 2:
            base = base[len("java.lang."):]
    else:
        base = element
    return base + "[]" * dims


#: The int values byte, short and char hold.
FITS = {"B": (-128, 127), "S": (-32768, 32767), "C": (0, 65535)}


def static_type(node: Node) -> str | None:
    """The primitive type of ``node`` when the tree alone decides it (literals, casts to
    primitives, operators over those), else None (names, fields, calls: only the VM knows)."""
    match node:
        case Literal(signature=sig):
            return sig if len(sig) == 1 else None
        case Cast(type=kind):
            return kind.primitive
        case Unary(op="!"):
            return "Z"
        case Unary(operand=operand):
            inner = static_type(operand)
            return unary_promotion(inner) if inner in NUMERIC else None
        case Binary(op=op, left=left, right=right):
            if op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
                return "Z"
            lt, rt = static_type(left), static_type(right)
            if lt is None or rt is None:
                return None
            if op in ("<<", ">>", ">>>"):
                return unary_promotion(lt) if lt in INTEGRAL else None
            if lt == rt == "Z":
                return "Z" if op in ("&", "|", "^") else None
            return binary_promotion(lt, rt) if lt in NUMERIC and rt in NUMERIC else None
        case InstanceOf():
            return "Z"
        case Conditional(then=then, otherwise=otherwise):
            a, b = static_type(then), static_type(otherwise)
            if a is None or b is None or a == b:
                return a if a == b else None
            if a not in NUMERIC or b not in NUMERIC:
                return None
            for narrow_sig, int_node in ((a, otherwise), (b, then)):
                # The int-constant rule, for the constants the tree shows as literals.
                if narrow_sig in FITS and isinstance(int_node, Literal) and int_node.signature == "I":
                    if FITS[narrow_sig][0] <= int(primitive(int_node.value)) <= FITS[narrow_sig][1]:
                        return narrow_sig
            return "S" if {a, b} == {"B", "S"} else binary_promotion(a, b)
    return None


def is_constant(node: Node) -> bool:
    """Whether ``node`` is a constant expression as far as the tree tells (JLS 15.29: literals,
    operators and casts to primitives or String; constant variables are not known here)."""
    return all(
        (isinstance(n, Literal) and n.signature != NULL)
        or isinstance(n, (Unary, Binary, Conditional))
        or (isinstance(n, Cast) and (n.type.primitive is not None or n.type.name in ("String", "java.lang.String")))
        for n in walk(node)
    )
