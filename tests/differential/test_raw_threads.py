"""Threads and monitors through our raw client, reference agent vs jdwpd: identical answers.

tests/java/Threads.java puts threads in every state (sleeping, waiting, blocked on a
monitor main holds, parked, in a group of its own) and stops at THREADS_IN_PLACE.
There the session asks, for each thread in name order: Status, SuspendCount,
ThreadGroup, FrameCount, top frame, OwnedMonitors(+StackDepthInfo),
CurrentContendedMonitor; MonitorInfo of both lock objects; the thread group tree;
then suspends and resumes single threads and the VM, checking counts, and
lets the program end.
"""

from __future__ import annotations

import pytest
import trio

from jdwpd.testing.client import JdwpClient
from jdwpd.testing.transcript import Transcript, debuggee_session
from protocol import messages
from protocol.constants import EventKind, SuspendPolicy, TypeTag
from protocol.wire import Location

pytestmark = pytest.mark.jvm

M = messages.Modifiers
OURS = {"sleeper", "waiter", "blocked", "parked", "grouped", "main"}


async def stop_at(c: JdwpClient, t: Transcript, cls: str, line: int) -> tuple[int, int]:
    """Run to ``line`` of class ``cls``: (thread, class id)."""
    await t.cmd(c, "EventRequest", "Set", "prepare", event_kind=EventKind.CLASS_PREPARE,
                suspend_policy=SuspendPolicy.EVENT_THREAD, modifiers=[M.ClassMatch(class_pattern=cls)], must=True)
    await t.cmd(c, "VirtualMachine", "Resume", must=True)
    _policy, events = await c.wait_for_event(EventKind.CLASS_PREPARE, timeout=30)
    type_id = events[0].type_id
    for method in (await c.command("ReferenceType", "Methods", ref_type=type_id)).declared:
        table = await c.command("Method", "LineTable", ref_type=type_id, method_id=method.method_id)
        indexes = [li.line_code_index for li in table.lines if li.line_number == line]
        if indexes:
            where = Location(TypeTag.CLASS, type_id, method.method_id, min(indexes))
            break
    await t.cmd(c, "EventRequest", "Set", "breakpoint", event_kind=EventKind.BREAKPOINT,
                suspend_policy=SuspendPolicy.ALL, modifiers=[M.LocationOnly(loc=where)], must=True)
    await t.cmd(c, "VirtualMachine", "Resume", must=True)
    policy, events = await c.wait_for_event(EventKind.BREAKPOINT, timeout=60)
    t.add("breakpoint", (policy, events))
    return events[0].thread, type_id


