"""A scripted debugger over the raw client, the same for both servers: what the debugger-driven benchmarks share.

``debug_target(kind, args, body)`` starts bench/java's Target suspended under the reference
agent or under `jdwpd launch`, connects, waits for Target to be prepared, and runs ``body``
under one deadline.  Everything is killed by PID when it returns or fails.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import JdwpClient, open_jdwp_client
from protocol import messages
from protocol.constants import EventKind, StepDepth, StepSize, SuspendPolicy, TypeTag
from protocol.wire import Location

from .common import MeasurementFailed, compiled_classes, marker

M = messages.Modifiers


class Debugger:
    """One debugger connection and what it learned of class Target."""

    def __init__(self, client: JdwpClient, vm: jvm.Debuggee) -> None:
        self.c = client
        self.vm = vm
        self.target = 0
        self._lines: dict[int, Any] = {}  # method id -> LineTable reply
        self._methods: list[Any] = []

    async def start(self) -> None:
        """From VMStart to Target prepared, every thread suspended."""
        await self.c.wait_for_event(EventKind.VM_START, timeout=30)
        req = await self.c.command("EventRequest", "Set", event_kind=EventKind.CLASS_PREPARE,
                                   suspend_policy=SuspendPolicy.ALL, modifiers=[M.ClassMatch(class_pattern="Target")])
        await self.c.command("VirtualMachine", "Resume")
        _, events = await self.c.wait_for_event(EventKind.CLASS_PREPARE, timeout=30)
        self.target = events[0].type_id
        await self.c.command("EventRequest", "Clear", event_kind=EventKind.CLASS_PREPARE, request_id=req.request_id)

    async def location(self, name: str) -> Location:
        """The first code index of line ``// @marker name`` in Target."""
        line = marker(name)
        if not self._methods:
            self._methods = (await self.c.command("ReferenceType", "Methods", ref_type=self.target)).declared
        for m in self._methods:
            table = self._lines.get(m.method_id)
            if table is None:
                code, table = await self.c.command_raw("Method", "LineTable", ref_type=self.target,
                                                       method_id=m.method_id)
                self._lines[m.method_id] = table
            if table is None:
                continue
            indexes = [li.line_code_index for li in table.lines if li.line_number == line]
            if indexes:
                return Location(TypeTag.CLASS, self.target, m.method_id, min(indexes))
        raise MeasurementFailed(f"no code at marker {name} (line {line})")

    async def breakpoint(self, name: str, policy: int = SuspendPolicy.ALL, extra=()) -> int:
        where = await self.location(name)
        req = await self.c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=policy,
                                   modifiers=[*extra, M.LocationOnly(loc=where)])
        return req.request_id

    async def clear(self, kind: int, request_id: int) -> None:
        await self.c.command("EventRequest", "Clear", event_kind=kind, request_id=request_id)

    async def run_to(self, name: str) -> tuple[int, Location]:
        """Resume until the breakpoint at ``name``; every thread suspended there; (thread, location)."""
        req = await self.breakpoint(name)
        await self.c.command("VirtualMachine", "Resume")
        _, events = await self.c.wait_for_event(EventKind.BREAKPOINT, timeout=60)
        await self.clear(EventKind.BREAKPOINT, req)
        return events[0].thread, events[0].location

    async def step(self, thread: int, size: int, depth: int = StepDepth.INTO, excludes=()) -> Location:
        """One step as jdb takes it: a Count(1) step request, resume all, the event, clear.

        jdb's modifier order: Step, ClassExcludes, Count last.  (Count first makes the reference
        spend the count on the first raw single step, so a LINE step never reports.)
        """
        mods = [M.Step(thread=thread, size=size, depth=depth), *(M.ClassExclude(class_pattern=p) for p in excludes),
                M.Count(count=1)]
        req = await self.c.command("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP,
                                   suspend_policy=SuspendPolicy.ALL, modifiers=mods)
        await self.c.command("VirtualMachine", "Resume")
        _, events = await self.c.wait_for_event(EventKind.SINGLE_STEP, timeout=60)
        # A Count(1) request has expired already; jdb clears it anyway, and so do we (NOT_FOUND is fine).
        await self.c.command_raw("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP,
                                 request_id=req.request_id)
        return events[0].location

    async def thread_named(self, name: str) -> int:
        for th in (await self.c.command("VirtualMachine", "AllThreads")).threads:
            if (await self.c.command("ThreadReference", "Name", thread=th.thread)).thread_name == name:
                return th.thread
        raise MeasurementFailed(f"no thread named {name}")


def opener(kind: str):
    if kind == "reference":
        return jvm.open_reference_jvm
    if kind == "jdwpd":
        return jvm.open_jdwpd_jvm
    raise ValueError(kind)


async def _debug(kind: str, args: list[str], body: Callable[[Debugger], Awaitable[Any]], classpath: str,
                 timeout: float) -> Any:
    with trio.fail_after(timeout):
        async with opener(kind)(classpath, "Target", args, suspend=True) as vm:
            try:
                async with open_jdwp_client(vm.host, vm.port) as c:
                    d = Debugger(c, vm)
                    await d.start()
                    return await body(d)
            except BaseException as e:
                e.add_note(f"debuggee ({kind}) output, last lines:\n{vm.output.describe()[-1500:]}")
                raise


def debug_target(kind: str, args: list[str], body: Callable[[Debugger], Awaitable[Any]], *,
                 classpath: str | None = None, timeout: float = 120.0) -> Any:
    return trio.run(_debug, kind, args, body, classpath or str(compiled_classes()), timeout)


async def drain_events(c: JdwpClient, on_event: Callable[[int, tuple], Awaitable[None]] | None = None) -> None:
    """Take composites as they come (a debugger that keeps up) until the connection ends."""
    while True:
        try:
            policy, events = await c.next_event(timeout=math.inf)
        except Exception:
            return
        if on_event is not None:
            await on_event(policy, events)


async def wait_stdout(vm: jvm.Debuggee, pattern, timeout: float):
    with trio.fail_after(timeout):
        while True:
            m = vm.output.search(pattern, "stdout")
            if m:
                return m
            if vm.returncode is not None:
                raise MeasurementFailed(f"debuggee exited {vm.returncode}: {vm.output.describe()[-1000:]}")
            await trio.sleep(0.01)


def per_call(total_seconds: float, n: int, scale: float = 1e6) -> float:
    return total_seconds / n * scale


now = time.perf_counter
__all__ = ["Debugger", "debug_target", "drain_events", "wait_stdout", "per_call", "now", "StepSize", "StepDepth"]
