"""An application thread interrupts a thread that a debugger holds at an event: the interrupt is the
program's and must reach it after the resume, as with the reference (OpenJDK's InterruptHangTest).

The agent parks an event's thread in a raw-monitor wait, which an interrupt ends and clears; the
agent raises it again when the thread goes on.  Raw client; breakpoint with SUSPEND_EVENT_THREAD and
with SUSPEND_ALL (the interrupter is suspended too then, so it interrupts after the resume).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, ModKind, SuspendPolicy

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "interrupt_java"
TIMEOUT = 30


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(SOURCES)


async def run(kind: str, classes: Path, policy: int) -> list[str]:
    line = debuggees.marker_line(SOURCES / "Interrupted.java", "STOP")
    async with jvm.open_jvm(kind, classes, "Interrupted") as vm:
        async with open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            await c.wait_for_event(EventKind.VM_START, TIMEOUT)
            ev = await c.run_to_prepare("Interrupted", TIMEOUT)
            await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=policy,
                            modifiers=[{"mod_kind": ModKind.LOCATION_ONLY,
                                        "loc": await c.line_location(ev.type_id, "stop", line)}])
            await c.command("VirtualMachine", "Resume")
            await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
            await trio.sleep(0.8)  # the interrupter interrupts the held thread (EVENT_THREAD) meanwhile
            await c.command("VirtualMachine", "Resume")
            with trio.fail_after(TIMEOUT):
                assert await vm.wait_exit(TIMEOUT) == 0
    return [line for line in vm.output.lines("stdout") if not jvm.REFERENCE_READY.search(line)]


@pytest.mark.parametrize("policy", [SuspendPolicy.EVENT_THREAD, SuspendPolicy.ALL])
async def test_an_interrupt_of_a_thread_held_at_an_event_reaches_the_program(classes, policy):
    reference = await run("reference", classes, policy)
    assert reference == ["at the stop", "interrupted within 0 s"]
    assert await run("jdwpd", classes, policy) == reference
