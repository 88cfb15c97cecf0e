"""ArrayReference command set (13): bounds are checked by the façade, with the reference agent's rules."""

from __future__ import annotations

from typing import Any

from jdwpd.daemon.commands.value_encodings import decode_array_values

SET_NAME = "ArrayReference"


async def length(ctx: Any, cmd: Any) -> Any:
    return {"array_length": await ctx.vm.array_length(cmd.array_object)}


async def get_values(ctx: Any, cmd: Any) -> Any:
    return {"values": await ctx.vm.get_array_values(cmd.array_object, cmd.first_index, cmd.length)}


async def set_values(ctx: Any, cmd: Any) -> Any:
    await ctx.vm.set_array_values(cmd.array_object, cmd.first_index, cmd.values.count,
                                  lambda tag: decode_array_values(cmd.values, tag))
    return {}


HANDLERS = {"Length": length, "GetValues": get_values, "SetValues": set_values}
