"""ClassType command set (3): superclass, static field writes, static invoke, NewInstance."""

from __future__ import annotations

from typing import Any

from jdwpd.daemon.commands.value_encodings import FieldValueReader, invoke_arguments
from jdwpd.daemon.facade.agent import cached
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode, TypeTag
from protocol.link import InvokeKind

SET_NAME = "ClassType"


async def superclass(ctx: Any, cmd: Any) -> Any:
    # The reference reads a class reference without checking it is a class (not an interface).
    await ctx.vm.check_type(cmd.clazz)
    return {"superclass": await cached(ctx.vm.classes.superclass(cmd.clazz))}


async def set_values(ctx: Any, cmd: Any) -> Any:
    await ctx.vm.set_static_values(cmd.clazz, FieldValueReader(cmd.values))
    return {}


async def invoke_method(ctx: Any, cmd: Any) -> Any:
    value, exception = await ctx.vm.invoke(ctx.session, InvokeKind.STATIC, clazz=cmd.clazz, thread=cmd.thread,
                                           method_id=cmd.method_id, args=invoke_arguments(cmd.arguments),
                                           options=cmd.options)
    return {"return_value": value, "exception": exception}


async def new_instance(ctx: Any, cmd: Any) -> Any:
    if await ctx.vm.check_type(cmd.clazz) != TypeTag.CLASS:
        raise JdwpError(ErrorCode.INVALID_CLASS, "NewInstance needs a class")
    obj, exception = await ctx.vm.invoke(ctx.session, InvokeKind.NEW_INSTANCE, clazz=cmd.clazz, thread=cmd.thread,
                                         method_id=cmd.method_id, args=invoke_arguments(cmd.arguments),
                                         options=cmd.options)
    return {"new_object": obj, "exception": exception}


HANDLERS = {
    "Superclass": superclass,
    "SetValues": set_values,
    "InvokeMethod": invoke_method,
    "NewInstance": new_instance,
}
