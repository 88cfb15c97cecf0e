"""Virtual threads (JDK 21+): one raw-client session, reference agent vs jdwpd, compared after normalization.

The debuggee (tests/java21/VirtualThreads.java, compiled with that JDK's javac --release 21) parks one
virtual thread for the whole session, runs work() in a second one and then in a platform thread.  The
session, run with and without the reference's includevirtualthreads=y (jdwpd: --include-virtual-threads):

- THREAD_START / THREAD_DEATH requests with and without PlatformThreadsOnly (each event's thread is
  named, asked IsVirtual and resumed); PlatformThreadsOnly with other kinds (refused);
- at a breakpoint in main: AllThreads, and the parked (unmounted) virtual thread: IsVirtual, Name,
  Status, SuspendCount, FrameCount, Frames, ThreadGroup;
- at a breakpoint in the virtual thread: the same, StackFrame.GetValues/ThisObject of its top frame,
  VirtualMachine.Suspend/Resume and ThreadReference.Suspend/Resume counted on both virtual threads,
  a line step over in it, then the breakpoint again in the platform thread.

Skipped, with the reason, where no JDK 21+ is installed (JAVA_HOME_21 or /usr/lib/jvm, see jdwpd.testing.jdks).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
import trio

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import debuggees, jdks, jvm
from jdwpd.testing.client import JdwpClient, open_jdwp_client
from jdwpd.testing.transcript import Transcript
from protocol import messages
from protocol.constants import ErrorCode, EventKind, StepDepth, StepSize, SuspendPolicy, TypeTag
from protocol.wire import Location

pytestmark = pytest.mark.jvm

M = messages.Modifiers
E = EventKind
SOURCES = Path(__file__).resolve().parents[1] / "java21"
MAIN = "VirtualThreads"
# The program's own threads; the JVM's (carrier pool workers above all) come and go with timing.
OURS = ("main", "pt-worker", "vt-sleeper", "vt-worker")
THREAD_KINDS = (E.THREAD_START, E.THREAD_DEATH)


@pytest.fixture(scope="module")
def jdk21() -> jdks.Jdk:
    jdk = jdks.find_jdk(21)
    if jdk is None:
        pytest.skip(jdks.missing_reason(21))
    return jdk


@pytest.fixture(scope="module")
def vt_classes(jdk21) -> Path:
    return debuggees.compile_sources(SOURCES, javac=jdk21.javac, release="21")


@pytest.fixture(scope="module")
def vt_markers() -> dict[str, int]:
    return debuggees.markers(SOURCES / "VirtualThreads.java")


class Session:
    def __init__(self, c: JdwpClient, markers: dict[str, int]) -> None:
        self.c = c
        self.m = markers
        self.t = Transcript()
        self.labels: dict[int, str] = {}
        self.names: dict[str, int] = {}
        # (thread name, IsVirtual, event kind, labels of the requests it matched)
        self.thread_events: list[tuple[str, bool, str, tuple[str, ...]]] = []

    async def set(self, label: str, kind: int, policy: int, mods: list, *, must: bool = True):
        r = await self.t.cmd(self.c, "EventRequest", "Set", label, event_kind=kind, suspend_policy=policy,
                             modifiers=mods, must=must)
        if r is not None:
            self.labels[r.request_id] = label
        return r

    async def resume_vm(self, label: str) -> None:
        await self.t.cmd(self.c, "VirtualMachine", "Resume", label, must=True)

    async def pump(self, kind: int) -> tuple[int, tuple]:
        """Events up to the first composite that holds ``kind``.  Thread starts and deaths on the way
        (they come in an order timing decides) are noted, not recorded, and their thread resumed."""
        while True:
            policy, events = await self.c.next_event(timeout=60)
            if any(int(e.event_kind) == kind for e in events):
                return policy, events
            if not all(int(e.event_kind) in THREAD_KINDS for e in events):
                raise AssertionError(f"unexpected events while waiting for {E(kind).name}: {events}")
            thread = events[0].thread
            name = (await self.c.command("ThreadReference", "Name", thread=thread)).thread_name
            virtual = (await self.c.command("ThreadReference", "IsVirtual", thread=thread)).is_virtual
            self.names.setdefault(name, thread)
            self.thread_events.append((name, virtual, E(int(events[0].event_kind)).name,
                                       tuple(sorted(self.labels[e.request_id] for e in events))))
            if policy == SuspendPolicy.EVENT_THREAD:
                await self.c.command("ThreadReference", "Resume", thread=thread)

    async def to_main_class(self) -> tuple[int, Any]:
        """From VMStart to the ClassPrepare of MAIN (a SUSPEND_ALL request named "prepare"): its type id
        and that request."""
        await self.c.next_event(timeout=30)  # VMStart
        prepare = await self.set("prepare", E.CLASS_PREPARE, SuspendPolicy.ALL, [M.ClassMatch(class_pattern=MAIN)])
        await self.resume_vm("to the class")
        return (await self.pump(E.CLASS_PREPARE))[1][0].type_id, prepare

    async def location(self, type_id: int, marker: str) -> Location:
        line = self.m[marker]
        for method in (await self.c.command("ReferenceType", "Methods", ref_type=type_id)).declared:
            table = await self.c.command("Method", "LineTable", ref_type=type_id, method_id=method.method_id)
            indexes = [li.line_code_index for li in table.lines if li.line_number == line]
            if indexes:
                return Location(TypeTag.CLASS, type_id, method.method_id, min(indexes))
        raise AssertionError(f"no code on line {line} ({marker})")

    async def all_threads(self, label: str) -> None:
        names, virtual = [], 0
        for th in (await self.c.command("VirtualMachine", "AllThreads")).threads:
            name = (await self.c.command("ThreadReference", "Name", thread=th.thread)).thread_name
            virtual += (await self.c.command("ThreadReference", "IsVirtual", thread=th.thread)).is_virtual
            if name in OURS:
                names.append(name)
        self.t.add(f"AllThreads {label}: ours, and how many are virtual", {"ours": sorted(names), "virtual": virtual})

    async def describe(self, label: str, thread: int) -> None:
        for cmd in ("Name", "IsVirtual", "Status", "SuspendCount", "FrameCount"):
            await self.t.cmd(self.c, "ThreadReference", cmd, label, thread=thread)
        await self.t.cmd(self.c, "ThreadReference", "Frames", label, thread=thread, start_frame=0, length=-1)
        group = await self.t.cmd(self.c, "ThreadReference", "ThreadGroup", label, thread=thread, must=True)
        await self.t.cmd(self.c, "ThreadGroupReference", "Name", label, group=group.group)
        parent = await self.t.cmd(self.c, "ThreadGroupReference", "Parent", label, group=group.group, must=True)
        await self.t.cmd(self.c, "ThreadGroupReference", "Name", f"{label}, the parent", group=parent.parent_group)
        children = await self.t.cmd(self.c, "ThreadGroupReference", "Children", label, group=group.group)
        assert children is not None

    async def locals(self, label: str, thread: int) -> None:
        """The top frame's live variables (by the variable table), its `this`, the strings' text."""
        frame = (await self.t.cmd(self.c, "ThreadReference", "Frames", label, thread=thread, start_frame=0,
                                  length=1, must=True)).frames[0]
        loc = frame.location
        table = await self.c.command("Method", "VariableTable", ref_type=loc.class_id, method_id=loc.method_id)
        live = [v for v in table.slots if v.code_index <= loc.index < v.code_index + v.length]
        self.t.add(f"live variables {label}", sorted(v.name for v in live))
        values = await self.t.cmd(self.c, "StackFrame", "GetValues", label, thread=thread, frame=frame.frame_id,
                                  slots=[{"slot": v.slot, "sigbyte": ord(v.signature[0])} for v in live], must=True)
        await self.t.cmd(self.c, "StackFrame", "ThisObject", label, thread=thread, frame=frame.frame_id)
        for v, value in zip(live, values.values, strict=True):
            if v.signature == "Ljava/lang/String;":
                await self.t.cmd(self.c, "StringReference", "Value", f"{label} {v.name}",
                                 string_object=value.slot_value.value)

    async def counts(self, label: str, threads: dict[str, int]) -> None:
        for name, thread in threads.items():
            await self.t.cmd(self.c, "ThreadReference", "SuspendCount", f"{name} {label}", thread=thread)

    async def run(self) -> list:
        c, t = self.c, self.t
        await c.next_event(timeout=30)  # VMStart
        prepare = await self.set("prepare", E.CLASS_PREPARE, SuspendPolicy.ALL, [M.ClassMatch(class_pattern=MAIN)])
        for kind, name in ((E.THREAD_START, "start"), (E.THREAD_DEATH, "death")):
            await self.set(name, kind, SuspendPolicy.EVENT_THREAD, [])
            await self.set(f"{name} platform-only", kind, SuspendPolicy.EVENT_THREAD, [M.PlatformThreadsOnly()])
        for kind in (E.CLASS_PREPARE, E.EXCEPTION, E.METHOD_ENTRY, E.VM_DEATH):
            await self.set(f"{E(kind).name} platform-only", kind, SuspendPolicy.NONE, [M.PlatformThreadsOnly()],
                           must=False)

        await self.resume_vm("to the class")
        policy, events = await self.pump(E.CLASS_PREPARE)
        t.add("prepared", (policy, events))
        type_id = events[0].type_id
        await t.cmd(c, "EventRequest", "Clear", "prepare", event_kind=E.CLASS_PREPARE, request_id=prepare.request_id)
        work = await self.location(type_id, "VT_WORK")
        await self.set("main ready", E.BREAKPOINT, SuspendPolicy.ALL,
                       [M.LocationOnly(loc=await self.location(type_id, "VT_MAIN_READY"))])
        work_bp = await self.set("work", E.BREAKPOINT, SuspendPolicy.ALL, [M.LocationOnly(loc=work)])

        await self.resume_vm("to main ready")
        policy, events = await self.pump(E.BREAKPOINT)
        t.add("breakpoint in main", (policy, events))
        main = events[0].thread
        await self.all_threads("at main ready")
        sleeper = self.names["vt-sleeper"]
        await self.describe("vt-sleeper, parked", sleeper)

        await self.resume_vm("to work")
        policy, events = await self.pump(E.BREAKPOINT)
        t.add("breakpoint in vt-worker", (policy, events))
        worker = events[0].thread
        await self.describe("vt-worker at work", worker)
        await self.locals("vt-worker at work", worker)
        await self.all_threads("at work")
        ours = {"vt-worker": worker, "vt-sleeper": sleeper, "main": main}
        await self.counts("at work", ours)
        await t.cmd(c, "VirtualMachine", "Suspend", "at work", must=True)
        await self.counts("VM suspended", ours)
        await t.cmd(c, "VirtualMachine", "Resume", "the VM suspension", must=True)
        await self.counts("VM resumed", ours)
        await t.cmd(c, "ThreadReference", "Suspend", "vt-worker", thread=worker)
        await t.cmd(c, "ThreadReference", "Suspend", "vt-sleeper", thread=sleeper)
        await self.counts("each suspended once more", ours)
        await t.cmd(c, "ThreadReference", "Resume", "vt-worker", thread=worker)
        await t.cmd(c, "ThreadReference", "Resume", "vt-sleeper", thread=sleeper)
        await self.counts("each resumed once", ours)

        await t.cmd(c, "EventRequest", "Clear", "work", event_kind=E.BREAKPOINT, request_id=work_bp.request_id)
        step = await self.set("step over", E.SINGLE_STEP, SuspendPolicy.ALL,
                              [M.Step(thread=worker, size=StepSize.LINE, depth=StepDepth.OVER)])
        await self.resume_vm("to the step")
        t.add("step in vt-worker", await self.pump(E.SINGLE_STEP))
        await self.locals("vt-worker after the step", worker)
        await t.cmd(c, "EventRequest", "Clear", "step", event_kind=E.SINGLE_STEP, request_id=step.request_id)

        await self.set("work again", E.BREAKPOINT, SuspendPolicy.ALL, [M.LocationOnly(loc=work)])
        await self.resume_vm("to work in pt-worker")
        policy, events = await self.pump(E.BREAKPOINT)
        t.add("breakpoint in pt-worker", (policy, events))
        for cmd in ("Name", "IsVirtual"):
            await t.cmd(c, "ThreadReference", cmd, "pt-worker", thread=events[0].thread)
        await self.resume_vm("to the end")
        await self.pump(E.VM_DEATH)
        t.add("thread events of the program's threads", sorted(e for e in self.thread_events if e[0] in OURS))
        t.add("no PlatformThreadsOnly event of a virtual thread",
              [e for e in self.thread_events if e[1] and any("platform-only" in label for label in e[3])])
        return t.steps


MANY = 40


async def many_at_one_breakpoint(c: JdwpClient, markers: dict[str, int],
                                 policy: int = SuspendPolicy.EVENT_THREAD) -> list:
    """MANY virtual threads run into one breakpoint: each stop's thread name, IsVirtual, top-frame `n`,
    then that thread alone resumed (SUSPEND_EVENT_THREAD) or the VM (SUSPEND_ALL).  What the stops saw,
    in name order."""
    s = Session(c, markers)
    type_id, _ = await s.to_main_class()
    await s.set("work", E.BREAKPOINT, policy, [M.LocationOnly(loc=await s.location(type_id, "VT_WORK"))])
    await s.resume_vm("to the stops")
    seen = []
    for _ in range(MANY):
        stop_policy, events = await s.pump(E.BREAKPOINT)
        thread = events[0].thread
        name = (await c.command("ThreadReference", "Name", thread=thread)).thread_name
        virtual = (await c.command("ThreadReference", "IsVirtual", thread=thread)).is_virtual
        frame = (await c.command("ThreadReference", "Frames", thread=thread, start_frame=0, length=1)).frames[0]
        n = (await c.command("StackFrame", "GetValues", thread=thread, frame=frame.frame_id,
                             slots=[{"slot": 0, "sigbyte": ord("I")}])).values[0].slot_value.value
        seen.append((name, virtual, n, int(stop_policy)))
        if policy == SuspendPolicy.ALL:
            await c.command("VirtualMachine", "Resume")
        else:
            await c.command("ThreadReference", "Resume", thread=thread)
    await s.pump(E.VM_DEATH)
    return sorted(seen)


def command(kind: str, classes: Path, jdk: jdks.Jdk, include: bool, args: tuple[str, ...] = ()) -> list[str]:
    if kind == "reference":
        return jvm.reference_command(classes, MAIN, args, java=jdk.java,
                                     jdwp_options="includevirtualthreads=y" if include else "")
    return jvm.jdwpd_command(classes, MAIN, args, java=jdk.java,
                             launch_args=["--include-virtual-threads"] if include else [])


async def run_session(kind: str, classes: Path, jdk: jdks.Jdk, markers: dict[str, int], include: bool,
                      script=None, args: tuple[str, ...] = ()) -> list:
    async with jvm.open_command(kind, command(kind, classes, jdk, include, args)) as vm:
        try:
            async with open_jdwp_client(vm.host, vm.port) as c:
                steps = await (script(c, markers) if script else Session(c, markers).run())
            assert await vm.wait_exit(60) == 0
        except BaseException as e:
            e.add_note(f"debuggee ({kind}, includevirtualthreads={include}) output:\n{vm.output.describe()}")
            raise
    return steps


_reference_runs: dict[bool, list] = {}


@pytest.fixture(params=[False, True], ids=["default", "includevirtualthreads"])
def include(request) -> bool:
    return request.param


@pytest.fixture
def reference_steps(include, vt_classes, jdk21, vt_markers) -> list:
    if include not in _reference_runs:
        _reference_runs[include] = trio.run(run_session, "reference", vt_classes, jdk21, vt_markers, include)
    return _reference_runs[include]


def test_reference_facts(reference_steps, include):
    """What the comparison rests on, checked on the reference's own transcript."""
    steps = dict(reference_steps)
    refused = [steps[f"EventRequest.Set {k} platform-only"] for k in ("CLASS_PREPARE", "EXCEPTION", "METHOD_ENTRY")]
    assert refused == [{"error": ErrorCode.ILLEGAL_ARGUMENT}] * 3
    assert steps["ThreadReference.IsVirtual vt-worker at work"]["is_virtual"] is True
    assert steps["ThreadReference.IsVirtual vt-sleeper, parked"]["is_virtual"] is True
    assert steps["ThreadReference.IsVirtual pt-worker"]["is_virtual"] is False
    assert steps["ThreadGroupReference.Name vt-worker at work"]["group_name"] == "VirtualThreads"
    assert steps["ThreadGroupReference.Name vt-worker at work, the parent"]["group_name"] == "system"
    assert steps["ThreadGroupReference.Children vt-worker at work"]["child_threads"] == []
    listed = steps["AllThreads at work: ours, and how many are virtual"]
    assert listed == ({"ours": ["main", "vt-sleeper", "vt-worker"], "virtual": 2} if include else
                      {"ours": ["main"], "virtual": 0})
    assert steps["ThreadReference.SuspendCount vt-sleeper VM suspended"]["suspend_count"] == 2
    events = steps["thread events of the program's threads"]
    assert ["vt-worker", True, "THREAD_START", ["start"]] in events
    assert ["pt-worker", False, "THREAD_START", ["start", "start platform-only"]] in events
    assert steps["no PlatformThreadsOnly event of a virtual thread"] == []


