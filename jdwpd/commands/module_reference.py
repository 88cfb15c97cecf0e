"""ModuleReference command set (18)."""

from __future__ import annotations

from typing import Any

from jdwpd.commands._values import request
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode

SET_NAME = "ModuleReference"


async def _info(ctx: Any, module: int) -> dict:
    if module == 0:
        raise JdwpError(ErrorCode.INVALID_MODULE, "null module")
    return await request(ctx.vm.link, "MODULE_INFO", module=module)


async def name(ctx: Any, cmd: Any) -> Any:
    return {"name": (await _info(ctx, cmd.module))["name"]}


async def class_loader(ctx: Any, cmd: Any) -> Any:
    return {"class_loader": (await _info(ctx, cmd.module))["loader"]}


HANDLERS = {"Name": name, "ClassLoader": class_loader}
