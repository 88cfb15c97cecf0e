"""Helpers of the API's tests: start shop.Main under either server, as the API sees it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import jdwpd
from jdwpd.testing import jvm

SHOP = Path(__file__).resolve().parents[1] / "java" / "shop"


def java_argv(classes: Path, main: str = "shop.Main") -> list[str]:
    return [jvm.java_executable(), "-cp", str(classes), main]


@contextlib.asynccontextmanager
async def open_shop(kind: str, classes: Path, main: str = "shop.Main") -> AsyncIterator[jdwpd.VM]:
    if kind == "jdwpd":
        async with jdwpd.launch(java_argv(classes, main), suspend=True) as vm:
            yield vm
    else:
        async with jvm.open_reference_jvm(classes, main) as debuggee, jdwpd.attach(debuggee.address) as vm:
            yield vm
