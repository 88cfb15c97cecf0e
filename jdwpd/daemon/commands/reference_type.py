"""ReferenceType command set (2): answered from the class cache where the answer cannot change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context, Encoded
from jdwpd.daemon.commands.value_encodings import tagged_list
from jdwpd.daemon.facade.agent import cached
from jdwpd.daemon.fast import prefill
from jdwpd.daemon.model.classes import ClassCache

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import ReferenceType

SET_NAME = "ReferenceType"


def _classes(ctx: Context) -> ClassCache:
    return ctx.vm.classes


async def signature(ctx: Context, cmd: ReferenceType.Signature.Command) -> Any:
    sig = await cached(_classes(ctx).signature(cmd.ref_type))
    return {"signature": sig.signature}


async def signature_with_generic(ctx: Context, cmd: ReferenceType.SignatureWithGeneric.Command) -> Any:
    sig = await cached(_classes(ctx).signature(cmd.ref_type))
    return {"signature": sig.signature, "generic_signature": sig.generic}


async def class_loader(ctx: Context, cmd: ReferenceType.ClassLoader.Command) -> Any:
    return {"class_loader": await cached(_classes(ctx).class_loader(cmd.ref_type))}


async def modifiers(ctx: Context, cmd: ReferenceType.Modifiers.Command) -> Any:
    return {"mod_bits": await cached(_classes(ctx).modifiers(cmd.ref_type))}




async def _declared(ctx: Context, cmd: Any, kind: str, generic: bool) -> Any:
    """Fields or Methods, with or without generic signatures: one shape, four commands.

    The reply's bytes are kept with the class's members (no object id in them): asked again, by
    this debugger or another, they cost a lookup."""
    classes, sizes = _classes(ctx), ctx.vm.id_sizes
    body = classes.kept(cmd.ref_type, ("declared reply", kind, generic, sizes))
    if body is None:
        members = classes.fields(cmd.ref_type) if kind == "field" else classes.methods(cmd.ref_type)
        body = prefill.declared_body(classes, cmd.ref_type, kind, generic, sizes, await cached(members))
    if kind == "method":
        prefill.line_tables(ctx.vm, cmd.ref_type, generic)
    return Encoded(body)


async def fields(ctx: Context, cmd: ReferenceType.Fields.Command) -> Any:
    return await _declared(ctx, cmd, "field", generic=False)


async def fields_with_generic(ctx: Context, cmd: ReferenceType.FieldsWithGeneric.Command) -> Any:
    return await _declared(ctx, cmd, "field", generic=True)


async def methods(ctx: Context, cmd: ReferenceType.Methods.Command) -> Any:
    return await _declared(ctx, cmd, "method", generic=False)


async def methods_with_generic(ctx: Context, cmd: ReferenceType.MethodsWithGeneric.Command) -> Any:
    return await _declared(ctx, cmd, "method", generic=True)


async def get_values(ctx: Context, cmd: ReferenceType.GetValues.Command) -> Any:
    return {"values": await ctx.vm.get_static_values(cmd.ref_type, [item.field_id for item in cmd.fields])}


async def source_file(ctx: Context, cmd: ReferenceType.SourceFile.Command) -> Any:
    return {"source_file": await cached(_classes(ctx).source_file(cmd.ref_type))}


async def source_debug_extension(ctx: Context, cmd: ReferenceType.SourceDebugExtension.Command) -> Any:
    return {"extension": await cached(_classes(ctx).source_debug_extension(cmd.ref_type))}


async def nested_types(ctx: Context, cmd: ReferenceType.NestedTypes.Command) -> Any:
    return {"classes": [{"ref_type_tag": ref_kind, "type_id": ref} for ref_kind, ref in
                        await ctx.vm.nested_types(cmd.ref_type)]}


async def status(ctx: Context, cmd: ReferenceType.Status.Command) -> Any:
    return {"status": await cached(_classes(ctx).status(cmd.ref_type))}


async def interfaces(ctx: Context, cmd: ReferenceType.Interfaces.Command) -> Any:
    return {"interfaces": list(await cached(_classes(ctx).interfaces(cmd.ref_type)))}


async def class_object(ctx: Context, cmd: ReferenceType.ClassObject.Command) -> Any:
    # A reference type's id is the id of its java.lang.Class object.
    await ctx.vm.check_type(cmd.ref_type)
    return {"class_object": cmd.ref_type}


async def instances(ctx: Context, cmd: ReferenceType.Instances.Command) -> Any:
    return tagged_list(await ctx.vm.instances(cmd.ref_type, cmd.max_instances), "object", ctx.vm.id_sizes)


async def class_file_version(ctx: Context, cmd: ReferenceType.ClassFileVersion.Command) -> Any:
    major, minor = await cached(_classes(ctx).class_version(cmd.ref_type))
    return {"major_version": major, "minor_version": minor}


async def constant_pool(ctx: Context, cmd: ReferenceType.ConstantPool.Command) -> Any:
    count, data = await cached(_classes(ctx).constant_pool(cmd.ref_type))
    return {"count": count, "bytes": data}


async def module(ctx: Context, cmd: ReferenceType.Module.Command) -> Any:
    return {"module": await cached(_classes(ctx).module(cmd.ref_type))}


HANDLERS = {
    "Signature": signature,
    "ClassLoader": class_loader,
    "Modifiers": modifiers,
    "Fields": fields,
    "Methods": methods,
    "GetValues": get_values,
    "SourceFile": source_file,
    "NestedTypes": nested_types,
    "Status": status,
    "Interfaces": interfaces,
    "ClassObject": class_object,
    "SourceDebugExtension": source_debug_extension,
    "SignatureWithGeneric": signature_with_generic,
    "FieldsWithGeneric": fields_with_generic,
    "MethodsWithGeneric": methods_with_generic,
    "Instances": instances,
    "ClassFileVersion": class_file_version,
    "ConstantPool": constant_pool,
    "Module": module,
}
