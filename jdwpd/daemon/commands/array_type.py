"""ArrayType command set (4): NewInstance."""

from __future__ import annotations

from typing import Any

SET_NAME = "ArrayType"


async def new_instance(ctx: Any, cmd: Any) -> Any:
    return {"new_array": await ctx.vm.new_array(cmd.arr_type, cmd.length)}


HANDLERS = {"NewInstance": new_instance}
