"""InterfaceType command set (5): static methods of interfaces (JDWP 1.8)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context
from jdwpd.daemon.commands.value_encodings import invoke_arguments
from protocol.link import InvokeKind

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import InterfaceType

SET_NAME = "InterfaceType"


async def invoke_method(ctx: Context, cmd: InterfaceType.InvokeMethod.Command) -> Any:
    value, exception = await ctx.vm.invoke(ctx.session, InvokeKind.STATIC, clazz=cmd.clazz, thread=cmd.thread,
                                           method_id=cmd.method_id, args=invoke_arguments(cmd.arguments),
                                           options=cmd.options)
    return {"return_value": value, "exception": exception}


HANDLERS = {"InvokeMethod": invoke_method}
