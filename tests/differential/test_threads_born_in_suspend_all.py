"""A thread whose start is under way when the VM is suspended starts suspended, as with the reference.

Found by OpenJDK's TwoThreadsTest: a thread suspended in the middle of its Thread.start() finishes it,
and the new thread ran free when it started after the agent had listed the threads for a suspend-all
but before it watched thread starts.  It then reached a SUSPEND_ALL breakpoint of its own while the VM
was held, and once the first event's set was resumed, the debugger found it not suspended at its
event.  Here one thread keeps starting threads that stop at a SUSPEND_ALL breakpoint while the main
thread stops at another; at every event the event's thread must still be suspended.  Raw client,
against the reference and jdwpd.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, ModKind, SuspendPolicy

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "born_java"
TIMEOUT = 60
STOPS = 300


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(SOURCES)


async def unsuspended_at_events(kind: str, classes: Path) -> tuple[list[str], int]:
    """The events whose thread was found not suspended; how many events born threads had."""
    source = SOURCES / "Born.java"
    unsuspended: list[str] = []
    born_events = 0
    async with jvm.open_jvm(kind, classes, "Born", [str(STOPS)]) as vm:
        async with open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            await c.wait_for_event(EventKind.VM_START, TIMEOUT)
            ev = await c.run_to_prepare("Born", TIMEOUT)
            requests = {}
            for method, marker in (("stop", "STOP"), ("born", "BORN")):
                loc = await c.line_location(ev.type_id, method, debuggees.marker_line(source, marker))
                request = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                          suspend_policy=SuspendPolicy.ALL,
                                          modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}])
                requests[request.request_id] = method
            await c.command("VirtualMachine", "Resume")
            stops = 0
            while True:
                _, events = await c.next_event(TIMEOUT)
                for e in events:
                    if EventKind(e.event_kind) != EventKind.BREAKPOINT:
                        continue
                    method = requests[e.request_id]
                    stops += method == "stop"
                    born_events += method == "born"
                    count = (await c.command("ThreadReference", "SuspendCount", thread=e.thread)).suspend_count
                    if count == 0:
                        unsuspended.append(f"{method} #{stops if method == 'stop' else born_events}")
                if stops >= STOPS:
                    break  # held: cleared before the last resume, or the program ends under the Clears
                await c.command("VirtualMachine", "Resume")
            for request_id in requests:
                await c.command("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=request_id)
            # A born thread's breakpoint posted before the Clear can still hold the VM.
            await c.resume_to_exit(TIMEOUT)
            assert await vm.wait_exit(TIMEOUT) == 0
    assert f"stopped {STOPS} times" in vm.output.lines("stdout")
    return unsuspended, born_events


async def test_threads_started_during_a_suspend_all_start_suspended(classes):
    reference, reference_born = await unsuspended_at_events("reference", classes)
    assert reference == []
    ours, ours_born = await unsuspended_at_events("jdwpd", classes)
    assert ours == []
    # Born threads must have stopped often enough for a start to have met a suspend-all.  How often
    # depends on the machine's load (a loaded CI run saw 65 and 153 of 300 main stops), so the bar is
    # low: a few dozen born stops already hit the window that TwoThreadsTest found.
    assert min(reference_born, ours_born) >= STOPS // 10