def test_jdwpd_matches_reference(reference_steps, include, vt_classes, jdk21, vt_markers):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    ours = trio.run(run_session, "jdwpd", vt_classes, jdk21, vt_markers, include)
    for (label, expected), (our_label, got) in zip(reference_steps, ours, strict=False):
        assert (our_label, got) == (label, expected)
    assert len(ours) == len(reference_steps)


@pytest.mark.parametrize("policy", [SuspendPolicy.EVENT_THREAD, SuspendPolicy.ALL], ids=["event_thread", "all"])
def test_many_virtual_threads_at_one_breakpoint(vt_classes, jdk21, vt_markers, policy):
    """Stops parked in the agent pin their carriers; resuming each (or the VM) lets the next ones run.
    With SUSPEND_ALL, every stop suspends all virtual threads while others are on their way in."""
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)

    async def script(c: JdwpClient, markers: dict[str, int]) -> list:
        return await many_at_one_breakpoint(c, markers, policy)

    runs = {kind: trio.run(run_session, kind, vt_classes, jdk21, vt_markers, False, script, ("many", str(MANY)))
            for kind in ("reference", "jdwpd")}
    assert runs["reference"] == sorted((f"vt-{i}", True, i, policy) for i in range(MANY))
    assert runs["jdwpd"] == runs["reference"]


