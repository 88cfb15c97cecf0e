"""ClassObjectReference command set (17)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import ClassObjectReference

SET_NAME = "ClassObjectReference"


async def reflected_type(ctx: Context, cmd: ClassObjectReference.ReflectedType.Command) -> Any:
    # A class object's id is its reference type's id: validate and bounce it back.
    kind = await ctx.vm.check_type(cmd.class_object)
    return {"ref_type_tag": kind, "type_id": cmd.class_object}


HANDLERS = {"ReflectedType": reflected_type}
