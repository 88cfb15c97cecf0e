"""ClassLoaderReference command set (14)."""

from __future__ import annotations

from typing import Any

from jdwpd.commands._values import check_kind, request
from protocol.constants import ErrorCode
from protocol.link import ObjectKind

SET_NAME = "ClassLoaderReference"


async def visible_classes(ctx: Any, cmd: Any) -> Any:
    loader = cmd.class_loader_object
    if loader != 0:  # 0 is the bootstrap loader, as in the reference
        await check_kind(ctx.vm, loader, ObjectKind.CLASS_LOADER, ErrorCode.INVALID_CLASS_LOADER)
    r = await request(ctx.vm.link, "LOADER_VISIBLE_CLASSES", loader=loader)
    return {"classes": [{"ref_type_tag": c["ref_kind"], "type_id": c["ref"]} for c in r["classes"]]}


HANDLERS = {"VisibleClasses": visible_classes}
