"""JDWP primitives: ID sizes, error types, values, locations, modified UTF-8, Reader/Writer.

Everything is big-endian.  IDs are unsigned integers of the size the target VM
announced in VirtualMachine.IDSizes (8 and 4 both work): unsigned, so that any
bit pattern a VM sends survives a round trip.  Decoders raise a subclass of
``ProtocolError`` naming what was being decoded and the field; nothing else
(no ``struct.error``, ``IndexError`` or ``UnicodeDecodeError``) escapes.
"""

from __future__ import annotations

import builtins  # Reader and Writer have a method `int`, which shadows the type in their bodies
import enum
import re
import struct
from collections.abc import Callable
from typing import Any, cast

import attrs

from .constants import OBJECT_TAGS, Tag

__all__ = [
    "IDSizes",
    "ProtocolError",
    "LocalProtocolError",
    "RemoteProtocolError",
    "DecodeError",
    "EncodeError",
    "Value",
    "TaggedObjectID",
    "Location",
    "ArrayRegion",
    "RawValues",
    "Reader",
    "Writer",
    "encode_mutf8",
    "encode_jdwp_string",
    "decode_mutf8",
    "ValueCodec",
    "value_codec",
    "ID_CODES",
    "as_value",
    "as_tagged_object",
    "as_location",
    "decode_failure",
]


@attrs.frozen(cache_hash=True)
class IDSizes:
    """Byte sizes of the variable-size IDs.  Same order as VirtualMachine.IDSizes' reply,
    so ``IDSizes(*astuple(reply))`` works; hashed once, because every codec call looks it up."""

    field_id: int = 8
    method_id: int = 8
    object_id: int = 8
    reference_type_id: int = 8
    frame_id: int = 8

    def __attrs_post_init__(self) -> None:
        for name in ("field_id", "method_id", "object_id", "reference_type_id", "frame_id"):
            if getattr(self, name) not in ID_CODES:
                raise LocalProtocolError(f"IDSizes.{name} must be 1, 2, 4 or 8, not {getattr(self, name)!r}")


# ---------------------------------------------------------------- errors


class ProtocolError(Exception):
    """Anything wrong with JDWP bytes or with a message we were asked to encode."""


class LocalProtocolError(ProtocolError):
    """We were asked to do something the protocol does not allow (encode a bad value, send out of order)."""


class RemoteProtocolError(ProtocolError):
    """The peer sent bytes that are not valid JDWP."""


class DecodeError(RemoteProtocolError):
    """A packet body does not match its layout.  ``context`` is e.g. ``VirtualMachine.IDSizes reply``."""

    def __init__(self, context: str, field: str, reason: str) -> None:
        self.context = context
        self.field = field
        self.reason = reason
        super().__init__(f"{context}: field {field!r}: {reason}")


class EncodeError(LocalProtocolError):
    """A message given to an encoder does not fit its layout."""

    def __init__(self, context: str, field: str, reason: str) -> None:
        self.context = context
        self.field = field
        self.reason = reason
        super().__init__(f"{context}: field {field!r}: {reason}")


# ---------------------------------------------------------------- value types


@attrs.frozen
class Value:
    """A tagged value.

    Object tags carry the object ID in ``value`` (0 is null); VOID carries None;
    BOOLEAN a bool; CHAR the UTF-16 code unit as an int (a char may be half a
    surrogate pair, which a one-character str could not say faithfully); FLOAT and
    DOUBLE a float; the other primitives an int.
    """

    tag: int
    value: int | float | bool | None

    @property
    def object_id(self) -> int:
        """The ID an object-tagged value carries (0: null), typed as such (``value`` is typed for every tag)."""
        return cast(int, self.value)


@attrs.frozen
class TaggedObjectID:
    tag: int
    object_id: int


@attrs.frozen
class Location:
    """``index`` is signed: the reference agent writes a jlocation (jlong), -1 for native methods."""

    type_tag: int
    class_id: int
    method_id: int
    index: int


@attrs.frozen
class ArrayRegion:
    """ArrayReference.GetValues' typed-sequence.

    Primitive tags: ``values`` are plain Python values (written untagged).
    Object tags: ``values`` are ``Value`` instances (written tagged, each with its own tag).
    """

    tag: int
    values: tuple


