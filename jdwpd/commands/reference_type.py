"""ReferenceType command set (2): answered from the class cache where the answer cannot change."""

from __future__ import annotations

from typing import Any

from jdwpd.commands import Encoded, prefill
from jdwpd.commands._values import cached, check_type, request, tagged_list, to_jdwp
from jdwpd.errors import JdwpError
from jdwpd.model.classes import ClassCache
from protocol.constants import ErrorCode

SET_NAME = "ReferenceType"


def _classes(ctx: Any) -> ClassCache:
    return ctx.vm.classes


async def signature(ctx: Any, cmd: Any) -> Any:
    sig = await cached(_classes(ctx).signature(cmd.ref_type))
    return {"signature": sig.signature}


async def signature_with_generic(ctx: Any, cmd: Any) -> Any:
    sig = await cached(_classes(ctx).signature(cmd.ref_type))
    return {"signature": sig.signature, "generic_signature": sig.generic}


async def class_loader(ctx: Any, cmd: Any) -> Any:
    return {"class_loader": await cached(_classes(ctx).class_loader(cmd.ref_type))}


async def modifiers(ctx: Any, cmd: Any) -> Any:
    return {"mod_bits": await cached(_classes(ctx).modifiers(cmd.ref_type))}




async def _declared(ctx: Any, cmd: Any, kind: str, generic: bool) -> Any:
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


async def fields(ctx: Any, cmd: Any) -> Any:
    return await _declared(ctx, cmd, "field", generic=False)


async def fields_with_generic(ctx: Any, cmd: Any) -> Any:
    return await _declared(ctx, cmd, "field", generic=True)


async def methods(ctx: Any, cmd: Any) -> Any:
    return await _declared(ctx, cmd, "method", generic=False)


async def methods_with_generic(ctx: Any, cmd: Any) -> Any:
    return await _declared(ctx, cmd, "method", generic=True)


async def get_values(ctx: Any, cmd: Any) -> Any:
    """Static values; object values carry the runtime kind of the object (null: OBJECT)."""
    classes = _classes(ctx)
    ref = cmd.ref_type
    await check_type(classes, ref)
    wanted = []
    for item in cmd.fields:
        f = await cached(classes.find_field(ref, item.field_id))
        if not f.is_static:
            # The reference would read an instance field's id as a static one; JNI's
            # behaviour is then undefined.  JDI never sends this.
            raise JdwpError(ErrorCode.INVALID_FIELDID, f"{f.name} is not static")
        wanted.append({"field": f.field_id, "tag": f.tag})
    if not wanted:
        return {"values": []}
    r = await request(ctx.vm.link, "CLASS_GET_STATICS", ref=ref, fields=wanted)
    return {"values": [to_jdwp(v["value"]) for v in r["values"]]}


async def source_file(ctx: Any, cmd: Any) -> Any:
    return {"source_file": await cached(_classes(ctx).source_file(cmd.ref_type))}


async def source_debug_extension(ctx: Any, cmd: Any) -> Any:
    return {"extension": await cached(_classes(ctx).source_debug_extension(cmd.ref_type))}


def is_nested_signature(outer: str, candidate: str, sep: str) -> bool:
    """The reference agent's rule for NestedTypes, on signatures ('Lp/Outer;').

    'Lp/Outer$Inner;' is nested; 'Lp/Outer$1;' (anonymous) is not; 'Lp/Outer$1Local;' (local)
    is; 'Lp/Outer$Inner$Deeper;' is not (nested in Inner, not in Outer).
    """
    stem = outer[:-1]
    if not candidate.startswith(stem) or len(candidate) <= len(stem) or candidate[len(stem)] != sep:
        return False
    rest = candidate[len(stem) + 1:]
    i = 0
    while i < len(rest) and rest[i].isdigit():
        i += 1
    if rest[i:i + 1] == ";":
        return False
    return sep not in rest[i:]


async def nested_types(ctx: Any, cmd: Any) -> Any:
    """Classes loaded through the outer class's loader whose names say they are nested in it."""
    classes = _classes(ctx)
    outer = await cached(classes.signature(cmd.ref_type))
    loader = await cached(classes.class_loader(cmd.ref_type))
    visible = (await request(ctx.vm.link, "LOADER_VISIBLE_CLASSES", loader=loader))["classes"]
    sigs = await cached(classes.signatures_of(c["ref"] for c in visible))
    out = []
    for c in visible:
        s = sigs[c["ref"]].signature
        if is_nested_signature(outer.signature, s, "$") or is_nested_signature(outer.signature, s, "#"):
            out.append({"ref_type_tag": c["ref_kind"], "type_id": c["ref"]})
    return {"classes": out}


async def status(ctx: Any, cmd: Any) -> Any:
    return {"status": await cached(_classes(ctx).status(cmd.ref_type))}


async def interfaces(ctx: Any, cmd: Any) -> Any:
    return {"interfaces": list(await cached(_classes(ctx).interfaces(cmd.ref_type)))}


async def class_object(ctx: Any, cmd: Any) -> Any:
    # A reference type's id is the id of its java.lang.Class object.
    await check_type(_classes(ctx), cmd.ref_type)
    return {"class_object": cmd.ref_type}


async def instances(ctx: Any, cmd: Any) -> Any:
    if cmd.ref_type == 0:
        # The reference reads the null class without complaint and then finds no object to count.
        raise JdwpError(ErrorCode.INVALID_OBJECT, "null class")
    await check_type(_classes(ctx), cmd.ref_type)
    if cmd.max_instances < 0:
        raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, "maxInstances < 0")
    r = await request(ctx.vm.link, "CLASS_INSTANCES", ref=cmd.ref_type, max=cmd.max_instances)
    return tagged_list(r["instances"], "object", ctx.vm.id_sizes)


async def class_file_version(ctx: Any, cmd: Any) -> Any:
    major, minor = await cached(_classes(ctx).class_version(cmd.ref_type))
    return {"major_version": major, "minor_version": minor}


async def constant_pool(ctx: Any, cmd: Any) -> Any:
    count, data = await cached(_classes(ctx).constant_pool(cmd.ref_type))
    return {"count": count, "bytes": data}


async def module(ctx: Any, cmd: Any) -> Any:
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
