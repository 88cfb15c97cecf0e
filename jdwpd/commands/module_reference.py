"""ModuleReference command set (18)."""

from __future__ import annotations

from typing import Any

from jdwpd.commands._values import cached, object_kinds, request
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode

SET_NAME = "ModuleReference"


async def _info(ctx: Any, module: int) -> dict:
    if module == 0:
        # The reference asks the null module's name and loader through JNI and answers "" and null.
        return {"name": "", "loader": 0}
    # The reference turns an unknown id into INVALID_MODULE; any other object it hands to JNI as
    # if it were a module (answering garbage): jdwpd says INVALID_MODULE for those too.
    try:
        _, module_class, _ = await object_kinds(ctx.vm).get(module)
    except JdwpError as e:
        raise JdwpError(ErrorCode.INVALID_MODULE, "unknown module id") from e
    if (await cached(ctx.vm.classes.signature(module_class))).signature != "Ljava/lang/Module;":
        raise JdwpError(ErrorCode.INVALID_MODULE, f"object {module:#x} is not a module")
    return await request(ctx.vm.link, "MODULE_INFO", module=module)


async def name(ctx: Any, cmd: Any) -> Any:
    return {"name": (await _info(ctx, cmd.module))["name"]}


async def class_loader(ctx: Any, cmd: Any) -> Any:
    return {"class_loader": (await _info(ctx, cmd.module))["loader"]}


HANDLERS = {"Name": name, "ClassLoader": class_loader}
