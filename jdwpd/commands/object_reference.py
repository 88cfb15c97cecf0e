"""ObjectReference command set (9)."""

from __future__ import annotations

from typing import Any

from jdwpd.commands._values import (
    FieldValueReader,
    cached,
    instance_kind,
    instance_of,
    invoke,
    object_kinds,
    request,
    tagged_list,
    to_jdwp,
    to_link,
)
from jdwpd.errors import AgentError, JdwpError
from jdwpd.model.classes import ClassCache, FieldInfo
from protocol.constants import OBJECT_TAGS, ErrorCode
from protocol.link import LinkStatus

SET_NAME = "ObjectReference"


async def reference_type(ctx: Any, cmd: Any) -> Any:
    _, ref, ref_kind = await object_kinds(ctx.vm).get(cmd.object, fresh=True)
    return {"ref_type_tag": ref_kind, "type_id": ref}


async def _instance_field(classes: ClassCache, obj_class: int, field_id: int) -> FieldInfo:
    """The field, looked up in the object's class and its supertypes (INVALID_FIELDID otherwise).

    The reference hands whatever field id it gets to JNI; a field of another class would read
    or write memory that is not the field's.  JDI never sends one, so this lookup only ever
    turns a would-be crash into INVALID_FIELDID.
    """
    return await cached(classes.find_field(obj_class, field_id))


async def get_values(ctx: Any, cmd: Any) -> Any:
    classes: ClassCache = ctx.vm.classes
    _, obj_class, _ = await object_kinds(ctx.vm).get(cmd.object)
    wanted = []
    for item in cmd.fields:
        f = await _instance_field(classes, obj_class, item.field_id)
        wanted.append((f, {"field": f.field_id, "tag": f.tag}))
    if not wanted:
        return {"values": []}
    # The spec allows static fields through an object (JDI sends them through the type; the
    # reference's VM dies on them).  The agent reads each kind with its own JNI family: split,
    # then merge in the asked order.
    instance_values = []
    instance_fields = [w for f, w in wanted if not f.is_static]
    if instance_fields:
        r = await request(ctx.vm.link, "OBJECT_GET_FIELDS", object=cmd.object, fields=instance_fields)
        instance_values = [v["value"] for v in r["values"]]
    static_values: dict[int, list] = {}
    for f, w in wanted:
        if f.is_static:
            static_values.setdefault(f.declaring, []).append(w)
    static_results: dict[int, Any] = {}
    for declaring, ws in static_values.items():
        r = await request(ctx.vm.link, "CLASS_GET_STATICS", ref=declaring, fields=ws)
        for w, v in zip(ws, r["values"], strict=True):
            static_results[w["field"]] = v["value"]
    out = []
    it = iter(instance_values)
    for f, _w in wanted:
        out.append(to_jdwp(static_results[f.field_id] if f.is_static else next(it)))
    return {"values": out}


async def set_values(ctx: Any, cmd: Any) -> Any:
    classes: ClassCache = ctx.vm.classes
    _, obj_class, _ = await object_kinds(ctx.vm).get(cmd.object)
    reader = FieldValueReader(cmd.values)
    writes = []
    for _ in range(reader.count):
        f = await _instance_field(classes, obj_class, reader.field_id())
        value = reader.value(f.tag)
        # JNI stores any object into any reference field; the heap would then lie.
        if f.tag in OBJECT_TAGS and not await instance_of(ctx.vm, value.value, f.signature):
            raise JdwpError(ErrorCode.TYPE_MISMATCH, f"value is not a {f.signature}")
        writes.append((f, value))
    instance_writes = [{"field": f.field_id, "value": to_link(v)} for f, v in writes if not f.is_static]
    if instance_writes:
        await request(ctx.vm.link, "OBJECT_SET_FIELDS", object=cmd.object, values=instance_writes)
    for f, v in writes:
        if f.is_static:
            await request(ctx.vm.link, "CLASS_SET_STATICS", ref=f.declaring,
                          values=[{"field": f.field_id, "value": to_link(v)}])
    return {}


async def monitor_info(ctx: Any, cmd: Any) -> Any:
    await object_kinds(ctx.vm).get(cmd.object)
    r = await request(ctx.vm.link, "OBJECT_MONITOR_INFO", object=cmd.object)
    return {"owner": r["owner"], "entry_count": r["entry_count"], "waiters": [w["thread"] for w in r["waiters"]]}


async def invoke_method(ctx: Any, cmd: Any) -> Any:
    await object_kinds(ctx.vm).get(cmd.object)
    value, exception = await invoke(ctx, instance_kind(cmd.options), clazz=cmd.clazz, thread=cmd.thread,
                                    method_id=cmd.method_id, args=cmd.arguments, options=cmd.options,
                                    instance=cmd.object)
    return {"return_value": value, "exception": exception}


def _objects(ctx: Any) -> Any:
    return getattr(ctx.vm, "objects", None)


async def disable_collection(ctx: Any, cmd: Any) -> Any:
    if cmd.object == 0:
        raise JdwpError(ErrorCode.INVALID_OBJECT, "null object")
    await request(ctx.vm.link, "OBJECT_PIN", object=cmd.object)
    refs = _objects(ctx)
    if refs is not None:
        refs.pinned(ctx.session, cmd.object)  # so that the pin goes when this debugger does
    return {}


async def enable_collection(ctx: Any, cmd: Any) -> Any:
    refs = _objects(ctx)
    # Only a pin this debugger made is undone: another debugger's DisableCollection stands.
    if refs is None or refs.unpinned(ctx.session, cmd.object):
        await request(ctx.vm.link, "OBJECT_UNPIN", object=cmd.object)
    return {}


async def is_collected(ctx: Any, cmd: Any) -> Any:
    if cmd.object == 0:
        raise JdwpError(ErrorCode.INVALID_OBJECT, "null object")
    try:
        r = await ctx.vm.link.request("OBJECT_IS_COLLECTED", object=cmd.object)
    except AgentError as e:
        # The reference answers true, not an error, for an id it does not know (any more).
        if e.status in (LinkStatus.INVALID_ID, LinkStatus.COLLECTED):
            return {"is_collected": True}
        raise
    return {"is_collected": r["collected"]}


async def referring_objects(ctx: Any, cmd: Any) -> Any:
    await object_kinds(ctx.vm).get(cmd.object)
    if cmd.max_referrers < 0:
        raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, "maxReferrers < 0")
    r = await request(ctx.vm.link, "OBJECT_REFERRERS", object=cmd.object, max=cmd.max_referrers)
    return tagged_list(r["referrers"], "object", ctx.vm.id_sizes)


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
