"""VirtualMachine command set (1).

The reference answers VM_DEAD for most of these after VM death, quietly ignores
a few (DisposeObjects, RedefineClasses, SetDefaultStratum, Exit) and answers the
rest (IDSizes, Dispose, ClassPaths, Hold/ReleaseEvents) regardless; each handler
follows its own rule, so the dispatcher lets this set through when the VM is dead.
"""

from __future__ import annotations

from typing import Any

from jdwpd.commands._values import debugger_resumed, object_kinds, request
from jdwpd.errors import AgentError, JdwpError
from protocol.constants import ErrorCode
from protocol.wire import encode_mutf8

SET_NAME = "VirtualMachine"
_DESCRIPTION_NAME = "Java Debug Wire Protocol (Reference Implementation)"
# Classes ClassesBySignature reports: prepared ones, arrays, primitives (JVMTI class status bits).
_PREPARED, _ARRAY, _PRIMITIVE = 0x2, 0x10, 0x20


def _alive(ctx: Any) -> None:
    if ctx.vm.dead:
        raise JdwpError(ErrorCode.VM_DEAD)


async def version(ctx: Any, cmd: Any) -> Any:
    _alive(ctx)
    props = ctx.vm.properties
    vm_version = props.get("java.version") or "<unknown>"
    vm_name = props.get("java.vm.name") or "<unknown>"
    vm_info = props.get("java.vm.info") or "<unknown>"
    major, minor = ctx.vm.jvmti_version()
    description = (f"{_DESCRIPTION_NAME} version {major}.{minor}\n"
                   f"JVM Debug Interface version {major}.{minor}\n"
                   f"JVM version {vm_version} ({vm_name}, {vm_info})")
    return {"description": description, "jdwp_major": major, "jdwp_minor": minor,
            "vm_version": vm_version, "vm_name": vm_name}


async def _loaded_classes(ctx: Any) -> list:
    """ALL_CLASSES with the raw JVMTI status, which decides what each command lists."""
    r = await request(ctx.vm.link, "ALL_CLASSES")
    classes = r["classes"]
    learn = getattr(ctx.vm.classes, "learn", None)
    if learn is not None:
        for c in classes:
            learn(c["ref"], c["ref_kind"], c["signature"], c["generic"])
    return classes


def _jdwp_status(status: int) -> int:
    return status & 0xF


async def classes_by_signature(ctx: Any, cmd: Any) -> Any:
    _alive(ctx)
    wanted = _PREPARED | _ARRAY | _PRIMITIVE
    r = await request(ctx.vm.link, "CLASSES_BY_SIGNATURE", signature=cmd.signature)
    learn = getattr(ctx.vm.classes, "learn", None)
    if learn is not None:
        for c in r["classes"]:
            learn(c["ref"], c["ref_kind"], cmd.signature)
    matches = [c for c in r["classes"] if c["status"] & wanted]
    return {"classes": [{"ref_type_tag": c["ref_kind"], "type_id": c["ref"], "status": _jdwp_status(c["status"])}
                        for c in matches]}


async def _all_classes(ctx: Any, generic: bool) -> Any:
    _alive(ctx)
    wanted = _PREPARED | _ARRAY
    out = []
    for c in await _loaded_classes(ctx):
        if not c["status"] & wanted:
            continue
        item = {"ref_type_tag": c["ref_kind"], "type_id": c["ref"], "signature": c["signature"],
                "status": _jdwp_status(c["status"])}
        if generic:
            item["generic_signature"] = c["generic"]
        out.append(item)
    return {"classes": out}


async def all_classes(ctx: Any, cmd: Any) -> Any:
    return await _all_classes(ctx, False)


async def all_classes_with_generic(ctx: Any, cmd: Any) -> Any:
    return await _all_classes(ctx, True)


async def all_threads(ctx: Any, cmd: Any) -> Any:
    _alive(ctx)
    r = await request(ctx.vm.link, "ALL_THREADS")
    return {"threads": [t["thread"] for t in r["threads"]]}


