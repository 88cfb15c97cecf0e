"""ClassType command set (3): superclass, static field writes, static invoke, NewInstance."""

from __future__ import annotations

from typing import Any

from jdwpd.commands._values import FieldValueReader, cached, check_type, instance_of, invoke, request, to_link
from jdwpd.errors import JdwpError
from protocol.constants import OBJECT_TAGS, ErrorCode, TypeTag
from protocol.link import InvokeKind

SET_NAME = "ClassType"


async def _class(ctx: Any, ref: int) -> None:
    # The reference reads a class reference without checking it is a class (not an interface).
    await check_type(ctx.vm.classes, ref)


async def superclass(ctx: Any, cmd: Any) -> Any:
    await _class(ctx, cmd.clazz)
    return {"superclass": await cached(ctx.vm.classes.superclass(cmd.clazz))}


async def set_values(ctx: Any, cmd: Any) -> Any:
    """Static field writes, in order.

    The reference stops silently at the first field it cannot resolve and still answers
    success; so do we (its answer is what debuggers are built against).
    """
    classes = ctx.vm.classes
    await _class(ctx, cmd.clazz)
    reader = FieldValueReader(cmd.values)
    writes = []
    for _ in range(reader.count):
        field_id = reader.field_id()
        try:
            f = await cached(classes.find_field(cmd.clazz, field_id))
        except JdwpError as e:
            if e.code == ErrorCode.INVALID_FIELDID:
                break
            raise
        if not f.is_static:
            break
        value = reader.value(f.tag)
        # JNI stores any object into any reference field; the heap would then lie.
        if f.tag in OBJECT_TAGS and not await instance_of(ctx.vm, value.value, f.signature):
            raise JdwpError(ErrorCode.TYPE_MISMATCH, f"value is not a {f.signature}")
        writes.append({"field": field_id, "value": to_link(value)})
    if writes:
        await request(ctx.vm.link, "CLASS_SET_STATICS", ref=cmd.clazz, values=writes)
    return {}


async def invoke_method(ctx: Any, cmd: Any) -> Any:
    value, exception = await invoke(ctx, InvokeKind.STATIC, clazz=cmd.clazz, thread=cmd.thread,
                                    method_id=cmd.method_id, args=cmd.arguments, options=cmd.options)
    return {"return_value": value, "exception": exception}


async def new_instance(ctx: Any, cmd: Any) -> Any:
    if await check_type(ctx.vm.classes, cmd.clazz) != TypeTag.CLASS:
        raise JdwpError(ErrorCode.INVALID_CLASS, "NewInstance needs a class")
    obj, exception = await invoke(ctx, InvokeKind.NEW_INSTANCE, clazz=cmd.clazz, thread=cmd.thread,
                                  method_id=cmd.method_id, args=cmd.arguments, options=cmd.options)
    return {"new_object": obj, "exception": exception}


HANDLERS = {
    "Superclass": superclass,
    "SetValues": set_values,
    "InvokeMethod": invoke_method,
    "NewInstance": new_instance,
}
