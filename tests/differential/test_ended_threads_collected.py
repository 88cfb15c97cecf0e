"""Ended threads a debugger was shown are collected, as with the reference (issue 22, item 2).

The debugger stops the program at a SUSPEND_ALL breakpoint while 15 threads wait, lists the
instances of java.lang.Thread (their ids go out to it), lets the threads end; the program keeps
one of them in a field, drops the others and runs GCs; at the next stop the debugger lists the
instances again.  The reference lists the kept thread alone; jdwpd's thread records held every
thread they had ever seen strongly, and it listed all 15.  The ids the debugger still holds answer
as the reference answers: for the ended thread kept by the program, and for a collected one.
Raw client, reference and jdwpd.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "heap_java"
TIMEOUT = 30


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(SOURCES)


async def stop_at(c, class_id: int, method: str, marker: str) -> None:
    await c.break_once(class_id, method, debuggees.marker_line(SOURCES / "Churn.java", marker))


async def churn_threads(c, thread_class: int) -> dict[str, int]:
    """The program's churn threads among the instances of java.lang.Thread: name -> id."""
    instances = (await c.command("ReferenceType", "Instances", ref_type=thread_class, max_instances=0)).instances
    named = {}
    for inst in instances:
        code, r = await c.command_raw("ThreadReference", "Name", thread=inst.instance.object_id)
        name = "" if code else r.thread_name  # a server's own threads answer INVALID_THREAD
        if name.startswith("churn-"):
            named[name] = inst.instance.object_id
    return named


async def answers_for(c, thread: int) -> dict[str, object]:
    out: dict[str, object] = {}
    code, r = await c.command_raw("ThreadReference", "Name", thread=thread)
    out["Name"] = code or r.thread_name
    code, r = await c.command_raw("ThreadReference", "Status", thread=thread)
    out["Status"] = code or (r.thread_status, r.suspend_status)
    code, r = await c.command_raw("ThreadReference", "SuspendCount", thread=thread)
    out["SuspendCount"] = code or r.suspend_count
    code, r = await c.command_raw("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1)
    out["Frames"] = code or len(r.frames)
    code, r = await c.command_raw("ThreadReference", "ThreadGroup", thread=thread)
    out["ThreadGroup"] = code or bool(r.group)
    code, r = await c.command_raw("ObjectReference", "IsCollected", object=thread)
    out["IsCollected"] = code or r.is_collected
    code, _ = await c.command_raw("ThreadReference", "Suspend", thread=thread)
    out["Suspend"] = code
    code, r = await c.command_raw("ThreadReference", "SuspendCount", thread=thread)
    out["SuspendCount after Suspend"] = code or r.suspend_count
    code, _ = await c.command_raw("ThreadReference", "Resume", thread=thread)
    out["Resume"] = code
    return out


async def ended_threads(kind: str, classes: Path) -> dict:
    facts: dict = {}
    async with jvm.open_jvm(kind, classes, "Churn") as vm:
        try:
            async with open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
                await c.wait_for_event(EventKind.VM_START, TIMEOUT)
                ev = await c.run_to_prepare("Churn", TIMEOUT)
                await stop_at(c, ev.type_id, "listed", "LISTED")
                await stop_at(c, ev.type_id, "collected", "COLLECTED")
                await c.command("VirtualMachine", "Resume")
                await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
                thread_class = (await c.command("VirtualMachine", "ClassesBySignature",
                                                signature="Ljava/lang/Thread;")).classes[0].type_id
                listed = await churn_threads(c, thread_class)
                facts["listed"] = sorted(listed)
                await c.command("VirtualMachine", "Resume")
                await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
                facts["at the next stop"] = sorted(await churn_threads(c, thread_class))
                facts["ended, kept by the program"] = await answers_for(c, listed["churn-0"])
                facts["ended, collected"] = await answers_for(c, listed["churn-1"])
                await c.command("VirtualMachine", "Resume")
                await c.wait_for_event(EventKind.VM_DEATH, TIMEOUT)
            facts["exit"] = await vm.wait_exit(TIMEOUT)
        except BaseException as e:
            e.add_note(f"debuggee ({kind}) output:\n{vm.output.describe()}")
            raise
    return facts


async def test_ended_threads_are_collected(classes):
    reference = await ended_threads("reference", classes)
    assert reference["listed"] == sorted(f"churn-{i}" for i in range(15))
    assert reference["at the next stop"] == ["churn-0"]
    assert reference["exit"] == 0
    assert await ended_threads("jdwpd", classes) == reference
