"""Threads and frames: ThreadReference and StackFrame sets, monitors, Stop, Interrupt, PopFrames, early return."""

from __future__ import annotations

import trio

from protocol.constants import (
    EventKind,
    InvokeOptions,
    ModKind,
    StepDepth,
    StepSize,
    SuspendPolicy,
    Tag,
    ThreadStatus,
)
from tests.conformance.registry import scenario

BAD = 0x7EADBEEF


async def _thread_named(t, name: str) -> int:
    for th in (await t.client.command("VirtualMachine", "AllThreads")).threads:
        if (await t.client.command("ThreadReference", "Name", thread=th.thread)).thread_name == name:
            return th.thread
    raise AssertionError(f"no thread {name}")


async def _conf_string(t, conf: int) -> int:
    return (await t.client.command("ObjectReference", "GetValues", object=await _conf_object(t, conf),
                                   fields=[{"field_id": (await t.fields(conf))["label"].field_id}])
            ).values[0].value.value


async def _conf_object(t, conf: int) -> int:
    return (await t.client.command("ReferenceType", "Instances", ref_type=conf, max_instances=1)
            ).instances[0].instance.object_id


@scenario(debuggee="conf", main="Conf", commands=[
    "ThreadReference.Name", "ThreadReference.Suspend", "ThreadReference.Resume", "ThreadReference.Status",
    "ThreadReference.ThreadGroup", "ThreadReference.Frames", "ThreadReference.FrameCount",
    "ThreadReference.OwnedMonitors", "ThreadReference.CurrentContendedMonitor", "ThreadReference.SuspendCount",
    "ThreadReference.OwnedMonitorsStackDepthInfo", "ThreadReference.IsVirtual", "ObjectReference.MonitorInfo",
    "StackFrame.GetValues", "StackFrame.ThisObject", "StackFrame.SetValues", "StackFrame.PopFrames",
    "ThreadReference.ForceEarlyReturn", "ClassType.InvokeMethod",
])
async def threads_holding_and_blocked(t):
    """Main holds a monitor another thread is blocked on: states, monitors, frames, suspension; bad ids."""
    conf = await t.start("Conf")
    bp = await t.run_to(conf, "C_HOLDING")
    main = bp.thread
    contender = await _thread_named(t, "contender")
    string_id = await _conf_string(t, conf)
    lock_field = (await t.fields(conf))["lock"].field_id
    lock = (await t.client.command("ReferenceType", "GetValues", ref_type=conf,
                                   fields=[{"field_id": lock_field}])).values[0].value.value
    for who, th in (("main", main), ("contender", contender)):
        for name in ("Name", "Status", "ThreadGroup", "FrameCount", "SuspendCount", "IsVirtual", "OwnedMonitors",
                     "CurrentContendedMonitor", "OwnedMonitorsStackDepthInfo"):
            await t.cmd("ThreadReference", name, thread=th, note=who)
        for start, length in ((0, -1), (1, 2), (0, 0)):
            await t.ok("ThreadReference", "Frames", thread=th, start_frame=start, length=length,
                       note=f"{who} {start},{length}")
    count = (await t.client.command("ThreadReference", "FrameCount", thread=main)).frame_count
    for start, length, why in ((count, 0, "at the end"), (count, 1, "past the end"), (0, count + 1, "too long"),
                               (-1, 1, "negative start"), (0, -2, "length -2")):
        await t.cmd("ThreadReference", "Frames", thread=main, start_frame=start, length=length, note=why)
    await t.ok("ObjectReference", "MonitorInfo", object=lock, note="the held lock")
    contender_top = (await t.frames(contender))[0].frame_id
    # A frame id used with another thread than the one it came from.
    main_top = (await t.frames(main))[0].frame_id
    await t.cmd("StackFrame", "ThisObject", thread=contender, frame=main_top, note="main's frame id")
    await t.cmd("StackFrame", "GetValues", thread=contender, frame=main_top, slots=[(0, Tag.OBJECT)],
                note="main's frame id")
    await t.cmd("StackFrame", "ThisObject", thread=main, frame=contender_top, note="the contender's frame id")
    # Suspension counts, per thread, on top of the breakpoint's suspend-all.
    await t.ok("ThreadReference", "Suspend", thread=contender)
    await t.ok("ThreadReference", "SuspendCount", thread=contender, note="suspended twice")
    await t.ok("ThreadReference", "Resume", thread=contender)
    await t.ok("ThreadReference", "Resume", thread=contender, note="running now")
    await t.ok("ThreadReference", "SuspendCount", thread=contender, note="running")
    await t.ok("ThreadReference", "Resume", thread=contender, note="not suspended")
    await t.ok("ThreadReference", "SuspendCount", thread=contender, note="still 0")
    # A running (blocked) thread: what needs suspension says so.
    for name in ("Frames", "FrameCount", "OwnedMonitors", "CurrentContendedMonitor", "OwnedMonitorsStackDepthInfo"):
        fields = {"start_frame": 0, "length": -1} if name == "Frames" else {}
        await t.cmd("ThreadReference", name, thread=contender, note="not suspended", **fields)
    await t.ok("ThreadReference", "Status", thread=contender, note="not suspended")
    # Its frame ids from before the resume, and frame commands on a thread that runs.
    await t.cmd("StackFrame", "GetValues", thread=contender, frame=contender_top, slots=[(0, Tag.INT)],
                note="not suspended")
    await t.cmd("StackFrame", "ThisObject", thread=contender, frame=contender_top, note="not suspended")
    await t.cmd("StackFrame", "SetValues", thread=contender, frame=contender_top,
                slot_values=[(0, {"tag": Tag.INT, "value": 1})], note="not suspended")
    await t.cmd("StackFrame", "PopFrames", thread=contender, frame=contender_top, note="not suspended")
    await t.cmd("ThreadReference", "ForceEarlyReturn", thread=contender, value=(Tag.VOID, None),
                note="not suspended")
    twice = (await t.methods(conf))["twice"].method_id
    await t.cmd("ClassType", "InvokeMethod", clazz=conf, method_id=twice, arguments=[(Tag.INT, 1)],
                thread=contender, options=InvokeOptions.INVOKE_SINGLE_THREADED, note="not suspended")
    await t.ok("ObjectReference", "MonitorInfo", object=lock, note="contender running")
    await t.ok("ThreadReference", "Suspend", thread=contender, note="again")
    await t.ok("ThreadReference", "Status", thread=contender, note="suspended again")
    for bad, note in ((BAD, "unknown"), (string_id, "a string")):
        for name in ("Name", "Suspend", "Resume", "Status", "ThreadGroup", "FrameCount", "SuspendCount", "IsVirtual",
                     "OwnedMonitors", "CurrentContendedMonitor", "OwnedMonitorsStackDepthInfo"):
            await t.cmd("ThreadReference", name, thread=bad, note=note)
        await t.cmd("ThreadReference", "Frames", thread=bad, start_frame=0, length=-1, note=note)
    await t.to_the_end()


