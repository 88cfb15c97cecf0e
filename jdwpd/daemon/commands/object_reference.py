"""ObjectReference command set (9)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context
from jdwpd.daemon.commands.value_encodings import FieldValueReader, instance_kind, invoke_arguments, tagged_list

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import ObjectReference

SET_NAME = "ObjectReference"


async def reference_type(ctx: Context, cmd: ObjectReference.ReferenceType.Command) -> Any:
    _, ref, ref_kind = await ctx.vm.object_kind(cmd.object, fresh=True)
    return {"ref_type_tag": ref_kind, "type_id": ref}


async def get_values(ctx: Context, cmd: ObjectReference.GetValues.Command) -> Any:
    return {"values": await ctx.vm.get_object_fields(cmd.object, [item.field_id for item in cmd.fields])}


async def set_values(ctx: Context, cmd: ObjectReference.SetValues.Command) -> Any:
    await ctx.vm.set_object_fields(cmd.object, FieldValueReader(cmd.values))
    return {}


async def monitor_info(ctx: Context, cmd: ObjectReference.MonitorInfo.Command) -> Any:
    owner, entry_count, waiters = await ctx.vm.monitor_info(cmd.object)
    return {"owner": owner, "entry_count": entry_count, "waiters": waiters}


async def invoke_method(ctx: Context, cmd: ObjectReference.InvokeMethod.Command) -> Any:
    await ctx.vm.object_kind(cmd.object)
    value, exception = await ctx.vm.invoke(ctx.session, instance_kind(cmd.options), clazz=cmd.clazz,
                                           thread=cmd.thread, method_id=cmd.method_id,
                                           args=invoke_arguments(cmd.arguments), options=cmd.options,
                                           instance=cmd.object)
    return {"return_value": value, "exception": exception}


async def disable_collection(ctx: Context, cmd: ObjectReference.DisableCollection.Command) -> Any:
    await ctx.vm.pin(ctx.session, cmd.object)
    return {}


async def enable_collection(ctx: Context, cmd: ObjectReference.EnableCollection.Command) -> Any:
    await ctx.vm.unpin(ctx.session, cmd.object)
    return {}


async def is_collected(ctx: Context, cmd: ObjectReference.IsCollected.Command) -> Any:
    return {"is_collected": await ctx.vm.is_collected(cmd.object)}


async def referring_objects(ctx: Context, cmd: ObjectReference.ReferringObjects.Command) -> Any:
    return tagged_list(await ctx.vm.referrers(cmd.object, cmd.max_referrers), "object", ctx.vm.id_sizes)


HANDLERS = {
    "ReferenceType": reference_type,
    "GetValues": get_values,
    "SetValues": set_values,
    "MonitorInfo": monitor_info,
    "InvokeMethod": invoke_method,
    "DisableCollection": disable_collection,
    "EnableCollection": enable_collection,
    "IsCollected": is_collected,
    "ReferringObjects": referring_objects,
}
