"""Requests on method calls: where methods are entered, and where one returns with its value."""

from __future__ import annotations

from typing import Any

import attrs

from protocol.constants import EventKind, ModKind

from .hits import Stop
from .requests import SUSPEND_POLICIES, DeferredRequest, EventSource
from .types import ReferenceType

__all__ = ["MethodEntries", "MethodExits"]


@attrs.define(eq=False)
class MethodEntries(EventSource):
    """Stops as a method of a class matching ``class_pattern`` is entered (``pkg.Class``,
    ``pkg.*``, ``*.Parser``), filtered in the VM (JDI's MethodEntryRequest with a class filter).
    Each hit is at the method's first instruction.  For one method, ``vm.breakpoint("pkg.Class.m")``
    stops only there, at no cost to the others."""

    class_pattern: str = attrs.field(kw_only=True)
    suspend: str = attrs.field(default="thread", kw_only=True)

    def __str__(self) -> str:
        return f"entries of {self.class_pattern}"

    async def _install(self) -> None:
        mods = [{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": self.class_pattern}]
        await self._set(EventKind.METHOD_ENTRY, SUSPEND_POLICIES[self.suspend], mods, self._on_event)

    async def _on_event(self, event: Any, stop: Stop) -> None:
        if self.cleared:
            await stop.release()
            return
        await self._deliver(await self.vm._make_hit(self, event, stop))


@attrs.define(eq=False)
class MethodExits(DeferredRequest):
    """Stops as ``pkg.Class.method`` returns: each hit's ``return_value`` is what it returned
    (MethodExitWithReturnValue, filtered to the class in the VM and to the method here)."""

    class_name: str = attrs.field(kw_only=True)
    method_name: str = attrs.field(kw_only=True)
    suspend: str = attrs.field(default="thread", kw_only=True)

    def __str__(self) -> str:
        return f"exits of {self.class_name}.{self.method_name}"

    async def _install(self) -> None:
        await self._install_named(self.class_name)

    async def _install_in(self, t: ReferenceType) -> None:
        if not any(m.name == self.method_name for m in await t.methods()):
            raise AttributeError(f"{t.name} has no method {self.method_name!r}")
        mods = [{"mod_kind": ModKind.CLASS_ONLY, "clazz": t.id}]
        await self._set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SUSPEND_POLICIES[self.suspend], mods,
                        self._on_event)

    async def _on_event(self, event: Any, stop: Stop) -> None:
        if self.cleared:
            await stop.release()
            return
        hit = await self.vm._make_hit(self, event, stop)
        if hit.location.method.name != self.method_name:
            await hit.resume()
            return
        hit.return_value = await self.vm.values.from_wire(event.value, hit.thread)
        await self._deliver(hit)
