"""Method command set (6): line and variable tables, bytecodes, obsolescence; all cached per method."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context, Encoded
from jdwpd.daemon.facade.agent import cached
from jdwpd.daemon.fast.prefill import line_table_body
from jdwpd.daemon.model.classes import MethodInfo
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import Method

SET_NAME = "Method"


async def _method(ctx: Context, cmd: Any) -> int:
    # Like the reference, the class is checked to be a class and otherwise ignored: a
    # method id names its method on its own.
    await ctx.vm.check_type(cmd.ref_type)
    return cmd.method_id


async def _info(ctx: Context, cmd: Any) -> MethodInfo:
    """The method's declared facts (INVALID_METHODID for an id the agent never gave out)."""
    return await cached(ctx.vm.classes.method_info(await _method(ctx, cmd)))


async def _not_native(ctx: Context, cmd: Any) -> int:
    # The reference answers NATIVE_METHOD before asking JVMTI anything.
    info = await _info(ctx, cmd)
    if info.is_native:
        raise JdwpError(ErrorCode.NATIVE_METHOD, f"{info.name} is native")
    return info.method_id


async def line_table(ctx: Context, cmd: Method.LineTable.Command) -> Any:
    method_id = await _not_native(ctx, cmd)
    classes, sizes = ctx.vm.classes, ctx.vm.id_sizes
    body = classes.kept(("method", method_id), ("LineTable reply", sizes))
    if body is None:
        body = line_table_body(classes, method_id, sizes, await cached(classes.line_table(method_id)))
    return Encoded(body)


def _variables(table: Any, generic: bool) -> Any:
    slots = []
    for v in table.variables:
        entry = {"code_index": v.start, "name": v.name, "signature": v.signature, "length": v.length, "slot": v.slot}
        if generic:
            entry["generic_signature"] = v.generic
        slots.append(entry)
    return {"arg_cnt": table.arg_slots, "slots": slots}


async def variable_table(ctx: Context, cmd: Method.VariableTable.Command) -> Any:
    return _variables(await cached(ctx.vm.classes.variable_table(await _not_native(ctx, cmd))), False)


async def variable_table_with_generic(ctx: Context, cmd: Method.VariableTableWithGeneric.Command) -> Any:
    return _variables(await cached(ctx.vm.classes.variable_table(await _not_native(ctx, cmd))), True)


async def bytecodes(ctx: Context, cmd: Method.Bytecodes.Command) -> Any:
    info = await _info(ctx, cmd)
    if info.is_native or info.is_abstract:
        return {"bytes": b""}  # the reference does not even ask JVMTI for these
    return {"bytes": await cached(ctx.vm.classes.bytecodes(info.method_id))}


async def is_obsolete(ctx: Context, cmd: Method.IsObsolete.Command) -> Any:
    method_id = await _method(ctx, cmd)
    if method_id == 0:
        # Locations in obsolete methods carry method id 0 (JDI's ObsoleteMethodImpl): obsolete.
        return {"is_obsolete": True}
    return {"is_obsolete": await cached(ctx.vm.classes.is_obsolete(method_id))}


HANDLERS = {
    "LineTable": line_table,
    "VariableTable": variable_table,
    "Bytecodes": bytecodes,
    "IsObsolete": is_obsolete,
    "VariableTableWithGeneric": variable_table_with_generic,
}
