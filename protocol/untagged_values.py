"""Untagged values (the values of a SetValues body): their sizes are not on the wire but follow
each field's or the array's type, so a body is kept raw (``wire.RawValues``) until the types are
known; written from Values, or (field id, Value) pairs, or a RawValues as is."""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .wire import ID_CODES, DecodeError, IDSizes, RawValues, Value, as_value, decode_failure, value_codec

__all__ = ["write_untagged_values", "decode_untagged_values"]

_I32 = struct.Struct(">i")


def write_untagged_values(parts: list, v: Any, field_code: str | None, codec: Any) -> None:
    """Write a repeat of untagged values: from RawValues as is, else from Values / (field_id, Value) pairs."""
    if isinstance(v, RawValues):
        parts.append(_I32.pack(v.count))
        parts.append(bytes(v.data))
        return
    if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Sequence):
        raise TypeError(f"expected RawValues or a sequence, got {type(v).__name__}")
    parts.append(_I32.pack(len(v)))
    if field_code is None:
        for val in v:
            val = as_value(val)
            codec.write_untagged(parts, val.value, val.tag)
        return
    fs = struct.Struct(">" + field_code)
    for pair in v:
        if isinstance(pair, Mapping):
            fid, val = pair["field_id"], pair["value"]
        elif isinstance(pair, (tuple, list)):
            fid, val = pair
        else:
            fid, val = pair.field_id, pair.value
        val = as_value(val)
        parts.append(fs.pack(fid))
        codec.write_untagged(parts, val.value, val.tag)


def decode_untagged_values(raw: RawValues, resolve: Callable[[int], int] | int, sizes: IDSizes | None = None) -> list:
    """Finish decoding a SetValues body once the types are known.

    ``resolve`` is a function field_id -> tag for (fieldID, value) pairs
    (ClassType/ObjectReference.SetValues), returning ``[(field_id, Value), ...]``;
    or a fixed tag for ArrayReference.SetValues, returning ``[Value, ...]``.
    Exceptions raised by ``resolve`` propagate unchanged (an unknown field is the
    caller's INVALID_FIELDID, not a protocol error).
    """
    sizes = sizes or IDSizes()
    codec = value_codec(sizes)
    buf = bytes(raw.data)
    pos = 0
    out: list = []
    fs = struct.Struct(">" + ID_CODES[sizes.field_id])
    i = 0
    field = "value"
    try:
        if raw.count < 0:
            raise ValueError(f"negative count {raw.count}")
        for i in range(raw.count):  # noqa: B007 - i names the failing item
            if callable(resolve):  # (field ID, value) pairs
                field = "field_id"
                (fid,) = fs.unpack_from(buf, pos)
                pos += fs.size
                tag = resolve(fid)
                field = "value"
                v, pos = codec.read_untagged(buf, pos, tag)
                out.append((fid, Value(tag, v)))
            else:
                field = "value"
                v, pos = codec.read_untagged(buf, pos, resolve)
                out.append(Value(resolve, v))
    except (struct.error, IndexError, ValueError, KeyError) as e:
        raise DecodeError("untagged values", f"values[{i}].{field}", decode_failure(e, buf, pos)) from None
    if pos != len(buf):
        raise DecodeError("untagged values", "<end>", f"{len(buf) - pos} trailing bytes")
    return out
