"""ArrayReference command set (13): bounds are checked by the façade, with the reference agent's rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context
from jdwpd.daemon.commands.value_encodings import decode_array_values

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import ArrayReference

SET_NAME = "ArrayReference"


async def length(ctx: Context, cmd: ArrayReference.Length.Command) -> Any:
    return {"array_length": await ctx.vm.array_length(cmd.array_object)}


async def get_values(ctx: Context, cmd: ArrayReference.GetValues.Command) -> Any:
    return {"values": await ctx.vm.get_array_values(cmd.array_object, cmd.first_index, cmd.length)}


async def set_values(ctx: Context, cmd: ArrayReference.SetValues.Command) -> Any:
    await ctx.vm.set_array_values(cmd.array_object, cmd.first_index, cmd.values.count,
                                  lambda tag: decode_array_values(cmd.values, tag))
    return {}


HANDLERS = {"Length": length, "GetValues": get_values, "SetValues": set_values}
