"""ClassObjectReference command set (17)."""

from __future__ import annotations

from typing import Any

SET_NAME = "ClassObjectReference"


async def reflected_type(ctx: Any, cmd: Any) -> Any:
    # A class object's id is its reference type's id: validate and bounce it back.
    kind = await ctx.vm.check_type(cmd.class_object)
    return {"ref_type_tag": kind, "type_id": cmd.class_object}


HANDLERS = {"ReflectedType": reflected_type}
