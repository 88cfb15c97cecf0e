"""VirtualMachine command set (1).

The reference answers VM_DEAD for most of these after VM death, quietly ignores
a few (DisposeObjects, RedefineClasses, SetDefaultStratum, Exit) and answers the
rest (IDSizes, Dispose, ClassPaths, Hold/ReleaseEvents) regardless; each handler
follows its own rule, so the dispatcher lets this set through when the VM is dead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context
from jdwpd.daemon.facade.threads import debugger_resumed
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import VirtualMachine

SET_NAME = "VirtualMachine"
_DESCRIPTION_NAME = "Java Debug Wire Protocol (Reference Implementation)"
# Classes ClassesBySignature reports: prepared ones, arrays, primitives (JVMTI class status bits).
_PREPARED, _ARRAY, _PRIMITIVE = 0x2, 0x10, 0x20


def _alive(ctx: Context) -> None:
    if ctx.vm.dead:
        raise JdwpError(ErrorCode.VM_DEAD)


async def version(ctx: Context, cmd: VirtualMachine.Version.Command) -> Any:
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


def _jdwp_status(status: int) -> int:
    return status & 0xF


async def classes_by_signature(ctx: Context, cmd: VirtualMachine.ClassesBySignature.Command) -> Any:
    _alive(ctx)
    wanted = _PREPARED | _ARRAY | _PRIMITIVE
    matches = [c for c in await ctx.vm.classes_by_signature(cmd.signature) if c["status"] & wanted]
    return {"classes": [{"ref_type_tag": c["ref_kind"], "type_id": c["ref"], "status": _jdwp_status(c["status"])}
                        for c in matches]}


async def _all_classes(ctx: Context, generic: bool) -> Any:
    _alive(ctx)
    wanted = _PREPARED | _ARRAY
    out = []
    for c in await ctx.vm.loaded_classes():
        if not c["status"] & wanted:
            continue
        item = {"ref_type_tag": c["ref_kind"], "type_id": c["ref"], "signature": c["signature"],
                "status": _jdwp_status(c["status"])}
        if generic:
            item["generic_signature"] = c["generic"]
        out.append(item)
    return {"classes": out}


async def all_classes(ctx: Context, cmd: VirtualMachine.AllClasses.Command) -> Any:
    return await _all_classes(ctx, False)


async def all_classes_with_generic(ctx: Context, cmd: VirtualMachine.AllClassesWithGeneric.Command) -> Any:
    return await _all_classes(ctx, True)


async def all_threads(ctx: Context, cmd: VirtualMachine.AllThreads.Command) -> Any:
    _alive(ctx)
    return {"threads": await ctx.vm.all_threads()}


async def top_level_thread_groups(ctx: Context, cmd: VirtualMachine.TopLevelThreadGroups.Command) -> Any:
    _alive(ctx)
    return {"groups": await ctx.vm.top_thread_groups()}


async def dispose(ctx: Context, cmd: VirtualMachine.Dispose.Command) -> Any:
    ctx.session.close_after_reply(ctx.packet_id)
    return None


async def id_sizes(ctx: Context, cmd: VirtualMachine.IDSizes.Command) -> Any:
    s = ctx.vm.id_sizes
    return {"field_idsize": s.field_id, "method_idsize": s.method_id, "object_idsize": s.object_id,
            "reference_type_idsize": s.reference_type_id, "frame_idsize": s.frame_id}


async def suspend(ctx: Context, cmd: VirtualMachine.Suspend.Command) -> Any:
    _alive(ctx)
    await ctx.vm.suspend_all(ctx.session)


async def resume(ctx: Context, cmd: VirtualMachine.Resume.Command) -> Any:
    _alive(ctx)
    try:
        await ctx.vm.resume_all(ctx.session)
    finally:
        debugger_resumed(ctx.session)


async def exit_vm(ctx: Context, cmd: VirtualMachine.Exit.Command) -> Any:
    if ctx.vm.dead:
        return None
    code = cmd.exit_code

    async def do_exit() -> None:
        # The reference closes its transport and exits without VMDeath: the debugger that asked
        # for the exit is owed none (the link's end would otherwise send it the automatic one).
        ctx.session.saw_vm_death = True
        await ctx.vm.exit_vm(code)

    ctx.session.after_reply(ctx.packet_id, do_exit)
    return None


async def create_string(ctx: Context, cmd: VirtualMachine.CreateString.Command) -> Any:
    _alive(ctx)
    return {"string_object": await ctx.vm.create_string(cmd.utf)}


async def capabilities(ctx: Context, cmd: VirtualMachine.Capabilities.Command) -> Any:
    _alive(ctx)
    caps = ctx.vm.capabilities
    names = ("can_watch_field_modification", "can_watch_field_access", "can_get_bytecodes",
             "can_get_synthetic_attribute", "can_get_owned_monitor_info", "can_get_current_contended_monitor",
             "can_get_monitor_info")
    return {n: caps[n] for n in names}


async def capabilities_new(ctx: Context, cmd: VirtualMachine.CapabilitiesNew.Command) -> Any:
    _alive(ctx)
    return ctx.vm.capabilities


async def class_paths(ctx: Context, cmd: VirtualMachine.ClassPaths.Command) -> Any:
    props = ctx.vm.properties
    separator = props.get("path.separator") or ";"
    class_path = props.get("java.class.path", "")
    # The reference splits on the separator's first character and always reports one path at least.
    return {"base_dir": props.get("user.dir", ""), "classpaths": class_path.split(separator[0]),
            "bootclasspaths": []}


async def dispose_objects(ctx: Context, cmd: VirtualMachine.DisposeObjects.Command) -> Any:
    if ctx.vm.dead:
        return None
    await ctx.vm.dispose_ids(ctx.session, [(r.object, r.ref_cnt) for r in cmd.requests])
    return None


async def hold_events(ctx: Context, cmd: VirtualMachine.HoldEvents.Command) -> Any:
    ctx.session.hold_events()


async def release_events(ctx: Context, cmd: VirtualMachine.ReleaseEvents.Command) -> Any:
    ctx.session.release_events()


async def redefine_classes(ctx: Context, cmd: VirtualMachine.RedefineClasses.Command) -> Any:
    if ctx.vm.dead or not cmd.classes:
        return None
    await ctx.vm.redefine_classes([(c.ref_type, bytes(c.classfile)) for c in cmd.classes])


async def set_default_stratum(ctx: Context, cmd: VirtualMachine.SetDefaultStratum.Command) -> Any:
    if ctx.vm.dead:
        return None
    await ctx.vm.set_default_stratum(cmd.stratum_id)


async def instance_counts(ctx: Context, cmd: VirtualMachine.InstanceCounts.Command) -> Any:
    _alive(ctx)
    refs = [r.ref_type for r in cmd.ref_types_count]
    if not refs:
        return {"counts": []}
    return {"counts": await ctx.vm.instance_counts(refs)}


async def all_modules(ctx: Context, cmd: VirtualMachine.AllModules.Command) -> Any:
    _alive(ctx)
    return {"modules": await ctx.vm.all_modules()}


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