async def top_level_thread_groups(ctx: Any, cmd: Any) -> Any:
    _alive(ctx)
    r = await request(ctx.vm.link, "TOP_THREAD_GROUPS")
    return {"groups": [g["group"] for g in r["groups"]]}


async def dispose(ctx: Any, cmd: Any) -> Any:
    ctx.session.close_after_reply(ctx.packet_id)
    return None


async def id_sizes(ctx: Any, cmd: Any) -> Any:
    s = ctx.vm.id_sizes
    return {"field_idsize": s.field_id, "method_idsize": s.method_id, "object_idsize": s.object_id,
            "reference_type_idsize": s.reference_type_id, "frame_idsize": s.frame_id}


async def suspend(ctx: Any, cmd: Any) -> Any:
    _alive(ctx)
    await ctx.vm.suspend_all(ctx.session)


async def resume(ctx: Any, cmd: Any) -> Any:
    _alive(ctx)
    try:
        await ctx.vm.resume_all(ctx.session)
    finally:
        debugger_resumed(ctx)


async def exit_vm(ctx: Any, cmd: Any) -> Any:
    if ctx.vm.dead:
        return None
    code = cmd.exit_code

    async def do_exit() -> None:
        # The reference closes its transport and exits without VMDeath: the debugger that asked
        # for the exit is owed none (the link's end would otherwise send it the automatic one).
        ctx.session.saw_vm_death = True
        try:
            await ctx.vm.link.request("EXIT", code=code)
        except Exception:  # the VM is going away: whatever the link says now does not matter
            pass

    ctx.session.after_reply(ctx.packet_id, do_exit)
    return None


async def create_string(ctx: Any, cmd: Any) -> Any:
    _alive(ctx)
    # JNI's NewStringUTF takes modified UTF-8, as the reference converts to before calling it.
    r = await request(ctx.vm.link, "CREATE_STRING", utf=encode_mutf8(cmd.utf))
    return {"string_object": r["string"]}


async def capabilities(ctx: Any, cmd: Any) -> Any:
    _alive(ctx)
    caps = ctx.vm.capabilities
    names = ("can_watch_field_modification", "can_watch_field_access", "can_get_bytecodes",
             "can_get_synthetic_attribute", "can_get_owned_monitor_info", "can_get_current_contended_monitor",
             "can_get_monitor_info")
    return {n: caps[n] for n in names}


async def capabilities_new(ctx: Any, cmd: Any) -> Any:
    _alive(ctx)
    return ctx.vm.capabilities


async def class_paths(ctx: Any, cmd: Any) -> Any:
    props = ctx.vm.properties
    separator = props.get("path.separator") or ";"
    class_path = props.get("java.class.path", "")
    # The reference splits on the separator's first character and always reports one path at least.
    return {"base_dir": props.get("user.dir", ""), "classpaths": class_path.split(separator[0]),
            "bootclasspaths": []}


async def dispose_objects(ctx: Any, cmd: Any) -> Any:
    """An id disposed as many times as it was sent to this debugger, and held by no other, is
    forgotten: INVALID_OBJECT afterwards, and the object gets a new id if it is sent again (as in
    the reference).  The agent keeps the ids of threads, thread groups, classes, class loaders and
    modules, which the daemon keys its thread and class models by (agent/objects.c)."""
    if ctx.vm.dead:
        return None
    released = [r.object for r in cmd.requests if ctx.vm.objects.disposed(ctx.session, r.object, r.ref_cnt)]
    if released:
        ctx.vm.objects.released(released)
        kinds = object_kinds(ctx.vm)
        for oid in released:
            kinds.forget(oid)
        for thread in ctx.vm.threads.known():
            ctx.vm.locals_ahead.forget(thread)  # values read ahead may name a released id
        try:
            await ctx.vm.link.request("RELEASE_IDS", ids=[{"id": i} for i in released])
        except AgentError:
            pass  # the reference never reports a failure here
    return None


