"""Load: eight debuggers at once, each attaching, breaking, stepping and detaching over and over while the
program runs.  No event is lost, nothing leaks, memory stays flat.  The default run's case is short (4 s),
the `slow` set's (which .ci/run runs) a 30 s soak; a longer soak is

    JDWPD_LOAD_SECONDS=600 python -m pytest -s tests/robustness/test_load.py
"""

from __future__ import annotations

import gc
import os

import pytest
import trio

from jdwpd.testing.client import open_jdwp_client
from protocol.constants import ErrorCode, EventKind, ModKind, StepDepth, StepSize, SuspendPolicy, TypeTag
from protocol.wire import Location
from tests.robustness.daemon_support import inprocess_daemon, loaded_class, marker, robustness_classes

pytestmark = pytest.mark.jvm
DEBUGGERS = 8
# How long the debuggers come and go after the warm-up: $JDWPD_LOAD_SECONDS alone when given.
_ASKED = os.environ.get("JDWPD_LOAD_SECONDS")
DURATIONS = [pytest.param(float(_ASKED), id=f"{_ASKED}s")] if _ASKED else [
    pytest.param(4.0, id="4s"), pytest.param(30.0, id="30s", marks=pytest.mark.slow)]


def rss_kib(pid: int | str) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise LookupError("VmRSS")


async def debugger_cycle(port: int, line: int, counts: dict[str, int]) -> None:
    async with open_jdwp_client("127.0.0.1", port, timeout=20) as c:
        ref = await loaded_class(c, "LTicker;")
        tick = next(m for m in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared
                    if m.name == "tick")
        table = await c.command("Method", "LineTable", ref_type=ref, method_id=tick.method_id)
        index = min(r.line_code_index for r in table.lines if r.line_number == line)
        bp = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                             suspend_policy=SuspendPolicy.EVENT_THREAD,
                             modifiers=[{"mod_kind": ModKind.LOCATION_ONLY,
                                         "loc": Location(TypeTag.CLASS, ref, tick.method_id, index)}])
        _, events = await c.wait_for_event(EventKind.BREAKPOINT, 20)
        counts["breakpoints"] += 1
        thread = events[0].thread
        await c.command("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=bp.request_id)
        frames = (await c.command("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1)).frames
        assert frames[0].location.method_id == tick.method_id
        code, step = await c.command_raw(
            "EventRequest", "Set", event_kind=EventKind.SINGLE_STEP, suspend_policy=SuspendPolicy.EVENT_THREAD,
            modifiers=[{"mod_kind": ModKind.STEP, "thread": thread, "size": StepSize.LINE, "depth": StepDepth.OVER},
                       {"mod_kind": ModKind.COUNT, "count": 1}])
        if code == ErrorCode.DUPLICATE:  # another debugger is stepping this thread: one step per thread
            counts["step_refused"] += 1
            await c.command("ThreadReference", "Resume", thread=thread)
        else:
            assert code == 0, code
            await c.command("ThreadReference", "Resume", thread=thread)
            _, events = await c.wait_for_event(EventKind.SINGLE_STEP, 20)
            counts["steps"] += 1
            await c.command("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=step.request_id)
            await c.command("ThreadReference", "Resume", thread=events[0].thread)
        counts["cycles"] += 1


@pytest.mark.parametrize("seconds", DURATIONS)
async def test_eight_debuggers_come_and_go_under_load(tmp_path, seconds):
    classes = robustness_classes()
    line = marker("tick")
    counts = {"cycles": 0, "breakpoints": 0, "steps": 0, "step_refused": 0}
    async with inprocess_daemon(["-cp", str(classes), "Ticker", "10000000", "2"]) as d:
        async def debugger() -> None:
            while trio.current_time() < deadline:
                with trio.fail_after(30):  # an event that never comes is a lost event
                    await debugger_cycle(d.port, line, counts)

        async def run_for(span: float) -> None:
            nonlocal deadline
            deadline = trio.current_time() + span
            async with trio.open_nursery() as nursery:
                for _ in range(DEBUGGERS):
                    nursery.start_soon(debugger)

        deadline = 0.0
        await run_for(min(2.0, seconds / 4))  # warm-up: caches, JIT, heap size settle
        gc.collect()
        jvm_before, daemon_before, objects_before = rss_kib(d.jvm.pid), rss_kib("self"), len(gc.get_objects())
        cycles_before = counts["cycles"]
        await run_for(seconds)
        gc.collect()
        jvm_after, daemon_after, objects_after = rss_kib(d.jvm.pid), rss_kib("self"), len(gc.get_objects())
        stats = await d.agent_stats()
        cycles = counts["cycles"] - cycles_before
        print(counts)
        print(f"\n{DEBUGGERS} debuggers, {seconds:g} s: {cycles} attach-break-step-detach cycles "
              f"({cycles / seconds:.1f}/s); JVM RSS {jvm_before} -> {jvm_after} KiB; daemon RSS {daemon_before} -> "
              f"{daemon_after} KiB; Python objects {objects_before} -> {objects_after}; agent {stats}")
        assert cycles >= DEBUGGERS, counts
        assert counts["breakpoints"] == counts["steps"] + counts["step_refused"] == counts["cycles"], counts
        assert counts["steps"] >= DEBUGGERS, counts
        assert stats["filters"] == 0 and stats["breakpoints"] == 0 and stats["pins"] == 0, stats
        assert stats["events_enabled"] == 0 and stats["suspend_all_depth"] == 0, stats
        assert jvm_after - jvm_before < 32 * 1024, "JVM memory grew under load"
        assert objects_after - objects_before < 5000, "the daemon keeps objects per session"
        assert d.jvm.returncode is None
