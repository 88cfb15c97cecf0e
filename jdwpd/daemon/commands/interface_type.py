"""InterfaceType command set (5): static methods of interfaces (JDWP 1.8)."""

from __future__ import annotations

from typing import Any

from jdwpd.daemon.commands.value_encodings import invoke_arguments
from protocol.link import InvokeKind

SET_NAME = "InterfaceType"


async def invoke_method(ctx: Any, cmd: Any) -> Any:
    value, exception = await ctx.vm.invoke(ctx.session, InvokeKind.STATIC, clazz=cmd.clazz, thread=cmd.thread,
                                           method_id=cmd.method_id, args=invoke_arguments(cmd.arguments),
                                           options=cmd.options)
    return {"return_value": value, "exception": exception}


HANDLERS = {"InvokeMethod": invoke_method}