async def scenario(c: JdwpClient, m: dict[str, int]) -> list:
    t = Transcript()
    await c.next_event(timeout=30)  # VMStart
    main, threads_class = await stop_at(c, t, "Threads", m["THREADS_IN_PLACE"])

    by_name = {}
    for th in (await c.command("VirtualMachine", "AllThreads")).threads:
        by_name[(await c.command("ThreadReference", "Name", thread=th.thread)).thread_name] = th.thread
    assert OURS <= set(by_name), sorted(by_name)
    for name in sorted(OURS):
        tid = by_name[name]
        t.add(f"thread {name}", {"thread": tid})
        for cmd in ("Status", "SuspendCount", "ThreadGroup", "FrameCount", "OwnedMonitors",
                    "OwnedMonitorsStackDepthInfo", "CurrentContendedMonitor"):
            await t.cmd(c, "ThreadReference", cmd, name, thread=tid)
        await t.cmd(c, "ThreadReference", "Frames", f"{name} top", thread=tid, start_frame=0, length=1)

    fields = (await c.command("ReferenceType", "Fields", ref_type=threads_class)).declared
    locks = [f for f in fields if f.name in ("held", "waitedOn")]
    values = await t.cmd(c, "ReferenceType", "GetValues", "locks", ref_type=threads_class,
                         fields=[f.field_id for f in locks], must=True)
    for f, v in zip(locks, values.values, strict=True):
        await t.cmd(c, "ObjectReference", "MonitorInfo", f.name, object=v.value.value)

    group = (await c.command("ThreadReference", "ThreadGroup", thread=by_name["grouped"])).group
    await t.cmd(c, "ThreadGroupReference", "Name", "grouped's", group=group)
    parent = await t.cmd(c, "ThreadGroupReference", "Parent", "grouped's", group=group, must=True)
    await t.cmd(c, "ThreadGroupReference", "Name", "its parent", group=parent.parent_group)
    children = await c.command("ThreadGroupReference", "Children", group=parent.parent_group)
    child_threads = sorted([(await c.command("ThreadReference", "Name", thread=x.child_thread)).thread_name
                            for x in children.child_threads])
    child_groups = sorted([(await c.command("ThreadGroupReference", "Name", group=x.child_group)).group_name
                           for x in children.child_groups])
    t.add("main group's children (names, sorted)", {"threads": child_threads, "groups": child_groups})

    # Suspension counts on top of the breakpoint's SUSPEND_ALL, then undone step by step.
    sleeper = by_name["sleeper"]

    async def counts(label: str) -> None:
        await t.cmd(c, "ThreadReference", "SuspendCount", f"sleeper {label}", thread=sleeper)
        await t.cmd(c, "ThreadReference", "SuspendCount", f"main {label}", thread=main)

    await t.cmd(c, "ThreadReference", "Suspend", "sleeper", thread=sleeper)
    await t.cmd(c, "ThreadReference", "Suspend", "sleeper again", thread=sleeper)
    await counts("+2")
    await t.cmd(c, "VirtualMachine", "Suspend", "all")
    await counts("+2, VM +1")
    await t.cmd(c, "VirtualMachine", "Resume", "all")
    await counts("+2 again")
    await t.cmd(c, "ThreadReference", "Resume", "sleeper", thread=sleeper)
    await t.cmd(c, "ThreadReference", "Resume", "sleeper", thread=sleeper)
    await t.cmd(c, "ThreadReference", "Resume", "sleeper, the breakpoint's", thread=sleeper)
    await counts("sleeper 0")
    await t.cmd(c, "ThreadReference", "Resume", "sleeper not suspended", thread=sleeper)
    await t.cmd(c, "ThreadReference", "Status", "sleeper running", thread=sleeper)
    await t.cmd(c, "ThreadReference", "Status", "main still at the breakpoint", thread=main)
    await t.cmd(c, "VirtualMachine", "Resume", "to the end")
    t.add("last event", await c.wait_for_event(EventKind.VM_DEATH, timeout=60))
    return t.steps


async def run_session(kind: str, classes, markers: dict[str, int]) -> list:
    async with debuggee_session(kind, classes, "Threads") as c:
        steps = await scenario(c, markers)
    return steps


@pytest.fixture(scope="module")
def reference_threads(sample_classes, sample_markers) -> list:
    return trio.run(run_session, "reference", sample_classes, sample_markers)


def test_reference_threads_are_sane(reference_threads):
    steps = dict(reference_threads)
    status = {name: steps[f"ThreadReference.Status {name}"]["thread_status"] for name in OURS}
    assert status == {"sleeper": 2, "grouped": 2, "waiter": 4, "parked": 4, "blocked": 3, "main": 1}
    assert all(steps[f"ThreadReference.Status {name}"]["suspend_status"] == 1 for name in OURS)
    assert steps["ThreadReference.OwnedMonitors main"]["owned"] != []
    assert steps["ThreadReference.CurrentContendedMonitor blocked"]["monitor"].startswith("L:obj#")
    assert steps["ObjectReference.MonitorInfo held"]["entry_count"] == 1
    assert steps["ThreadReference.SuspendCount sleeper +2, VM +1"]["suspend_count"] == 4
    assert steps["ThreadReference.SuspendCount main +2, VM +1"]["suspend_count"] == 2
    assert steps["ThreadReference.SuspendCount sleeper sleeper 0"]["suspend_count"] == 0
    assert steps["ThreadReference.SuspendCount main sleeper 0"]["suspend_count"] == 1
    assert "grouped-threads" in steps["main group's children (names, sorted)"]["groups"]


def test_raw_threads_match_reference(server_kind_vs_recording, reference_threads, sample_classes, sample_markers):
    """Against the reference itself this checks that the transcript is deterministic."""
    ours = trio.run(run_session, server_kind_vs_recording, sample_classes, sample_markers)
    for (label, expected), (our_label, got) in zip(reference_threads, ours, strict=False):
        assert (our_label, got) == (label, expected)
    assert len(ours) == len(reference_threads)
