"""A program's Thread.resume() of a thread its debugger holds waits until the debugger resumes that
thread, as with the reference (OpenJDK's ResumeAfterThreadResumeCallTest).

Until JDK 20, Thread.resume also undoes a JVMTI suspension (HotSpot keeps one suspend state per
thread): unchecked, the program would run a thread the debugger believes suspended.  The reference
holds the caller at a breakpoint of its own in Thread.resume; jdwpd's agent does the same
(agent/app_resume.c).  From JDK 20 on Thread.resume only throws, and neither holds anything.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jdks, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol import Value
from protocol.constants import EventKind, ModKind, SuspendPolicy, Tag

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "app_resume_java"
TIMEOUT = 30
HELD_FOR = 0.5  # how long the program's resume() must stay blocked while the debugger holds the thread


@pytest.fixture(scope="module")
def classes() -> Path:
    feature = jdks.feature_of(Path(jvm.java_executable()).resolve().parent.parent)
    if feature is None or feature >= 20:
        pytest.skip(f"Thread.resume throws from JDK 20 on (the test JVM is JDK {feature})")
    return debuggees.compile_sources(SOURCES)


async def statics(c, type_id: int, names: list[str], fields: dict[str, int]) -> list:
    reply = await c.command("ReferenceType", "GetValues", ref_type=type_id, fields=[fields[n] for n in names])
    return [v.value.value for v in reply.values]


async def hold_resumee(c, mode: str, type_id: int, fields: dict[str, int]) -> int:
    """The resumee held by the debugger: at a SUSPEND_EVENT_THREAD breakpoint, or suspended while it runs."""
    if mode == "breakpoint":
        line = debuggees.marker_line(SOURCES / "AppResume.java", "HELD")
        loc = await c.line_location(type_id, "held", line)
        await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                        suspend_policy=SuspendPolicy.EVENT_THREAD,
                        modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}])
        await c.command("VirtualMachine", "Resume")
        _, (hit,) = await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
        return hit.thread
    await c.command("VirtualMachine", "Resume")
    with trio.fail_after(TIMEOUT):
        while (await statics(c, type_id, ["counted"], fields))[0] == 0:
            await trio.sleep(0.01)
    threads = (await c.command("VirtualMachine", "AllThreads")).threads
    for t in threads:
        if (await c.command("ThreadReference", "Name", thread=t.thread)).thread_name == "resumee":
            await c.command("ThreadReference", "Suspend", thread=t.thread)
            return t.thread
    raise AssertionError("no thread named resumee")


async def resume_of_a_held_thread(kind: str, classes: Path, mode: str) -> dict:
    facts = {}
    async with jvm.open_jvm(kind, classes, "AppResume", [mode]) as vm:
        async with open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            await c.wait_for_event(EventKind.VM_START, TIMEOUT)
            ev = await c.run_to_prepare("AppResume", TIMEOUT)
            fields = {f.name: f.field_id
                      for f in (await c.command("ReferenceType", "Fields", ref_type=ev.type_id)).declared}
            resumee = await hold_resumee(c, mode, ev.type_id, fields)
            counted = (await statics(c, ev.type_id, ["counted"], fields))[0]
            await c.command("ClassType", "SetValues", clazz=ev.type_id,
                            values=[(fields["resumeNow"], Value(Tag.BOOLEAN, True))])
            await trio.sleep(HELD_FOR)
            facts["while held: returned, resumee ran"] = await statics(
                c, ev.type_id, ["resumeReturned", "resumeeRan"], fields)
            facts["while held: counted on"] = (await statics(c, ev.type_id, ["counted"], fields))[0] != counted
            status = await c.command("ThreadReference", "Status", thread=resumee)
            facts["while held: resumee suspend status"] = status.suspend_status
            await c.command("ThreadReference", "Resume", thread=resumee)
            await c.wait_for_event(EventKind.VM_DEATH, TIMEOUT)
        with trio.fail_after(TIMEOUT):
            facts["exit"] = await vm.wait_exit(TIMEOUT)
        facts["output"] = [line for line in vm.output.lines("stdout") if line.startswith("resumee ran")]
    return facts


@pytest.mark.parametrize("mode", ["breakpoint", "counting"])
async def test_the_programs_resume_waits_for_the_debuggers(classes, mode):
    reference = await resume_of_a_held_thread("reference", classes, mode)
    assert reference["while held: returned, resumee ran"] == [False, False]
    assert not reference["while held: counted on"]
    assert reference["while held: resumee suspend status"] == 1
    assert reference["output"] == ["resumee ran: true"] and reference["exit"] == 0
    assert await resume_of_a_held_thread("jdwpd", classes, mode) == reference