@attrs.frozen
class RawValues:
    """Untagged values whose types are not on the wire (the SetValues commands).

    Only the receiver knows the field or component types, so decoding stops at the
    count; ``decode_untagged_values`` finishes the job once the types are known.
    """

    data: bytes
    count: int


# ---------------------------------------------------------------- modified UTF-8

_SUPPLEMENTARY = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _split_pair(m: re.Match) -> str:
    c = ord(m.group()) - 0x10000
    return chr(0xD800 + (c >> 10)) + chr(0xDC00 + (c & 0x3FF))


def _join_pair(m: re.Match) -> str:
    hi, lo = m.group()
    return chr(0x10000 + ((ord(hi) - 0xD800) << 10) + (ord(lo) - 0xDC00))


def encode_mutf8(s: str) -> bytes:
    """Encode as the JVM does: NUL as C0 80, supplementary characters as two 3-byte surrogates."""
    if s.isascii() and "\0" not in s:
        return s.encode("ascii")
    s = _SUPPLEMENTARY.sub(_split_pair, s)
    return s.encode("utf-8", "surrogatepass").replace(b"\0", b"\xc0\x80")


def encode_jdwp_string(s: str) -> bytes:
    """A string as JDWP carries it: standard UTF-8, as the reference writes it (NUL as one 00 byte,
    supplementary characters as 4 bytes); a lone surrogate, which UTF-8 cannot express, as the
    3-byte sequence the JVM would write."""
    if s.isascii():
        return s.encode("ascii")
    return s.encode("utf-8", "surrogatepass")


def decode_mutf8(b: bytes) -> str:
    """Decode modified UTF-8 (byte-exact inverse of ``encode_mutf8`` for what a JVM writes).

    Standard UTF-8 (4-byte sequences, raw NUL) is accepted as well, because JDI-based
    front ends send it; such input decodes to the same string but re-encodes in the
    JVM's form.  Raises ``ValueError`` on anything else.
    """
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        s = b.replace(b"\xc0\x80", b"\0").decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as e:
        raise ValueError(f"invalid modified UTF-8 at byte {e.start}") from None
    return _SURROGATE_PAIR.sub(_join_pair, s)


def _decode_str(b: bytes) -> str:
    # Hot path for decoders: nearly every JVM string is plain UTF-8.
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return decode_mutf8(b)


# ---------------------------------------------------------------- value codecs

ID_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}  # struct's format of an ID of each size

# Payload formats of primitive tags; object tags use the object ID size.
_PRIMITIVE_CODES = {
    Tag.BYTE: "b",
    Tag.CHAR: "H",
    Tag.FLOAT: "f",
    Tag.DOUBLE: "d",
    Tag.INT: "i",
    Tag.LONG: "q",
    Tag.SHORT: "h",
    Tag.BOOLEAN: "?",
}

_I32 = struct.Struct(">i")
_U8 = struct.Struct(">B")


class _Unknown(enum.Enum):
    TAG = 0


_UNKNOWN = _Unknown.TAG  # what ValueCodec.untagged.get answers for a tag it does not know (None is VOID's)


