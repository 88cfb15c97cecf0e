"""Requests on method calls: where methods are entered, and where one returns with its value."""

from __future__ import annotations

from typing import Any

import attrs

from protocol.constants import EventKind, ModKind, SuspendPolicy

from .bytecode import return_indexes
from .errors import JdwpError
from .hits import Stop
from .requests import SUSPEND_POLICIES, DeferredRequest, EventSource
from .types import Location, ReferenceType

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


@attrs.define(eq=False)
class MethodExits(DeferredRequest):
    """Stops as ``pkg.Class.method`` returns: each hit's ``return_value`` is what it returned.

    Only the method's own returns stop its thread: a breakpoint on each of its return
    instructions (found in its bytecode) asks, just before the return runs, for that thread's next
    method exit in the class (MethodExitWithReturnValue, filtered by thread and class in the VM,
    count 1), which is that return, with its value.  Other methods of the class and other threads
    run without stopping; a return by an exception is not a hit.  With ``suspend="none"`` (nothing
    held at the return) every exit of the class is sent and filtered by name here."""

    class_name: str = attrs.field(kw_only=True)
    method_name: str = attrs.field(kw_only=True)
    suspend: str = attrs.field(default="thread", kw_only=True)
    _returns: dict[int, ReferenceType] = attrs.field(factory=dict, init=False, repr=False)  # method id -> type

    def __str__(self) -> str:
        return f"exits of {self.class_name}.{self.method_name}"

    async def _install(self) -> None:
        await self._install_named(self.class_name)

    async def _install_in(self, t: ReferenceType) -> None:
        methods = [m for m in await t.methods() if m.name == self.method_name]
        if not methods:
            raise AttributeError(f"{t.name} has no method {self.method_name!r}")
        with_code = [m for m in methods if m.has_code]
        if self.suspend == "none" or not with_code:
            await self._watch_class_exits(t)
            return
        for m in with_code:
            try:
                code = (await self.vm.conn.command("Method", "Bytecodes", ref_type=t.id, method_id=m.id)).bytes
            except JdwpError:  # a server that does not give bytecodes: every exit of the class, filtered here
                await self._watch_class_exits(t)
                return
            self._returns[m.id] = t
            for index in return_indexes(bytes(code)):
                at = Location(t, m, index, None, None)
                await self._set(EventKind.BREAKPOINT, SuspendPolicy.EVENT_THREAD,
                                [{"mod_kind": ModKind.LOCATION_ONLY, "loc": at.to_wire()}], self._at_return)

    async def _watch_class_exits(self, t: ReferenceType) -> None:
        mods = [{"mod_kind": ModKind.CLASS_ONLY, "clazz": t.id}]
        await self._set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SUSPEND_POLICIES[self.suspend], mods, self._on_exit)

    async def _at_return(self, event: Any, stop: Stop) -> None:
        """The thread is at a return instruction: its next exit in the class is this return."""
        try:
            if self.cleared or self.error is not None:
                return
            t = self._returns[event.location.method_id]
            mods = [{"mod_kind": ModKind.THREAD_ONLY, "thread": event.thread},
                    {"mod_kind": ModKind.CLASS_ONLY, "clazz": t.id}, {"mod_kind": ModKind.COUNT, "count": 1}]
            await self._set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SUSPEND_POLICIES[self.suspend], mods,
                            self._on_exit)
        finally:
            await stop.release()

    async def _on_exit(self, event: Any, stop: Stop) -> None:
        if self.cleared:
            await stop.release()
            return
        key = (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, event.request_id)
        if self._returns and key in self._requests:  # a count-1 request: spent with this event
            self._requests.remove(key)
            self.vm.router.request_spent(event.request_id)
        hit = await self.vm.router.make_hit(self, event, stop)
        if hit.location.method.name != self.method_name:
            await hit.resume()
            return
        hit.return_value = await self.vm.values.from_wire(event.value, hit.thread)
        await self._deliver(hit)
