"""ClassType command set (3): superclass, static field writes, static invoke, NewInstance."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context
from jdwpd.daemon.commands.value_encodings import FieldValueReader, invoke_arguments
from jdwpd.daemon.facade.agent import cached
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode, TypeTag
from protocol.link import InvokeKind

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import ClassType

SET_NAME = "ClassType"


async def superclass(ctx: Context, cmd: ClassType.Superclass.Command) -> Any:
    # The reference reads a class reference without checking it is a class (not an interface).
    await ctx.vm.check_type(cmd.clazz)
    return {"superclass": await cached(ctx.vm.classes.superclass(cmd.clazz))}


async def set_values(ctx: Context, cmd: ClassType.SetValues.Command) -> Any:
    await ctx.vm.set_static_values(cmd.clazz, FieldValueReader(cmd.values))
    return {}


async def invoke_method(ctx: Context, cmd: ClassType.InvokeMethod.Command) -> Any:
    value, exception = await ctx.vm.invoke(ctx.session, InvokeKind.STATIC, clazz=cmd.clazz, thread=cmd.thread,
                                           method_id=cmd.method_id, args=invoke_arguments(cmd.arguments),
                                           options=cmd.options)
    return {"return_value": value, "exception": exception}


async def new_instance(ctx: Context, cmd: ClassType.NewInstance.Command) -> Any:
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
