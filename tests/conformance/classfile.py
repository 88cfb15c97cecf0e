"""Add a SourceDebugExtension attribute (JSR-45) to a compiled class: javac never writes one."""

from __future__ import annotations

import struct

# Constant pool entry sizes after the tag byte, by tag (Utf8 is variable).
_CP_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2}


def _skip_members(data: bytes, pos: int) -> int:
    (count,) = struct.unpack_from(">H", data, pos)
    pos += 2
    for _ in range(count):
        pos += 6  # access, name, descriptor
        pos = _skip_attributes(data, pos)
    return pos


def _skip_attributes(data: bytes, pos: int) -> int:
    (count,) = struct.unpack_from(">H", data, pos)
    pos += 2
    for _ in range(count):
        (length,) = struct.unpack_from(">I", data, pos + 2)
        pos += 6 + length
    return pos


def add_source_debug_extension(class_bytes: bytes, sde: str) -> bytes:
    data = class_bytes
    (cp_count,) = struct.unpack_from(">H", data, 8)
    pos, index = 10, 1
    while index < cp_count:
        tag = data[pos]
        if tag == 1:
            (length,) = struct.unpack_from(">H", data, pos + 1)
            pos += 3 + length
        else:
            pos += 1 + _CP_SIZES[tag]
        index += 2 if tag in (5, 6) else 1
    cp_end = pos
    name = b"SourceDebugExtension"
    new_entry = b"\x01" + struct.pack(">H", len(name)) + name
    pos += 6  # access, this, super
    (interfaces,) = struct.unpack_from(">H", data, pos)
    pos += 2 + 2 * interfaces
    pos = _skip_members(data, pos)  # fields
    pos = _skip_members(data, pos)  # methods
    (attr_count,) = struct.unpack_from(">H", data, pos)
    payload = sde.encode("utf-8")
    attribute = struct.pack(">HI", cp_count, len(payload)) + payload
    return (data[:8] + struct.pack(">H", cp_count + 1) + data[10:cp_end] + new_entry + data[cp_end:pos]
            + struct.pack(">H", attr_count + 1) + data[pos + 2:] + attribute)