async def hold_events(ctx: Any, cmd: Any) -> Any:
    ctx.session.hold_events()


async def release_events(ctx: Any, cmd: Any) -> Any:
    ctx.session.release_events()


async def redefine_classes(ctx: Any, cmd: Any) -> Any:
    if ctx.vm.dead or not cmd.classes:
        return None
    for c in cmd.classes:  # in the reference's reading order: the class, then its bytes
        await _check_class(ctx, c.ref_type)
        if len(c.classfile) == 0:
            raise JdwpError(ErrorCode.INVALID_CLASS_FORMAT, "empty class file")
    await request(ctx.vm.link, "REDEFINE_CLASSES",
                  classes=[{"ref": c.ref_type, "bytes": bytes(c.classfile)} for c in cmd.classes])
    redefined = getattr(ctx.vm.classes, "redefined", None)
    if redefined is not None:
        redefined([c.ref_type for c in cmd.classes])


async def _check_class(ctx: Any, ref: int) -> None:
    """INVALID_OBJECT for an unknown id, INVALID_CLASS for an object that is no class."""
    from jdwpd.commands._values import check_type

    await check_type(ctx.vm.classes, ref)


async def set_default_stratum(ctx: Any, cmd: Any) -> Any:
    if ctx.vm.dead:
        return None
    ctx.vm.default_stratum = cmd.stratum_id or None
    # The agent's line steps follow it: a class with a SMAP is stepped by its default stratum's lines.
    # Sent before the reply, so a step requested after it sees it.  A VM dying meanwhile is ignored quietly,
    # as above.
    try:
        await ctx.vm.link.request("SET_DEFAULT_STRATUM", stratum=cmd.stratum_id or "")
    except Exception:
        if not ctx.vm.dead:
            raise


async def instance_counts(ctx: Any, cmd: Any) -> Any:
    _alive(ctx)
    refs = [r.ref_type if hasattr(r, "ref_type") else r for r in cmd.ref_types_count]
    if not refs:
        return {"counts": []}
    valid = []
    for ref in refs:
        # An unloaded or bogus class counts 0 instances (the reference skips it).
        try:
            await _check_class(ctx, ref)
            valid.append(ref)
        except JdwpError as e:
            if e.code not in (ErrorCode.INVALID_OBJECT, ErrorCode.INVALID_CLASS):
                raise
            valid.append(0)
    asked = [r for r in valid if r]
    counts: dict[int, int] = {}
    if asked:
        r = await request(ctx.vm.link, "INSTANCE_COUNTS", refs=[{"ref": x} for x in asked])
        counts = {ref: c["count"] for ref, c in zip(asked, r["counts"], strict=True)}
    return {"counts": [counts.get(r, 0) if r else 0 for r in valid]}


async def all_modules(ctx: Any, cmd: Any) -> Any:
    _alive(ctx)
    r = await request(ctx.vm.link, "ALL_MODULES")
    return {"modules": [m["module"] for m in r["modules"]]}


HANDLERS = {
    "Version": version,
    "ClassesBySignature": classes_by_signature,
    "AllClasses": all_classes,
    "AllThreads": all_threads,
    "TopLevelThreadGroups": top_level_thread_groups,
    "Dispose": dispose,
    "IDSizes": id_sizes,
    "Suspend": suspend,
    "Resume": resume,
    "Exit": exit_vm,
    "CreateString": create_string,
    "Capabilities": capabilities,
    "ClassPaths": class_paths,
    "DisposeObjects": dispose_objects,
    "HoldEvents": hold_events,
    "ReleaseEvents": release_events,
    "CapabilitiesNew": capabilities_new,
    "RedefineClasses": redefine_classes,
    "SetDefaultStratum": set_default_stratum,
    "AllClassesWithGeneric": all_classes_with_generic,
    "InstanceCounts": instance_counts,
    "AllModules": all_modules,
}
