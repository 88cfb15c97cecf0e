"""ModuleReference command set (18)."""

from __future__ import annotations

from typing import Any

SET_NAME = "ModuleReference"


async def name(ctx: Any, cmd: Any) -> Any:
    return {"name": (await ctx.vm.module_info(cmd.module))[0]}


async def class_loader(ctx: Any, cmd: Any) -> Any:
    return {"class_loader": (await ctx.vm.module_info(cmd.module))[1]}


HANDLERS = {"Name": name, "ClassLoader": class_loader}