class ValueCodec:
    """Tagged/untagged values, tagged objects, locations and array regions for one IDSizes."""

    def __init__(self, sizes: IDSizes) -> None:
        self.sizes = sizes
        obj = ID_CODES[sizes.object_id]
        # tag -> Struct of the untagged payload
        self.untagged: dict[int, struct.Struct | None] = {
            int(t): struct.Struct(">" + c) for t, c in _PRIMITIVE_CODES.items()
        }
        for t in OBJECT_TAGS:
            self.untagged[int(t)] = struct.Struct(">" + obj)
        self.untagged[int(Tag.VOID)] = None
        # tag -> Struct of tag byte + payload, for writing tagged values in one pack
        self.tagged: dict[int, struct.Struct] = {
            t: struct.Struct(">B" + (s.format[1:] if s is not None else "")) for t, s in self.untagged.items()
        }
        self.location = struct.Struct(">B" + ID_CODES[sizes.reference_type_id] + ID_CODES[sizes.method_id] + "q")
        self.tagged_object = struct.Struct(">B" + obj)

    # -- decoding: (buf, pos) -> (result, new pos); raise ValueError/struct.error/IndexError/KeyError,
    #    which the caller turns into DecodeError with the field name.

    def read_value(self, buf: bytes, pos: int) -> tuple[Value, int]:
        tag = buf[pos]
        s = self.untagged.get(tag, _UNKNOWN)
        if s is _UNKNOWN:
            raise ValueError(f"unknown value tag {tag} ({_tag_repr(tag)})")
        if s is None:
            return Value(tag, None), pos + 1
        return Value(tag, s.unpack_from(buf, pos + 1)[0]), pos + 1 + s.size

    def read_untagged(self, buf: bytes, pos: int, tag: int) -> tuple[Any, int]:
        s = self.untagged.get(tag, _UNKNOWN)
        if s is _UNKNOWN:
            raise ValueError(f"unknown value tag {tag} ({_tag_repr(tag)})")
        if s is None:
            return None, pos
        return s.unpack_from(buf, pos)[0], pos + s.size

    def read_tagged_object(self, buf: bytes, pos: int) -> tuple[TaggedObjectID, int]:
        tag, oid = self.tagged_object.unpack_from(buf, pos)
        if tag not in OBJECT_TAGS:
            raise ValueError(f"tag {tag} ({_tag_repr(tag)}) is not an object tag")
        return TaggedObjectID(tag, oid), pos + self.tagged_object.size

    def read_location(self, buf: bytes, pos: int) -> tuple[Location, int]:
        return Location(*self.location.unpack_from(buf, pos)), pos + self.location.size

    def read_region(self, buf: bytes, pos: int) -> tuple[ArrayRegion, int]:
        tag, n = _U8.unpack_from(buf, pos)[0], _I32.unpack_from(buf, pos + 1)[0]
        pos += 5
        if n < 0:
            raise ValueError(f"negative count {n}")
        if tag in OBJECT_TAGS:
            vals = []
            for _ in range(n):
                v, pos = self.read_value(buf, pos)
                if v.tag not in OBJECT_TAGS:
                    raise ValueError(f"primitive tag {_tag_repr(v.tag)} in an object array region")
                vals.append(v)
            return ArrayRegion(tag, tuple(vals)), pos
        s = self.untagged.get(tag, _UNKNOWN)
        if s is _UNKNOWN or s is None:
            raise ValueError(f"bad array region tag {tag} ({_tag_repr(tag)})")
        end = pos + n * s.size
        if end > len(buf):
            raise ValueError(f"{n} elements do not fit in the {len(buf) - pos} bytes left")
        return ArrayRegion(tag, struct.unpack_from(f">{n}{s.format[1:]}", buf, pos)), end

    # -- encoding: append bytes to ``parts``; raise EncodeError-worthy exceptions as ValueError/TypeError.

    def write_value(self, parts: list, v: Any) -> None:
        if type(v) is not Value:
            v = as_value(v)
        s = self.tagged.get(v.tag)
        if s is None:
            raise ValueError(f"unknown value tag {v.tag!r}")
        if s.size == 1:
            if v.value is not None:
                raise ValueError("a void value carries None")
            parts.append(s.pack(v.tag))
        else:
            parts.append(s.pack(v.tag, v.value))

    def write_untagged(self, parts: list, v: Any, tag: int) -> None:
        s = self.untagged.get(tag, _UNKNOWN)
        if s is _UNKNOWN:
            raise ValueError(f"unknown value tag {tag!r}")
        if s is not None:
            parts.append(s.pack(v))

    def write_tagged_object(self, parts: list, t: Any) -> None:
        if type(t) is not TaggedObjectID:
            t = as_tagged_object(t)
        if t.tag not in OBJECT_TAGS:
            raise ValueError(f"tag {t.tag!r} is not an object tag")
        parts.append(self.tagged_object.pack(t.tag, t.object_id))

    def write_location(self, parts: list, loc: Any) -> None:
        if type(loc) is not Location:
            loc = as_location(loc)
        parts.append(self.location.pack(loc.type_tag, loc.class_id, loc.method_id, loc.index))

    def write_region(self, parts: list, r: Any) -> None:
        if type(r) is not ArrayRegion:
            r = ArrayRegion(*r)
        parts.append(_U8.pack(r.tag))
        parts.append(_I32.pack(len(r.values)))
        if r.tag in OBJECT_TAGS:
            for v in r.values:
                if type(v) is not Value:
                    v = as_value(v)
                if v.tag not in OBJECT_TAGS:
                    raise ValueError(f"primitive tag {v.tag!r} in an object array region")
                self.write_value(parts, v)
            return
        s = self.untagged.get(r.tag, _UNKNOWN)
        if s is _UNKNOWN or s is None:
            raise ValueError(f"bad array region tag {r.tag!r}")
        parts.append(struct.pack(f">{len(r.values)}{s.format[1:]}", *r.values))


