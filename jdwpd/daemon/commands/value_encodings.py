"""JDWP encodings shared by the type and object command sets: values read one field at a time, array
values, tagged-object lists written straight into bytes.

Not a command set (no HANDLERS, not in dispatch.COMMAND_MODULES): the other command modules import it.
What a value means (tags, nulls, assignability) is the façade's (jdwpd/daemon/facade/values.py).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from protocol.constants import InvokeOptions, Tag
from protocol.link import InvokeKind
from protocol.wire import IDSizes, Reader, Value

_OBJ = int(Tag.OBJECT)
_TAGGED_8 = struct.Struct(">BQ")


def tagged_list(entries: list, key: str, sizes: IDSizes) -> Any:
    """A reply that is one list of tagged objects (Instances, ReferringObjects), written straight into
    JDWP bytes: a heap walk's answer may hold hundreds of thousands of them."""
    from jdwpd.daemon.commands import Encoded

    size = sizes.object_id

    def pack_any(kind: int, object_id: int) -> bytes:
        return bytes((kind,)) + object_id.to_bytes(size, "big")

    pack: Callable[[int, int], bytes] = _TAGGED_8.pack if size == 8 else pack_any
    parts = [len(entries).to_bytes(4, "big")]
    ids = []
    for e in entries:
        t = e[key]
        if t is None or not t.object:
            parts.append(pack(_OBJ, 0))
        else:
            parts.append(pack(t.kind, t.object))
            ids.append(t.object)
    return Encoded(b"".join(parts), ids)


class FieldValueReader:
    """Reads a SetValues body: (field id, untagged value) pairs, whose sizes depend on each field
    (a jdwpd.daemon.facade.values.FieldWrites).

    Truncated input raises protocol.wire.DecodeError, as any malformed command does.
    """

    def __init__(self, raw: Any, sizes: IDSizes | None = None) -> None:
        self._r = Reader(raw.data, sizes or IDSizes(), "SetValues")
        self.count = raw.count

    def field_id(self) -> int:
        f = self._r.id("field_id", "fieldID")
        self._r.check()
        return f

    def value(self, tag: int) -> Value:
        v = self._r.untagged_value(tag, "value")
        self._r.check()
        return Value(tag, v)


def decode_array_values(raw: Any, tag: int, sizes: IDSizes | None = None) -> list[Value]:
    r = Reader(raw.data, sizes or IDSizes(), "ArrayReference.SetValues")
    values = [Value(tag, r.untagged_value(tag, "value")) for _ in range(raw.count)]
    r.finish()
    return values


def instance_kind(options: int) -> int:
    return InvokeKind.NONVIRTUAL if options & InvokeOptions.INVOKE_NONVIRTUAL else InvokeKind.INSTANCE


def invoke_arguments(args: Any) -> list[Value]:
    """An InvokeMethod's arguments as values (the decoder wraps each in an ``arg`` field)."""
    return [a.arg if hasattr(a, "arg") else a for a in args]