AGENTPATH = re.compile(r"start JVMs with (-agentpath:\S+)")
READY = re.compile(r"listening for debuggers at (\S+):(\d+)")


async def run_to_ready(c: JdwpClient, s: Session) -> tuple[int, int]:
    """The main class prepared (no more prepare events asked), then run to VT_MAIN_READY, every thread
    suspended there: (the class, the main thread)."""
    type_id, prepare = await s.to_main_class()
    await c.command("EventRequest", "Clear", event_kind=E.CLASS_PREPARE, request_id=prepare.request_id)
    ready = await s.location(type_id, "VT_MAIN_READY")
    await s.set("ready", E.BREAKPOINT, SuspendPolicy.ALL, [M.LocationOnly(loc=ready)])
    await s.resume_vm("to ready")
    return type_id, (await s.pump(E.BREAKPOINT))[1][0].thread


async def stop_with_a_virtual_thread_spinning_then_kill(port: int, markers: dict[str, int],
                                                       serve: subprocess.Popen) -> None:
    async with open_jdwp_client("127.0.0.1", port) as c:
        s = Session(c, markers)
        # No event reaches the spinner, so the agent never makes a record of it: only the all-virtual
        # suspension holds it (the path a reset must undo with ResumeAllVirtualThreads).
        type_id, main = await run_to_ready(c, s)
        await c.command("VirtualMachine", "Suspend")
        spins = next(f.field_id for f in (await c.command("ReferenceType", "Fields", ref_type=type_id)).declared
                     if f.name == "spins")
        # Every platform thread (the carriers too) let go: only the virtual thread's own suspension holds it.
        for th in (await c.command("VirtualMachine", "AllThreads")).threads:
            if th.thread != main:
                for _ in range(2):
                    await c.command("ThreadReference", "Resume", thread=th.thread)

        async def count() -> int:
            return (await c.command("ReferenceType", "GetValues", ref_type=type_id, fields=[spins])).values[0].value

        before = await count()
        await trio.sleep(0.3)
        assert await count() == before, "the virtual thread ran on, although suspended"
        os.killpg(serve.pid, signal.SIGKILL)
        serve.wait(10)


