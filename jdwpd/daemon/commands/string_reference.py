"""StringReference command set (10)."""

from __future__ import annotations

from typing import Any

SET_NAME = "StringReference"


async def value(ctx: Any, cmd: Any) -> Any:
    return {"string_value": await ctx.vm.string_value(cmd.string_object)}


HANDLERS = {"Value": value}
