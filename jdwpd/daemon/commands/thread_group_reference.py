"""ThreadGroupReference command set (12)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import ThreadGroupReference

SET_NAME = "ThreadGroupReference"


async def name(ctx: Context, cmd: ThreadGroupReference.Name.Command) -> Any:
    return {"group_name": await ctx.vm.thread_group_name(cmd.group)}


async def parent(ctx: Context, cmd: ThreadGroupReference.Parent.Command) -> Any:
    return {"parent_group": await ctx.vm.thread_group_parent(cmd.group)}


async def children(ctx: Context, cmd: ThreadGroupReference.Children.Command) -> Any:
    threads, groups = await ctx.vm.thread_group_children(cmd.group)
    return {"child_threads": threads, "child_groups": groups}


HANDLERS = {"Name": name, "Parent": parent, "Children": children}
