"""ModuleReference command set (18)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import ModuleReference

SET_NAME = "ModuleReference"


async def name(ctx: Context, cmd: ModuleReference.Name.Command) -> Any:
    return {"name": (await ctx.vm.module_info(cmd.module))[0]}


async def class_loader(ctx: Context, cmd: ModuleReference.ClassLoader.Command) -> Any:
    return {"class_loader": (await ctx.vm.module_info(cmd.module))[1]}


HANDLERS = {"Name": name, "ClassLoader": class_loader}
