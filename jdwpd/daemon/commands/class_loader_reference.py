"""ClassLoaderReference command set (14)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import ClassLoaderReference

SET_NAME = "ClassLoaderReference"


async def visible_classes(ctx: Context, cmd: ClassLoaderReference.VisibleClasses.Command) -> Any:
    return {"classes": [{"ref_type_tag": ref_kind, "type_id": ref}
                        for ref_kind, ref in await ctx.vm.visible_classes(cmd.class_loader_object)]}


HANDLERS = {"VisibleClasses": visible_classes}
