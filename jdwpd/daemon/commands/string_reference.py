"""StringReference command set (10)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import StringReference

SET_NAME = "StringReference"


async def value(ctx: Context, cmd: StringReference.Value.Command) -> Any:
    return {"string_value": await ctx.vm.string_value(cmd.string_object)}


HANDLERS = {"Value": value}
