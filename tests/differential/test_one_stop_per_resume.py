"""After a SUSPEND_ALL event set, the next waits for the debugger's VirtualMachine.Resume, as with the
reference (its event helper blocks until then).

Found by OpenJDK's DeferredStepTest through jdb: two threads at one breakpoint, and a thread whose
event was already under way when the first one suspended the VM.  jdwpd sent its event set too, with
the VM still held; jdb, which resumes once per `cont`, then showed two stops for one `cont`, or none
and "Nothing suspended."  Here the debugger waits a moment after each stop for another event set
before resuming: there must be none.  Raw client, reference and jdwpd.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, ModKind, SuspendPolicy

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "two_stops_java"
TIMEOUT = 30
STOPS = 40
LOOK = 0.1  # seconds to wait for an event set that should not come


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(SOURCES)


async def extra_sets(kind: str, classes: Path) -> tuple[int, set[int]]:
    """(event sets that came while the VM was held, the threads that stopped)."""
    extra, threads = 0, set()
    async with jvm.open_jvm(kind, classes, "TwoStops") as vm:
        async with open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            await c.wait_for_event(EventKind.VM_START, TIMEOUT)
            ev = await c.run_to_prepare("TwoStops", TIMEOUT)
            loc = await c.line_location(ev.type_id, "hit", debuggees.marker_line(SOURCES / "TwoStops.java", "HIT"))
            bp = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                 suspend_policy=SuspendPolicy.ALL,
                                 modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}])
            await c.command("VirtualMachine", "Resume")
            for _ in range(STOPS):
                _, events = await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
                threads.update(e.thread for e in events)
                with trio.move_on_after(LOOK):
                    await c.next_event(TIMEOUT)
                    extra += 1
                if extra:
                    break
                await c.command("VirtualMachine", "Resume")
            await c.command("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=bp.request_id)
            await c.command("VirtualMachine", "Exit", exit_code=0)
    return extra, threads


async def test_one_event_set_per_resume_after_suspend_all(classes):
    for kind in ("reference", "jdwpd"):
        extra, threads = await extra_sets(kind, classes)
        assert extra == 0, kind
        assert len(threads) == 2, kind  # both threads stopped: the race was there to lose
