"""Generated decoders for agent-link bodies: the schema of protocol/link.py turned into straight-line code.

The generic decoder (link._decode) interprets the schema field by field; for the big replies
(a class's methods with their line tables, a frame's locals) that interpretation costs three
times the decoding itself.  compile_decoder(fields) writes one function per list level, reads
runs of fixed-size fields with one struct each, and returns None for layouts it does not
handle (variants), which stay with the generic decoder.

The generated code only has to be right for well-formed bodies: decode_reply falls back to the
generic decoder on any exception, so every malformed body is reported by the one decoder that
names the field (tests/protocol/test_link_fast.py checks both agree on random bodies).
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Callable, Sequence
from typing import Any

from .wire import decode_mutf8

_FIXED = {"u8": "B", "bool": "B", "u16": "H", "i32": "i", "i64": "q", "id": "Q"}
_U8 = struct.Struct(">B")
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_LOC = struct.Struct(">BQQQ")
_names = itertools.count()


class _Malformed(Exception):
    """Not a well-formed body: the generic decoder will say why."""


def _str(data: bytes, pos: int) -> tuple[str, int]:
    (n,) = _U32.unpack_from(data, pos)
    pos += 4
    end = pos + n
    if end > len(data):
        raise _Malformed
    raw = data[pos:end]
    return (raw.decode("ascii") if raw.isascii() else decode_mutf8(raw)), end


def _bytes(data: bytes, pos: int) -> tuple[bytes, int]:
    (n,) = _U32.unpack_from(data, pos)
    pos += 4
    end = pos + n
    if end > len(data):
        raise _Malformed
    return data[pos:end], end


def _helpers(types: tuple) -> dict[str, Any]:
    prim = {tag: struct.Struct(">" + code) for tag, code in
            {ord("B"): "b", ord("C"): "H", ord("D"): "d", ord("F"): "f", ord("I"): "i", ord("J"): "q",
             ord("S"): "h", ord("Z"): "B"}.items()}
    objects, link_value, tagged, location = types
    void, boolean = ord("V"), ord("Z")

    def value(data: bytes, pos: int) -> tuple[Any, int]:
        tag = data[pos]
        pos += 1
        if tag in objects:
            return link_value(tag, _U64.unpack_from(data, pos)[0]), pos + 8
        if tag == void:
            return link_value(tag, None), pos
        codec = prim[tag]  # KeyError for an unknown tag: malformed
        (v,) = codec.unpack_from(data, pos)
        return link_value(tag, bool(v) if tag == boolean else v), pos + codec.size

    def tagged_object(data: bytes, pos: int) -> tuple[Any, int]:
        return tagged(data[pos], _U64.unpack_from(data, pos + 1)[0]), pos + 9

    def loc(data: bytes, pos: int) -> tuple[Any, int]:
        return location(*_LOC.unpack_from(data, pos)), pos + _LOC.size

    return {"_U32": _U32, "_Malformed": _Malformed, "_str": _str, "_bytes": _bytes, "_value": value,
            "_tagged": tagged_object, "_loc": loc}


_CALLS = {"str": "_str", "bytes": "_bytes", "value": "_value", "tagged": "_tagged", "loc": "_loc"}


def _compile_level(fields: Sequence[tuple], env: dict[str, Any]) -> str | None:
    name = f"_level{next(_names)}"
    lines = [f"def {name}(data, pos):", "    out = {}"]
    run: list[tuple[str, str]] = []

    def flush() -> None:
        if not run:
            return
        codec = f"_s{next(_names)}"
        env[codec] = struct.Struct(">" + "".join(_FIXED[t] for _, t in run))
        targets = "".join(f"v{i}, " for i in range(len(run)))
        lines.append(f"    {targets}= {codec}.unpack_from(data, pos)")
        lines.append(f"    pos += {env[codec].size}")
        for i, (field, t) in enumerate(run):
            lines.append(f"    out[{field!r}] = v{i}{' != 0' if t == 'bool' else ''}")
        run.clear()

    for field, ftype in fields:
        if isinstance(ftype, tuple):
            if ftype[0] != "list":
                return None  # variants stay with the generic decoder
            flush()
            item = _compile_level(ftype[1], env)
            if item is None:
                return None
            lines += ["    (n,) = _U32.unpack_from(data, pos)", "    pos += 4",
                      "    if n > len(data) - pos:", "        raise _Malformed",
                      "    items = []", "    for _ in range(n):",
                      f"        one, pos = {item}(data, pos)", "        items.append(one)",
                      f"    out[{field!r}] = items"]
        elif ftype in _FIXED:
            run.append((field, ftype))
        elif ftype in _CALLS:
            flush()
            lines.append(f"    out[{field!r}], pos = {_CALLS[ftype]}(data, pos)")
        else:
            return None
    flush()
    lines.append("    return out, pos")
    exec(compile("\n".join(lines), "<link decoder>", "exec"), env)  # noqa: S102 - our own schema, not input
    return name


def compile_decoder(fields: Sequence[tuple], types: tuple) -> Callable[[bytes], dict[str, Any]] | None:
    """A function body -> fields for this layout, or None if the layout needs the generic decoder.
    ``types``: protocol.link's LINK_TYPES (object tags and the value classes), handed in so that
    this module needs nothing of the one that uses it."""
    env = _helpers(types)
    top = _compile_level(fields, env)
    if top is None:
        return None
    level = env[top]

    def decode(data: bytes) -> dict[str, Any]:
        out, pos = level(data, 0)
        if pos != len(data):
            raise _Malformed
        return out

    return decode