_CODECS: dict[IDSizes, ValueCodec] = {}


def value_codec(sizes: IDSizes) -> ValueCodec:
    c = _CODECS.get(sizes)
    if c is None:
        c = _CODECS[sizes] = ValueCodec(sizes)
    return c


def _tag_repr(tag: int) -> str:
    return repr(chr(tag)) if 32 <= tag < 127 else hex(tag)


# A value, tagged object or location given as the instance, a dict of its fields or a tuple: what
# the encoders accept (messages' codecs too).
def as_value(v: Any) -> Value:
    if isinstance(v, Value):
        return v
    if isinstance(v, dict):
        return Value(v["tag"], v["value"])
    tag, value = v
    return Value(tag, value)


def as_tagged_object(v: Any) -> TaggedObjectID:
    if isinstance(v, TaggedObjectID):
        return v
    if isinstance(v, dict):
        return TaggedObjectID(v["tag"], v["object_id"])
    tag, oid = v
    return TaggedObjectID(tag, oid)


def as_location(v: Any) -> Location:
    if isinstance(v, Location):
        return v
    if isinstance(v, dict):
        return Location(v["type_tag"], v["class_id"], v["method_id"], v["index"])
    return Location(*v)


# ---------------------------------------------------------------- Reader / Writer

_DECODE_FAILURES = (struct.error, IndexError, KeyError, ValueError, TypeError, OverflowError)


class Reader:
    """Sticky-error reader for hand-written decoding.

    The first failure is remembered and every later read returns a harmless
    default, so a decoder can read all its fields and check once at the end
    (``finish``), which raises a ``DecodeError`` naming the first bad field.
    """

    def __init__(self, data: bytes, sizes: IDSizes | None = None, context: str = "packet") -> None:
        self.data = bytes(data)
        self.pos = 0
        self.sizes = sizes or IDSizes()
        self.context = context
        self.error: DecodeError | None = None
        self._codec = value_codec(self.sizes)

    def _fail(self, field: str, reason: str) -> None:
        if self.error is None:
            self.error = DecodeError(self.context, field, reason)
        self.pos = len(self.data)

    def _run(self, field: str, fn: Callable, default: Any, *args: Any) -> Any:
        if self.error is not None:
            return default
        try:
            result, self.pos = fn(self.data, self.pos, *args)
        except _DECODE_FAILURES as e:
            self._fail(field, decode_failure(e, self.data, self.pos))
            return default
        return result

    def _fixed(self, field: str, s: struct.Struct, default: Any) -> Any:
        if self.error is not None:
            return default
        if self.pos + s.size > len(self.data):
            self._fail(field, f"needs {s.size} bytes, {len(self.data) - self.pos} left")
            return default
        v = s.unpack_from(self.data, self.pos)[0]
        self.pos += s.size
        return v

    def byte(self, field: str = "byte") -> int:
        return self._fixed(field, _U8, 0)

    def boolean(self, field: str = "boolean") -> bool:
        return bool(self._fixed(field, _U8, 0))

    def int(self, field: str = "int") -> int:
        return self._fixed(field, _I32, 0)

    def long(self, field: str = "long") -> builtins.int:
        return self._fixed(field, _I64, 0)

    def id(self, kind: str, field: str = "id") -> builtins.int:
        """``kind`` is an IDSizes attribute name: object_id, reference_type_id, method_id, field_id, frame_id."""
        return self._fixed(field, _ID_STRUCTS[getattr(self.sizes, kind)], 0)

    def count(self, field: str = "count") -> builtins.int:
        n = self.int(field)
        if n < 0:
            self._fail(field, f"negative count {n}")
            return 0
        return n

    def string(self, field: str = "string") -> str:
        return self._run(field, _read_string, "")

    def value(self, field: str = "value") -> Value:
        return self._run(field, self._codec.read_value, Value(Tag.VOID, None))

    def untagged_value(self, tag: builtins.int, field: str = "value") -> Any:
        return self._run(field, self._codec.read_untagged, None, tag)

    def tagged_object(self, field: str = "object") -> TaggedObjectID:
        return self._run(field, self._codec.read_tagged_object, TaggedObjectID(Tag.OBJECT, 0))

    def location(self, field: str = "location") -> Location:
        return self._run(field, self._codec.read_location, Location(0, 0, 0, 0))

    def array_region(self, field: str = "values") -> ArrayRegion:
        return self._run(field, self._codec.read_region, ArrayRegion(Tag.INT, ()))

    def rest(self) -> bytes:
        b = self.data[self.pos :]
        self.pos = len(self.data)
        return b

    @property
    def remaining(self) -> builtins.int:
        return len(self.data) - self.pos

    def check(self) -> None:
        if self.error is not None:
            raise self.error

    def finish(self) -> None:
        """Raise the first error, or a trailing-bytes error if the body was not consumed exactly."""
        self.check()
        if self.pos != len(self.data):
            raise DecodeError(self.context, "<end>", f"{len(self.data) - self.pos} trailing bytes")


