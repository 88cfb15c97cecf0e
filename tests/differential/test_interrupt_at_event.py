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
from protocol.constants import EventKind, ModKind, SuspendPolicy, TypeTag

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
            prepare = await c.command("EventRequest", "Set", event_kind=EventKind.CLASS_PREPARE,
                                      suspend_policy=SuspendPolicy.ALL,
                                      modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "Interrupted"}])
            await c.command("VirtualMachine", "Resume")
            _, (ev,) = await c.wait_for_event(EventKind.CLASS_PREPARE, TIMEOUT)
            await c.command("EventRequest", "Clear", event_kind=EventKind.CLASS_PREPARE, request_id=prepare.request_id)
            methods = (await c.command("ReferenceType", "Methods", ref_type=ev.type_id)).declared
            stop = next(m for m in methods if m.name == "stop")
            table = await c.command("Method", "LineTable", ref_type=ev.type_id, method_id=stop.method_id)
            index = min(r.line_code_index for r in table.lines if r.line_number == line)
            await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=policy,
                            modifiers=[{"mod_kind": ModKind.LOCATION_ONLY,
                                        "loc": {"type_tag": TypeTag.CLASS, "class_id": ev.type_id,
                                                "method_id": stop.method_id, "index": index}}])
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