@scenario(debuggee="conf", main="Conf", commands=[
    "StackFrame.GetValues", "StackFrame.SetValues", "StackFrame.ThisObject", "StackFrame.PopFrames",
    "ThreadReference.ForceEarlyReturn", "ClassType.InvokeMethod",
], events=["BREAKPOINT", "SINGLE_STEP", "VM_DEATH"])
async def frames_locals_pop_and_early_return(t):
    """Locals read and written (bad slots, wrong tags, stale frames), PopFrames, ForceEarlyReturn."""
    conf = await t.start("Conf")
    bp = await t.run_to(conf, "C_BUMP")
    main = bp.thread
    frames = await t.frames(main)
    bump, caller = frames[0], frames[1]
    await t.ok("StackFrame", "ThisObject", thread=main, frame=bump.frame_id)
    await t.ok("StackFrame", "ThisObject", thread=main, frame=caller.frame_id, note="static main")
    # bump(int by): this in slot 0, by in slot 1; main(String[] args): args, conf.
    await t.ok("StackFrame", "GetValues", thread=main, frame=bump.frame_id, slots=[(0, Tag.OBJECT), (1, Tag.INT)])
    await t.ok("StackFrame", "GetValues", thread=main, frame=caller.frame_id,
               slots=[(0, Tag.ARRAY), (1, Tag.OBJECT)], note="main")
    for slots, why in (([(9, Tag.INT)], "no such slot"), ([(1, Tag.LONG)], "int as long"),
                       ([(1, Tag.OBJECT)], "int as object"), ([(0, Tag.INT)], "object as int"), ([], "none")):
        await t.cmd("StackFrame", "GetValues", thread=main, frame=bump.frame_id, slots=slots, note=why)
    await t.ok("StackFrame", "SetValues", thread=main, frame=bump.frame_id,
               slot_values=[(1, {"tag": Tag.INT, "value": 40})])
    await t.ok("StackFrame", "GetValues", thread=main, frame=bump.frame_id, slots=[(1, Tag.INT)], note="after set")
    string_id = await _conf_string(t, conf)
    for values, why in (([(0, {"tag": Tag.STRING, "value": string_id})], "a String into this"),
                        ([(1, {"tag": Tag.LONG, "value": 1})], "long into int"),
                        ([(9, {"tag": Tag.INT, "value": 1})], "no such slot"), ([], "none")):
        await t.cmd("StackFrame", "SetValues", thread=main, frame=bump.frame_id, slot_values=values, note=why)
    for name, fields in (("GetValues", {"slots": [(1, Tag.INT)]}), ("ThisObject", {})):
        await t.cmd("StackFrame", name, thread=main, frame=bump.frame_id + 1000, note="unknown frame", **fields)
        await t.cmd("StackFrame", name, thread=BAD, frame=bump.frame_id, note="unknown thread", **fields)
    # Frame ids across an invoke on the thread, and across suspensions that never let it run.
    twice = (await t.methods(conf))["twice"].method_id
    for options, why in ((InvokeOptions.INVOKE_SINGLE_THREADED, "single-threaded invoke"), (0, "invoke")):
        await t.ok("ClassType", "InvokeMethod", clazz=conf, method_id=twice, arguments=[(Tag.INT, 4)], thread=main,
                   options=options, note=why)
        await t.cmd("StackFrame", "GetValues", thread=main, frame=bump.frame_id, slots=[(1, Tag.INT)],
                    note=f"after a {why}")
        bump = (await t.frames(main))[0]
    for set_name in ("VirtualMachine", "ThreadReference"):
        fields = {"thread": main} if set_name == "ThreadReference" else {}
        await t.ok(set_name, "Suspend", **fields)
        await t.ok(set_name, "Resume", **fields)
        await t.cmd("StackFrame", "GetValues", thread=main, frame=bump.frame_id, slots=[(1, Tag.INT)],
                    note=f"after {set_name} Suspend and Resume")
    # Step into the field write, then use the old frame id (invalid after the resume).
    step = await t.set_request(EventKind.SINGLE_STEP, {"mod_kind": ModKind.STEP, "thread": main,
                                                       "size": StepSize.MIN, "depth": StepDepth.INTO},
                               policy=SuspendPolicy.ALL)
    await t.ok("VirtualMachine", "Resume")
    await t.event_of(EventKind.SINGLE_STEP, "min step")
    await t.ok("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=step)
    await t.cmd("StackFrame", "GetValues", thread=main, frame=bump.frame_id, slots=[(1, Tag.INT)], note="stale")
    # PopFrames at a breakpoint in twice (called by outer): the frames above the one popped go too.
    await t.run_to(conf, "C_TWICE")
    frames = await t.frames(main)
    await t.ok("StackFrame", "PopFrames", thread=main, frame=frames[0].frame_id)
    await t.ok("ThreadReference", "Frames", thread=main, start_frame=0, length=-1, note="after pop")
    await t.cmd("StackFrame", "PopFrames", thread=main, frame=frames[0].frame_id, note="stale")
    frames = await t.frames(main)
    await t.cmd("StackFrame", "PopFrames", thread=main, frame=frames[-1].frame_id, note="the last frame")
    frames = await t.frames(main)
    await t.cmd("StackFrame", "PopFrames", thread=main, frame=frames[0].frame_id + 1000, note="unknown frame")
    await t.cmd("StackFrame", "PopFrames", thread=BAD, frame=frames[0].frame_id, note="unknown thread")
    # ForceEarlyReturn from twice(5) (called again): outer then sees 99.
    await t.run_to(conf, "C_TWICE")
    for value, why in (((Tag.LONG, 1), "long for int"), ((Tag.OBJECT, 0), "null for int")):
        await t.cmd("ThreadReference", "ForceEarlyReturn", thread=main, value=value, note=why)
    await t.cmd("ThreadReference", "ForceEarlyReturn", thread=BAD, value=(Tag.INT, 99), note="unknown thread")
    await t.ok("ThreadReference", "ForceEarlyReturn", thread=main, value=(Tag.INT, 99))
    step = await t.set_request(EventKind.SINGLE_STEP, {"mod_kind": ModKind.STEP, "thread": main,
                                                       "size": StepSize.LINE, "depth": StepDepth.OVER},
                               policy=SuspendPolicy.ALL)
    await t.ok("VirtualMachine", "Resume")
    await t.event_of(EventKind.SINGLE_STEP, "back in outer")
    await t.ok("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=step)
    top = (await t.frames(main))[0]
    # Still on the line of the call: x is set, r not yet.
    await t.ok("StackFrame", "GetValues", thread=main, frame=top.frame_id, slots=[(0, Tag.INT)], note="x in outer")
    await t.cmd("StackFrame", "GetValues", thread=main, frame=top.frame_id, slots=[(1, Tag.INT)], note="r in outer")
    await t.to_the_end()


@scenario(debuggee="conf", main="Conf", args=("threads",), commands=[
    "ThreadReference.Stop", "ThreadReference.Interrupt", "ThreadReference.Status", "ClassType.NewInstance",
], events=["VM_DEATH"])
async def threads_stopped_and_interrupted(t):
    """Interrupt a sleeping thread, Stop another with an exception the debugger made; bad arguments."""
    conf = await t.start("Conf")
    bp = await t.run_to(conf, "C_PARKED")
    main = bp.thread
    sleeper, victim = await _thread_named(t, "sleeper"), await _thread_named(t, "victim")
    string_id = await _conf_string(t, conf)
    error_class = await t.class_id("Ljava/lang/RuntimeException;")
    ctor = (await t.methods(error_class))["<init>(Ljava/lang/String;)V"].method_id
    throwable = (await t.ok("ClassType", "NewInstance", clazz=error_class, method_id=ctor,
                            arguments=[(Tag.OBJECT, string_id)], thread=main,
                            options=InvokeOptions.INVOKE_SINGLE_THREADED)).new_object.object_id
    await t.ok("ObjectReference", "DisableCollection", object=throwable, record=False)
    for th, who in ((sleeper, "sleeper"), (victim, "victim")):
        await t.ok("ThreadReference", "Status", thread=th, note=who)
    # (A string as the throwable: the reference throws it; see test_conformance_differences.)
    await t.cmd("ThreadReference", "Stop", thread=victim, throwable=BAD, note="unknown throwable")
    await t.cmd("ThreadReference", "Stop", thread=BAD, throwable=throwable, note="unknown thread")
    await t.cmd("ThreadReference", "Stop", thread=string_id, throwable=throwable, note="a string as thread")
    await t.cmd("ThreadReference", "Interrupt", thread=BAD, note="unknown thread")
    await t.cmd("ThreadReference", "Interrupt", thread=string_id, note="a string as thread")
    await t.ok("ThreadReference", "Interrupt", thread=sleeper)
    await t.ok("ThreadReference", "Stop", thread=victim, throwable=throwable)
    await t.to_the_end()


@scenario(commands=["VirtualMachine.AllThreads", "ThreadReference.Name", "ThreadReference.Status",
                    "ThreadReference.SuspendCount", "ThreadReference.ThreadGroup", "ThreadReference.FrameCount"])
async def every_thread_at_a_breakpoint(t):
    """Every thread the VM shows at a suspend-all breakpoint: names, states, suspensions, groups, depths."""
    sample = await t.start("Sample")
    await t.run_to(sample, "TOTAL_AREA_LOOP")
    threads = (await t.ok("VirtualMachine", "AllThreads", record=False)).threads
    rows = []
    for th in threads:
        tid = th.thread
        name = (await t.client.command("ThreadReference", "Name", thread=tid)).thread_name
        status = await t.client.command("ThreadReference", "Status", thread=tid)
        count = (await t.client.command("ThreadReference", "SuspendCount", thread=tid)).suspend_count
        group = (await t.client.command("ThreadReference", "ThreadGroup", thread=tid)).group
        group_name = (await t.client.command("ThreadGroupReference", "Name", group=group)).group_name
        code, frames = await t.client.command_raw("ThreadReference", "FrameCount", thread=tid)
        rows.append((name, int(status.thread_status), int(status.suspend_status), count, group_name,
                     frames.frame_count if code == 0 else f"error {code}"))
    rows.sort()
    t.note("VirtualMachine.AllThreads", "names", [r[0] for r in rows])
    for key, column in (("ThreadReference.Name", 0), ("ThreadReference.Status", 1), ("ThreadReference.Status", 2),
                        ("ThreadReference.SuspendCount", 3), ("ThreadReference.ThreadGroup", 4),
                        ("ThreadReference.FrameCount", 5)):
        t.note(key, f"column {column}", [(r[0], r[column]) for r in rows])
    await t.to_the_end()


async def _until_waiting(t, thread: int) -> None:
    """Until the thread (let run alone) waits: it has then reached its Object.wait."""
    with trio.fail_after(10):
        while (await t.client.command("ThreadReference", "Status", thread=thread)).thread_status != ThreadStatus.WAIT:
            await trio.sleep(0.02)


_FRAME_COMMANDS = ("GetValues", "GetValues none", "SetValues", "SetValues none", "ThisObject", "PopFrames")


async def _frame_commands(t, thread: int, frame: int, note: str, pop: bool = True) -> None:
    """The four StackFrame commands with one (thread, frame id), with and without slots."""
    for name in _FRAME_COMMANDS if pop else _FRAME_COMMANDS[:-1]:
        fields = {"GetValues": {"slots": [(0, Tag.INT)]}, "GetValues none": {"slots": []},
                  "SetValues": {"slot_values": [(0, {"tag": Tag.INT, "value": 1})]},
                  "SetValues none": {"slot_values": []}}.get(name, {})
        await t.cmd("StackFrame", name.split()[0], thread=thread, frame=frame,
                    note=f"{note}{', none' if name.endswith('none') else ''}", **fields)


@scenario(commands=["StackFrame.GetValues", "StackFrame.SetValues", "StackFrame.ThisObject", "StackFrame.PopFrames",
                    "ClassType.InvokeMethod"], events=["BREAKPOINT"])
async def frames_stale_foreign_deep_and_garbage(t):
    """Frame ids the thread no longer has: from an earlier suspension, of an ended thread (suspended since
    or not), deeper than the stack, of another thread, made up; each of the four StackFrame commands."""
    sample = await t.start("Sample")
    main = (await t.run_to(sample, "FACT_BASE")).thread
    # Threads suspended and resumed together share a generation there: main's frame ids name frames of
    # the JDK's own threads (their depth 0 is a native wait; their stacks are shorter than main's).
    frames = await t.frames(main)
    for name in ("Reference Handler", "Finalizer", "Signal Dispatcher"):
        other = await _thread_named(t, name)
        for frame, why in ((frames[0].frame_id, "main's top frame"), (frames[-1].frame_id, "main's bottom frame")):
            await _frame_commands(t, other, frame, f"{why} for {name}", pop=False)
    # One frame popped, then two (factorial(1), called by factorial(2)): the generations that follow.
    for depth, why in ((0, "one frame"), (1, "two frames")):
        frames = await t.frames(main)
        base = frames[0].frame_id & ~0xFFFF
        await t.ok("StackFrame", "PopFrames", thread=main, frame=frames[depth].frame_id, note=why)
        for later in range(5):
            await t.cmd("StackFrame", "ThisObject", thread=main, frame=base + (later << 16),
                        note=f"generation +{later} after a pop of {why}")
    main = (await t.run_to(sample, "COMPUTE_START")).thread
    # Invokes on the thread, single-threaded or not: the generations that follow.
    factorial = (await t.methods(sample))["factorial"].method_id
    for options, why in ((InvokeOptions.INVOKE_SINGLE_THREADED, "a single-threaded invoke"), (0, "an invoke")):
        frames = await t.frames(main)
        base = frames[0].frame_id & ~0xFFFF
        await t.ok("ClassType", "InvokeMethod", clazz=sample, method_id=factorial, arguments=[(Tag.INT, 3)],
                   thread=main, options=options, note=why)
        for later in range(4):
            await t.cmd("StackFrame", "ThisObject", thread=main, frame=base + (later << 16),
                        note=f"generation +{later} after {why}")
    frames = await t.frames(main)
    base = frames[0].frame_id & ~0xFFFF  # the current generation, depth 0
    # (No PopFrames past the stack here: the reference pops Java frames until it meets the last one.)
    for depth, why in ((len(frames), "just past the stack"), (len(frames) + 5, "past the stack"),
                       (0xFFFF, "the deepest depth")):
        await _frame_commands(t, main, base | depth, why, pop=False)
    for frame, why in ((BAD, "made up"), (0, "zero"), (1, "one"), ((1 << 64) - 1, "all ones"),
                       (1 << 40, "a far generation")):
        await _frame_commands(t, main, frame, why)
    # A worker in its loop, while main waits for it: frame ids of one thread given with the other.
    rid = await t.breakpoint(sample, "WORK_LOOP", SuspendPolicy.ALL, {"mod_kind": ModKind.COUNT, "count": 1})
    await t.ok("VirtualMachine", "Resume")
    worker = (await t.event_of(EventKind.BREAKPOINT, "WORK_LOOP")).thread
    await t.ok("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=rid)
    worker_frames, main_frames = await t.frames(worker), await t.frames(main)
    await _frame_commands(t, main, worker_frames[0].frame_id, "the worker's top frame", pop=False)
    await _frame_commands(t, worker, main_frames[0].frame_id, "main's top frame", pop=False)
    # An earlier suspension of a live thread: main let run on its own until it waits in join, suspended again.
    await t.ok("ThreadReference", "Resume", thread=main)
    await _until_waiting(t, main)
    await t.ok("ThreadReference", "Suspend", thread=main)
    await _frame_commands(t, main, main_frames[-2].frame_id, "before main's resume")
    await _frame_commands(t, main, main_frames[-1].frame_id, "before main's resume, its bottom frame")
    again = await t.frames(main)
    await _frame_commands(t, worker, again[0].frame_id, "main's new top frame", pop=False)
    await _frame_commands(t, main, again[-2].frame_id, "main's new frame of workers()", pop=False)
    # Main waits in Object.wait, a native frame: a pop past its stack stops there at once.
    base = again[0].frame_id & ~0xFFFF
    for depth, why in ((len(again) - 1, "main's last frame"), (len(again), "just past main's stack"),
                       (0xFFFF, "main's deepest depth")):
        await t.cmd("StackFrame", "PopFrames", thread=main, frame=base | depth, note=why)
        await t.cmd("StackFrame", "ThisObject", thread=main, frame=again[-2].frame_id,
                    note=f"after a PopFrames of {why}")
    await t.ok("ThreadReference", "Resume", thread=main)
    # The worker ends: its frame ids, and ids of the first generation of a count.
    await t.run_to(sample, "WORKERS_JOINED")
    ended = ((worker_frames[0].frame_id, "ended, frame of its stop"),
             (worker_frames[-1].frame_id, "ended, bottom frame"),
             (0, "ended, zero"), (3, "ended, depth 3"), (1 << 16, "ended, generation one"), (BAD, "ended, made up"))
    for frame, why in ended:
        await _frame_commands(t, worker, frame, why)
    await t.ok("ThreadReference", "Suspend", thread=worker, note="ended")
    for frame, why in ended:
        # (PopFrames here kills the reference's VM: tests/commands/test_ended_thread.py.)
        await _frame_commands(t, worker, frame, f"{why}, suspended", pop=False)
    await t.ok("ThreadReference", "Resume", thread=worker, note="ended")
    await t.to_the_end()
