"""A thread that has ended (TERMINATED, its object still reachable): what every thread command answers.

The reference keeps a suspend count for a thread outside its start and end events too (a Suspend of an
ended thread counts, though JVMTI cannot suspend it), and checks that count before it asks JVMTI: so
the same command answers THREAD_NOT_SUSPENDED or INVALID_THREAD depending on what the debugger did to
the ended thread before.  The scenario asks each command at each count, 0, 1 and 2, and after resumes.
"""

from __future__ import annotations

from protocol.constants import EventKind, ModKind, SuspendPolicy, Tag
from tests.conformance.registry import scenario

E = EventKind

# Commands with the thread as their only argument.
_THREAD_ONLY = ("Status", "ThreadGroup", "SuspendCount", "FrameCount", "OwnedMonitors",
                "CurrentContendedMonitor", "OwnedMonitorsStackDepthInfo", "IsVirtual")


async def _ask_all(t, thread: int, frame: int, throwable: int, note: str, pop: bool = False) -> None:
    # Which worker comes first is a race: its name is recorded as what it starts with.
    code, reply = await t.cmd("ThreadReference", "Name", thread=thread, record=False)
    t.note("ThreadReference.Name", note, (code, reply.thread_name.startswith("worker-") if reply else None))
    for name in _THREAD_ONLY:
        await t.cmd("ThreadReference", name, thread=thread, note=note)
    await t.cmd("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1, note=note)
    await t.cmd("ThreadReference", "Frames", thread=thread, start_frame=0, length=1, note=f"{note}, one")
    await t.cmd("ThreadReference", "ForceEarlyReturn", thread=thread, value=(Tag.VOID, None),
                note=note)
    await t.cmd("StackFrame", "GetValues", thread=thread, frame=frame, slots=[(0, Tag.INT)],
                note=note)
    await t.cmd("StackFrame", "ThisObject", thread=thread, frame=frame, note=note)
    if pop:
        # Only at a count of 0: with one, the reference's PopFrames kills the VM (JDK 17: "JDWP exit
        # error AGENT_ERROR_INVALID_THREAD", then a crash in threadControl_popFrames); jdwpd's answer
        # there is in tests/commands/test_ended_thread.py.
        await t.cmd("StackFrame", "PopFrames", thread=thread, frame=frame, note=note)
    await t.cmd("ThreadReference", "Interrupt", thread=thread, note=note)
    await t.cmd("ThreadReference", "Stop", thread=thread, throwable=throwable, note=note)


@scenario(commands=[
    "ThreadReference.Name", "ThreadReference.Suspend", "ThreadReference.Resume", "ThreadReference.Status",
    "ThreadReference.ThreadGroup", "ThreadReference.Frames", "ThreadReference.FrameCount",
    "ThreadReference.OwnedMonitors", "ThreadReference.CurrentContendedMonitor", "ThreadReference.Stop",
    "ThreadReference.Interrupt", "ThreadReference.SuspendCount", "ThreadReference.OwnedMonitorsStackDepthInfo",
    "ThreadReference.ForceEarlyReturn", "ThreadReference.IsVirtual", "StackFrame.GetValues",
    "StackFrame.ThisObject", "StackFrame.PopFrames", "VirtualMachine.Suspend", "VirtualMachine.Resume",
])
async def threads_ended(t):
    """Every thread command on a worker that has ended, before and after it is suspended and resumed."""
    sample = await t.start("Sample")
    # A throwable for Stop: the exception catcher() catches, kept from collection.
    rid = await t.set_request(E.EXCEPTION, {"mod_kind": ModKind.EXCEPTION_ONLY, "exception_or_null": 0,
                                            "caught": True, "uncaught": False},
                              {"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "Sample"},
                              {"mod_kind": ModKind.COUNT, "count": 1})
    await t.ok("VirtualMachine", "Resume")
    thrown = (await t.event_of(E.EXCEPTION, "the throwable")).exception.object_id
    await t.ok("ObjectReference", "DisableCollection", object=thrown, record=False)
    await t.ok("EventRequest", "Clear", event_kind=E.EXCEPTION, request_id=rid)
    # A worker in its loop: its id and a frame of it, kept for after its end.
    # (Count 1: the three workers reach the loop at once, and only one event may come.)
    rid = await t.breakpoint(sample, "WORK_LOOP", SuspendPolicy.ALL, {"mod_kind": ModKind.COUNT, "count": 1})
    await t.ok("VirtualMachine", "Resume")
    worker = (await t.event_of(E.BREAKPOINT, "WORK_LOOP")).thread
    await t.ok("EventRequest", "Clear", event_kind=E.BREAKPOINT, request_id=rid)
    frame = (await t.frames(worker))[0].frame_id
    await t.run_to(sample, "WORKERS_JOINED")
    with t.isolated():
        await _ask_all(t, worker, frame, thrown, "ended", pop=True)
    await t.ok("ThreadReference", "Suspend", thread=worker, note="ended")
    with t.isolated():
        await _ask_all(t, worker, frame, thrown, "ended, suspended once")
    await t.ok("ThreadReference", "Suspend", thread=worker, note="ended, again")
    await t.ok("ThreadReference", "SuspendCount", thread=worker, note="ended, suspended twice")
    await t.ok("ThreadReference", "Resume", thread=worker, note="ended, suspended twice")
    await t.ok("ThreadReference", "SuspendCount", thread=worker, note="ended, resumed once of two")
    await t.cmd("ThreadReference", "FrameCount", thread=worker, note="ended, resumed once of two")
    await t.ok("ThreadReference", "Resume", thread=worker, note="ended, resumed twice of two")
    with t.isolated():
        await _ask_all(t, worker, frame, thrown, "ended, resumed")
    await t.ok("ThreadReference", "Resume", thread=worker, note="ended, resumed once more")
    await t.ok("ThreadReference", "SuspendCount", thread=worker, note="ended, resumed once more")
    # The VM's suspensions and resumptions, with the ended thread suspended on its own or not (main stays
    # suspended by the breakpoint throughout).
    await t.ok("VirtualMachine", "Suspend", note="with an ended thread")
    await t.ok("ThreadReference", "SuspendCount", thread=worker, note="ended, VM suspended")
    await t.ok("VirtualMachine", "Resume", note="with an ended thread")
    await t.ok("ThreadReference", "SuspendCount", thread=worker, note="ended, VM resumed")
    await t.ok("ThreadReference", "Suspend", thread=worker, note="ended, before the VM's suspension")
    await t.ok("VirtualMachine", "Suspend", note="with an ended thread suspended")
    await t.ok("ThreadReference", "SuspendCount", thread=worker, note="ended, suspended, VM suspended")
    await t.ok("VirtualMachine", "Resume", note="with an ended thread suspended")
    await t.ok("ThreadReference", "SuspendCount", thread=worker, note="ended, after the VM's resume")
    await t.cmd("ThreadReference", "Frames", thread=worker, start_frame=0, length=-1, note="after the VM's resume")
    await t.to_the_end()


async def _held_at_death(t, policy: int) -> None:
    """Run Sample to its end with a VMDeath request of ``policy``; look at the held VM; resume it."""
    await t.start("Sample")
    await t.set_request(E.VM_DEATH, policy=policy)
    await t.ok("VirtualMachine", "Resume")
    while True:  # Sample's own stops: none are asked for, but its uncaught exception ends a thread
        _, events = await t.event("to the end")
        if any(int(e.event_kind) == E.VM_DEATH for e in events):
            break
    threads = (await t.client.command("VirtualMachine", "AllThreads")).threads
    seen = []
    for th in threads:
        name = (await t.client.command("ThreadReference", "Name", thread=th.thread)).thread_name
        status = await t.client.command("ThreadReference", "Status", thread=th.thread)
        count = (await t.client.command("ThreadReference", "SuspendCount", thread=th.thread)).suspend_count
        frames = (await t.client.command("ThreadReference", "FrameCount", thread=th.thread)).frame_count
        seen.append((name, status.thread_status, status.suspend_status, count, frames))
    t.note("VirtualMachine.AllThreads", "held at VMDeath: name, status, suspended, count, frames", sorted(seen))
    await t.ok("VirtualMachine", "Resume", note="from VMDeath")
    await t.client.wait_closed(30)


@scenario(commands=["VirtualMachine.AllThreads", "VirtualMachine.Resume"], events=["VM_DEATH"])
async def vm_death_that_suspends_all_holds_the_vm(t):
    """A VMDeath request with SUSPEND_ALL holds the dying VM, every thread suspended, until the debugger
    resumes; meanwhile it answers as before (JDI's test scaffold looks at threads then)."""
    await _held_at_death(t, SuspendPolicy.ALL)


@scenario(commands=["VirtualMachine.AllThreads", "VirtualMachine.Resume"], events=["VM_DEATH"])
async def vm_death_that_suspends_its_thread_holds_the_vm(t):
    """EVENT_THREAD on VMDeath, an event without a thread: the reference suspends every thread too, and
    the composite says EVENT_THREAD."""
    await _held_at_death(t, SuspendPolicy.EVENT_THREAD)
