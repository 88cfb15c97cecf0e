"""StringReference command set (10)."""

from __future__ import annotations

from typing import Any

from jdwpd.commands._values import check_kind, request
from protocol.constants import ErrorCode
from protocol.link import ObjectKind

SET_NAME = "StringReference"


async def value(ctx: Any, cmd: Any) -> Any:
    await check_kind(ctx.vm, cmd.string_object, ObjectKind.STRING, ErrorCode.INVALID_STRING)
    r = await request(ctx.vm.link, "STRING_VALUE", string=cmd.string_object)
    # the link decoder already made the JVM's surrogate pairs whole characters; lone ones stay lone
    return {"string_value": r["utf"]}


HANDLERS = {"Value": value}
