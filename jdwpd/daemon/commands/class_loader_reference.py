"""ClassLoaderReference command set (14)."""

from __future__ import annotations

from typing import Any

SET_NAME = "ClassLoaderReference"


async def visible_classes(ctx: Any, cmd: Any) -> Any:
    return {"classes": [{"ref_type_tag": ref_kind, "type_id": ref}
                        for ref_kind, ref in await ctx.vm.visible_classes(cmd.class_loader_object)]}


HANDLERS = {"VisibleClasses": visible_classes}