class Writer:
    """Accumulates big-endian fields; ``getvalue()`` returns the bytes."""

    def __init__(self, sizes: IDSizes | None = None) -> None:
        self.sizes = sizes or IDSizes()
        self.parts: list[bytes] = []
        self._codec = value_codec(self.sizes)

    def byte(self, v: int) -> Writer:
        self.parts.append(_U8.pack(v))
        return self

    def boolean(self, v: bool) -> Writer:
        self.parts.append(b"\x01" if v else b"\x00")
        return self

    def int(self, v: int) -> Writer:
        self.parts.append(_I32.pack(v))
        return self

    def long(self, v: builtins.int) -> Writer:
        self.parts.append(_I64.pack(v))
        return self

    def id(self, kind: str, v: builtins.int) -> Writer:
        self.parts.append(_ID_STRUCTS[getattr(self.sizes, kind)].pack(v))
        return self

    def string(self, s: str) -> Writer:
        b = encode_jdwp_string(s)
        self.parts.append(_I32.pack(len(b)))
        self.parts.append(b)
        return self

    def value(self, v: Value) -> Writer:
        self._codec.write_value(self.parts, v)
        return self

    def untagged_value(self, v: Any, tag: builtins.int) -> Writer:
        self._codec.write_untagged(self.parts, v, tag)
        return self

    def tagged_object(self, t: TaggedObjectID) -> Writer:
        self._codec.write_tagged_object(self.parts, t)
        return self

    def location(self, loc: Location) -> Writer:
        self._codec.write_location(self.parts, loc)
        return self

    def array_region(self, r: ArrayRegion) -> Writer:
        self._codec.write_region(self.parts, r)
        return self

    def raw(self, b: bytes) -> Writer:
        self.parts.append(bytes(b))
        return self

    def getvalue(self) -> bytes:
        return b"".join(self.parts)


_I64 = struct.Struct(">q")
_ID_STRUCTS = {n: struct.Struct(">" + c) for n, c in ID_CODES.items()}


def _read_string(buf: bytes, pos: int) -> tuple[str, int]:
    n = _I32.unpack_from(buf, pos)[0]
    if n < 0:
        raise ValueError(f"negative string length {n}")
    start = pos + 4
    end = start + n
    if end > len(buf):
        raise ValueError(f"string of {n} bytes does not fit in the {len(buf) - start} bytes left")
    return _decode_str(buf[start:end]), end


def decode_failure(e: BaseException, buf: bytes, pos: int) -> str:
    """What a decoding exception at ``pos`` of ``buf`` says to a reader of DecodeError."""
    if isinstance(e, (struct.error, IndexError)):
        return f"truncated at byte {pos} of {len(buf)}"
    if isinstance(e, KeyError):
        return f"unknown key {e.args[0]!r}"
    return str(e)
