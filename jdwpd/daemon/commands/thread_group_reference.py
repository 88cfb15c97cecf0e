"""ThreadGroupReference command set (12)."""

from __future__ import annotations

from typing import Any

SET_NAME = "ThreadGroupReference"


async def name(ctx: Any, cmd: Any) -> Any:
    return {"group_name": await ctx.vm.thread_group_name(cmd.group)}


async def parent(ctx: Any, cmd: Any) -> Any:
    return {"parent_group": await ctx.vm.thread_group_parent(cmd.group)}


async def children(ctx: Any, cmd: Any) -> Any:
    threads, groups = await ctx.vm.thread_group_children(cmd.group)
    return {"child_threads": threads, "child_groups": groups}


HANDLERS = {"Name": name, "Parent": parent, "Children": children}
