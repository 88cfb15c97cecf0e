"""ArrayType command set (4): NewInstance."""

from __future__ import annotations

from typing import Any

from jdwpd.commands._values import check_type, request, tagged
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode, TypeTag

SET_NAME = "ArrayType"


async def new_instance(ctx: Any, cmd: Any) -> Any:
    # The reference's answers: a type that is not an array type is a TYPE_MISMATCH, and a
    # negative length makes JNI throw, which it reports as OUT_OF_MEMORY.
    if await check_type(ctx.vm.classes, cmd.arr_type) != TypeTag.ARRAY:
        raise JdwpError(ErrorCode.TYPE_MISMATCH, "not an array type")
    if cmd.length < 0:
        raise JdwpError(ErrorCode.OUT_OF_MEMORY, "negative length")
    r = await request(ctx.vm.link, "ARRAY_NEW", ref=cmd.arr_type, length=cmd.length)
    return {"new_array": tagged(r["array"])}


HANDLERS = {"NewInstance": new_instance}
