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
    return {"string_value": join_surrogates(r["utf"])}


def join_surrogates(text: str) -> str:
    """The JVM's modified UTF-8 spells a supplementary character as two surrogates; make it one.

    The reference sends standard UTF-8 (one 4-byte sequence), so the reply's encoder must see
    the character, not the pair.
    """
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


HANDLERS = {"Value": value}
