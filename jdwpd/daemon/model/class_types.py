"""What the class cache holds: immutable records of class facts, and the pure helpers on signatures."""

from __future__ import annotations

import attrs

from protocol.constants import Tag, TypeTag

# The JDWP "synthetic" modifier bit (jdwp.spec, ReferenceType.Fields): JVMTI reports
# synthetic-ness separately, JDWP folds it into the modifiers.
MOD_SYNTHETIC = 0xF0000000

# JVMTI class status bits (jvmti.xml) that JDWP's ClassStatus has too.
_JDWP_STATUS_BITS = 0x1 | 0x2 | 0x4 | 0x8


def jdwp_class_status(jvmti_status: int) -> int:
    """JVMTI's status word without the ARRAY and PRIMITIVE bits, which JDWP does not define."""
    return jvmti_status & _JDWP_STATUS_BITS


def signature_tag(signature: str) -> int:
    """The JDWP value tag a field or variable of this signature holds (L for every class type)."""
    first = signature[:1]
    if first == "[":
        return int(Tag.ARRAY)
    if first == "L":
        return int(Tag.OBJECT)
    return ord(first)


def is_object_signature(signature: str) -> bool:
    return signature[:1] in ("L", "[")


def split_method_signature(signature: str) -> tuple[list[str], str]:
    """'(I[Ljava/lang/String;J)V' -> (['I', '[Ljava/lang/String;', 'J'], 'V')."""
    args: list[str] = []
    i = 1
    n = len(signature)
    while i < n and signature[i] != ")":
        start = i
        while signature[i] == "[":
            i += 1
        if signature[i] == "L":
            i = signature.index(";", i) + 1
        else:
            i += 1
        args.append(signature[start:i])
    return args, signature[i + 1:]


@attrs.frozen
class ClassSignature:
    ref: int
    ref_kind: int  # TypeTag
    signature: str
    generic: str | None  # "" when none, as JDWP's ...WithGeneric replies carry; None: not fetched yet


@attrs.frozen
class FieldInfo:
    field_id: int
    name: str
    signature: str
    generic: str
    modifiers: int  # with MOD_SYNTHETIC folded in
    declaring: int  # reference type id

    @property
    def is_static(self) -> bool:
        return bool(self.modifiers & 0x0008)

    @property
    def tag(self) -> int:
        return signature_tag(self.signature)


@attrs.frozen
class MethodInfo:
    method_id: int
    name: str
    signature: str
    generic: str
    modifiers: int  # with MOD_SYNTHETIC folded in
    declaring: int

    @property
    def is_static(self) -> bool:
        return bool(self.modifiers & 0x0008)

    @property
    def is_native(self) -> bool:
        return bool(self.modifiers & 0x0100)

    @property
    def is_abstract(self) -> bool:
        return bool(self.modifiers & 0x0400)


@attrs.frozen
class LineTable:
    start: int
    end: int
    lines: tuple  # of (code index, line number)


@attrs.frozen
class Variable:
    start: int
    name: str
    signature: str
    generic: str
    length: int
    slot: int


@attrs.frozen
class VariableTable:
    arg_slots: int
    variables: tuple  # of Variable


def with_synthetic(modifiers: int, synthetic: bool) -> int:
    """Fold the synthetic bit in; the result is a signed 32-bit int, as JDWP's modBits is."""
    if not synthetic:
        return modifiers
    bits = (modifiers | MOD_SYNTHETIC) & 0xFFFFFFFF
    return bits - (1 << 32) if bits & 0x80000000 else bits


def type_tag_of_kind(ref_kind: int) -> int:
    return int(TypeTag(ref_kind))
