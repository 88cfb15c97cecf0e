"""ThreadGroupReference command set (12)."""

from __future__ import annotations

from typing import Any

from jdwpd.commands._values import request

SET_NAME = "ThreadGroupReference"


async def name(ctx: Any, cmd: Any) -> Any:
    return {"group_name": (await request(ctx.vm.link, "GROUP_INFO", group=cmd.group))["name"]}


async def parent(ctx: Any, cmd: Any) -> Any:
    return {"parent_group": (await request(ctx.vm.link, "GROUP_INFO", group=cmd.group))["parent"]}


async def children(ctx: Any, cmd: Any) -> Any:
    r = await request(ctx.vm.link, "GROUP_CHILDREN", group=cmd.group)
    return {"child_threads": [t["thread"] for t in r["threads"]],
            "child_groups": [g["group"] for g in r["groups"]]}


HANDLERS = {"Name": name, "Parent": parent, "Children": children}
