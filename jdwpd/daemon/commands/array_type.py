"""ArrayType command set (4): NewInstance."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import ArrayType

SET_NAME = "ArrayType"


async def new_instance(ctx: Context, cmd: ArrayType.NewInstance.Command) -> Any:
    return {"new_array": await ctx.vm.new_array(cmd.arr_type, cmd.length)}


HANDLERS = {"NewInstance": new_instance}
