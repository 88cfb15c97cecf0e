"""StackFrame command set (16): frame ids, their checks and the stop's locals are the façade's
(jdwpd/daemon/facade/frames.py)."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context, Encoded
from protocol.constants import OBJECT_TAGS, Tag
from protocol.link import LinkValue
from protocol.wire import IDSizes, value_codec

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import StackFrame

SET_NAME = "StackFrame"
_COUNT = struct.Struct(">i")
_NULL_TAG = int(Tag.OBJECT)
_VOID = int(Tag.VOID)


async def get_values(ctx: Context, cmd: StackFrame.GetValues.Command) -> Any:
    values = await ctx.vm.get_locals(cmd.thread, cmd.frame, [(s.slot, s.sigbyte) for s in cmd.slots])
    return encoded_values(values, ctx.vm.id_sizes)


def encoded_values(values: list[LinkValue], sizes: IDSizes) -> Encoded:
    """GetValues' reply straight from the link's values, in one pass: what to_jdwp then encode_reply
    and reply_ids would make of them (a debugger reads every local of a stop: this is its hot path)."""
    packers = value_codec(sizes).tagged
    parts = [_COUNT.pack(len(values))]
    ids = []
    for v in values:
        tag, value = v.tag, v.value
        if tag in OBJECT_TAGS:
            if value:
                ids.append(value)
            else:
                tag = _NULL_TAG  # a null is tagged OBJECT, whatever the slot's type
            parts.append(packers[tag].pack(tag, value))
        elif tag == _VOID:
            parts.append(packers[tag].pack(tag))
        else:
            parts.append(packers[tag].pack(tag, value))
    return Encoded(b"".join(parts), ids)


async def set_values(ctx: Context, cmd: StackFrame.SetValues.Command) -> Any:
    await ctx.vm.set_locals(cmd.thread, cmd.frame, [(s.slot, s.slot_value) for s in cmd.slot_values])


async def this_object(ctx: Context, cmd: StackFrame.ThisObject.Command) -> Any:
    return {"object_this": await ctx.vm.frame_this(cmd.thread, cmd.frame)}


async def pop_frames(ctx: Context, cmd: StackFrame.PopFrames.Command) -> Any:
    await ctx.vm.pop_frames(cmd.thread, cmd.frame)


HANDLERS = {"GetValues": get_values, "SetValues": set_values, "ThisObject": this_object, "PopFrames": pop_frames}