def test_a_killed_daemon_lets_suspended_virtual_threads_go(vt_classes, jdk21, vt_markers, tmp_path):
    """The agent's reset after a lost daemon resumes virtual threads too (ResumeAllVirtualThreads): a virtual
    thread held by a suspend-all (every platform thread let go) runs on, and the program ends normally."""
    serve = subprocess.Popen([*jdwpd_argv(), "serve", "--link", f"unix:{tmp_path / 'link.sock'}",
                              "--secret-file", str(tmp_path / "secret"), "--jdwp", "127.0.0.1:0"],
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    serve_log, java = jvm.OutputLog(), None
    try:
        threading.Thread(target=lambda: [serve_log.append("stderr", line) for line in serve.stderr],
                         daemon=True).start()
        agentpath = serve_log.wait_for(AGENTPATH, "stderr", 30)
        assert agentpath, serve_log.describe()
        java = subprocess.Popen([jdk21.java, agentpath.group(1) + ",suspend=y", "-cp", str(vt_classes), MAIN, "spin"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        ready = serve_log.wait_for(READY, "stderr", 30)
        assert ready, serve_log.describe()
        trio.run(stop_with_a_virtual_thread_spinning_then_kill, int(ready.group(2)), vt_markers, serve)
        out, _ = java.communicate(timeout=30)
        assert java.returncode == 0 and out.rstrip().endswith("done"), out
    finally:
        for proc in (serve, java):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


async def stop_with_a_virtual_thread_spinning_then_resume(c: JdwpClient, markers: dict[str, int]) -> list:
    """The spinner, never reported on, held by two suspend-alls: two VirtualMachine.Resume let it end."""
    s = Session(c, markers)
    await run_to_ready(c, s)
    await s.t.cmd(c, "VirtualMachine", "Suspend", "twice", must=True)
    await s.resume_vm("once")
    await s.resume_vm("twice")
    await s.pump(E.VM_DEATH)
    return s.t.steps


def test_resume_all_lets_a_virtual_thread_it_never_named_go(vt_classes, jdk21, vt_markers):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    runs = {kind: trio.run(run_session, kind, vt_classes, jdk21, vt_markers, False,
                           stop_with_a_virtual_thread_spinning_then_resume, ("spin",))
            for kind in ("reference", "jdwpd")}
    assert runs["jdwpd"] == runs["reference"]


async def change_a_virtual_threads_frames(c: JdwpClient, markers: dict[str, int]) -> list:
    """At the breakpoint in vt-worker: set locals (top frame, and its caller's: JVMTI allows only the top
    one of a virtual thread), invoke a method on it, pop work() off, force an early return, ask for
    monitors, interrupt."""
    s = Session(c, markers)
    t = s.t
    type_id, _ = await s.to_main_class()
    work = await s.location(type_id, "VT_WORK")
    await s.set("work", E.BREAKPOINT, SuspendPolicy.ALL, [M.LocationOnly(loc=work)])
    await s.resume_vm("to work")
    worker = (await s.pump(E.BREAKPOINT))[1][0].thread
    frames = (await t.cmd(c, "ThreadReference", "Frames", "before", thread=worker, start_frame=0, length=2,
                          must=True)).frames
    five = {"tag": ord("I"), "value": 5}
    await t.cmd(c, "StackFrame", "SetValues", "n := 5", thread=worker, frame=frames[0].frame_id,
                slot_values=[{"slot": 0, "slot_value": five}])
    await s.locals("after n := 5", worker)
    await t.cmd(c, "StackFrame", "SetValues", "the caller's", thread=worker, frame=frames[1].frame_id,
                slot_values=[{"slot": 0, "slot_value": five}])
    string = (await c.command("VirtualMachine", "ClassesBySignature", signature="Ljava/lang/String;")).classes[0]
    value_of = next(m.method_id for m in (await c.command("ReferenceType", "Methods", ref_type=string.type_id)).declared
                    if m.name == "valueOf" and m.signature == "(I)Ljava/lang/String;")
    for options, label in ((0, "the VM running"), (1, "single-threaded")):
        r = await t.cmd(c, "ClassType", "InvokeMethod", f"String.valueOf(42) on vt-worker, {label}",
                        clazz=string.type_id, thread=worker, method_id=value_of,
                        arguments=[{"tag": ord("I"), "value": 42}], options=options, must=True)
        await t.cmd(c, "StringReference", "Value", label, string_object=r.return_value.value)
    # An invoke lets the thread run: its frame ids are gone (INVALID_FRAMEID), ask again.
    frames = (await t.cmd(c, "ThreadReference", "Frames", "after the invokes", thread=worker, start_frame=0,
                          length=2, must=True)).frames
    await t.cmd(c, "StackFrame", "PopFrames", "work", thread=worker, frame=frames[0].frame_id)
    await t.cmd(c, "ThreadReference", "Frames", "after the pop", thread=worker, start_frame=0, length=2)
    await t.cmd(c, "ThreadReference", "ForceEarlyReturn", "an int from a void lambda", thread=worker,
                value={"tag": ord("I"), "value": 7})
    for cmd in ("OwnedMonitors", "OwnedMonitorsStackDepthInfo", "CurrentContendedMonitor", "Status",
                "SuspendCount", "Interrupt"):
        await t.cmd(c, "ThreadReference", cmd, "vt-worker", thread=worker)
    await t.cmd(c, "EventRequest", "ClearAllBreakpoints", "so that work() runs again unstopped")
    await s.resume_vm("to the end")
    await s.pump(E.VM_DEATH)
    return t.steps


def test_a_virtual_threads_frames_changed(vt_classes, jdk21, vt_markers):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    runs = {kind: trio.run(run_session, kind, vt_classes, jdk21, vt_markers, False, change_a_virtual_threads_frames)
            for kind in ("reference", "jdwpd")}
    steps = dict(runs["reference"])
    assert steps["StackFrame.SetValues the caller's"] == {"error": ErrorCode.OPAQUE_FRAME}
    assert steps["StackFrame.PopFrames work"] == {"bytes": ""}
    for (label, expected), (our_label, got) in zip(runs["reference"], runs["jdwpd"], strict=False):
        assert (our_label, got) == (label, expected)
    assert len(runs["jdwpd"]) == len(runs["reference"])


async def stop_a_virtual_thread_with_null(c: JdwpClient, markers: dict[str, int]) -> list:
    s = Session(c, markers)
    type_id, _ = await s.to_main_class()
    work = await s.location(type_id, "VT_WORK")
    await s.set("work", E.BREAKPOINT, SuspendPolicy.ALL, [M.LocationOnly(loc=work)])
    await s.resume_vm("to work")
    worker = (await s.pump(E.BREAKPOINT))[1][0].thread
    await s.t.cmd(c, "ThreadReference", "Stop", "null", thread=worker, throwable=0)
    await c.command("EventRequest", "ClearAllBreakpoints")
    await s.resume_vm("to the end")
    await s.pump(E.VM_DEATH)
    return s.t.steps


def test_stop_of_a_virtual_thread_with_null_is_an_error_not_a_crash(vt_classes, jdk21, vt_markers):
    """jdwpd alone: the JDK 25 reference dies here ("JDWP exit error AGENT_ERROR_ILLEGAL_ARGUMENT(202):
    saveGlobalRef obj", observed), so there is nothing to compare with; jdwpd answers INVALID_OBJECT,
    as for a platform thread, and the program ends normally."""
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    steps = dict(trio.run(run_session, "jdwpd", vt_classes, jdk21, vt_markers, False, stop_a_virtual_thread_with_null))
    assert steps["ThreadReference.Stop null"] == {"error": ErrorCode.INVALID_OBJECT}


async def step_over_a_sleep(c: JdwpClient, markers: dict[str, int]) -> list:
    """A line step OVER Thread.sleep in a virtual thread (it unmounts, and remounts wherever the scheduler
    puts it), then one more: where each ends, and the thread's locals there."""
    s = Session(c, markers)
    t = s.t
    type_id, _ = await s.to_main_class()
    nap = await s.location(type_id, "VT_NAP")
    bp = await s.set("nap", E.BREAKPOINT, SuspendPolicy.ALL, [M.LocationOnly(loc=nap)])
    await s.resume_vm("to the nap")
    policy, events = await s.pump(E.BREAKPOINT)
    t.add("breakpoint in vt-napper", (policy, events))
    napper = events[0].thread
    await t.cmd(c, "EventRequest", "Clear", "nap", event_kind=E.BREAKPOINT, request_id=bp.request_id)
    for label in ("over the sleep", "one more line"):
        step = await s.set(f"step {label}", E.SINGLE_STEP, SuspendPolicy.ALL,
                           [M.Step(thread=napper, size=StepSize.LINE, depth=StepDepth.OVER)])
        await s.resume_vm(label)
        t.add(f"step {label}", await s.pump(E.SINGLE_STEP))
        await s.locals(label, napper)
        await t.cmd(c, "EventRequest", "Clear", f"step {label}", event_kind=E.SINGLE_STEP, request_id=step.request_id)
    await s.resume_vm("to the end")
    await s.pump(E.VM_DEATH)
    return t.steps


def test_step_over_a_sleep_in_a_virtual_thread(vt_classes, jdk21, vt_markers):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    runs = {kind: trio.run(run_session, kind, vt_classes, jdk21, vt_markers, False, step_over_a_sleep, ("nap",))
            for kind in ("reference", "jdwpd")}
    assert dict(runs["reference"])["live variables over the sleep"] == ["before"]
    for (label, expected), (our_label, got) in zip(runs["reference"], runs["jdwpd"], strict=False):
        assert (our_label, got) == (label, expected)
    assert len(runs["jdwpd"]) == len(runs["reference"])
