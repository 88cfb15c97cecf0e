"""ArrayReference command set (13): bounds are checked here, with the reference agent's rules."""

from __future__ import annotations

from typing import Any

from jdwpd.commands._values import check_kind, decode_array_values, instance_of, object_kinds, request, to_jdwp, to_link
from jdwpd.errors import JdwpError
from jdwpd.model.classes import signature_tag
from protocol.constants import OBJECT_TAGS, ErrorCode
from protocol.link import ObjectKind
from protocol.wire import ArrayRegion

SET_NAME = "ArrayReference"


async def _component_signature(ctx: Any, array: int) -> str:
    _, ref, _ = await object_kinds(ctx.vm).get(array)
    return (await ctx.vm.classes.signature(ref)).signature[1:]


async def _array(ctx: Any, array: int) -> tuple[int, int]:
    """(length, component tag) of an array object; INVALID_ARRAY for other objects."""
    _, ref, _ = await check_kind(ctx.vm, array, ObjectKind.ARRAY, ErrorCode.INVALID_ARRAY)
    sig = (await ctx.vm.classes.signature(ref)).signature
    length = (await request(ctx.vm.link, "ARRAY_LENGTH", array=array))["length"]
    return length, signature_tag(sig[1:])


def _check_range(first: int, length: int, array_length: int) -> None:
    # The reference checks the index before the length, and an index equal to the array's
    # length is invalid even for an empty region.
    if first < 0 or first > array_length - 1:
        raise JdwpError(ErrorCode.INVALID_INDEX, f"index {first} for length {array_length}")
    if length < 0 or first + length > array_length:
        raise JdwpError(ErrorCode.INVALID_LENGTH, f"{length} elements from {first} of {array_length}")


async def length(ctx: Any, cmd: Any) -> Any:
    n, _ = await _array(ctx, cmd.array_object)
    return {"array_length": n}


async def get_values(ctx: Any, cmd: Any) -> Any:
    n, tag = await _array(ctx, cmd.array_object)
    count = n - cmd.first_index if cmd.length == -1 else cmd.length
    _check_range(cmd.first_index, count, n)
    if count == 0:
        return {"values": ArrayRegion(tag, ())}
    r = await request(ctx.vm.link, "ARRAY_GET", array=cmd.array_object, first=cmd.first_index, length=count)
    values = [v["value"] for v in r["values"]]
    if tag in OBJECT_TAGS:
        return {"values": ArrayRegion(tag, tuple(to_jdwp(v) for v in values))}
    return {"values": ArrayRegion(tag, tuple(v.value for v in values))}


async def set_values(ctx: Any, cmd: Any) -> Any:
    n, tag = await _array(ctx, cmd.array_object)
    _check_range(cmd.first_index, cmd.values.count, n)
    values = decode_array_values(cmd.values, tag)
    if tag in OBJECT_TAGS:
        # JNI's ArrayStoreException would leave the array half written; the reference answers
        # TYPE_MISMATCH for it.  Checked before any element is stored.
        component = await _component_signature(ctx, cmd.array_object)
        for v in values:
            if not await instance_of(ctx.vm, v.value, component):
                raise JdwpError(ErrorCode.TYPE_MISMATCH, f"element is not a {component}")
    if values:
        await request(ctx.vm.link, "ARRAY_SET", array=cmd.array_object, first=cmd.first_index,
                      values=[{"value": to_link(v)} for v in values])
    return {}


HANDLERS = {"Length": length, "GetValues": get_values, "SetValues": set_values}
