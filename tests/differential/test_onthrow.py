"""onthrow= / onuncaught=: debugging that starts at an exception, reference vs jdwpd.

The reference (-agentlib:jdwp=...,server=y,suspend=y,onthrow=CLASS|onuncaught=y,launch=CMD) opens no
listener until the exception; then it runs CMD with the transport and address appended, waits for a
debugger and sends it the exception as an automatic event (request 0, SUSPEND_ALL).  jdwpd
(`jdwpd launch --suspend --onthrow CLASS|--onuncaught --launch CMD`) keeps its port refused until then,
runs CMD the same way, and its first debugger gets the same composite.  Both sessions then ask the
same questions (the thread, its status and frames, the exception's type) and resume; the program runs
to its end.  With suspend=n neither waits nor sends a start event: the program runs on, and a
debugger attaching later sees only the VM's death.  With includevirtualthreads=y (JDK 21+) both list
the virtual threads started from the trigger on.  Raw client, IDs normalized.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
from pathlib import Path

import pytest
import trio

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import debuggees, jdks, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, ModKind, SuspendPolicy
from tests.conformance.harness import TIMEOUT, Entry, Transcript

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "onthrow_java"
ISE = "java.lang.IllegalStateException"
NEVER = "Trigger$Never"  # no such class: its exception is never thrown
ANNOUNCED = re.compile(r"^dt_socket (?:\S+:)?(\d+)$")  # what launch=/bin/echo and --launch /bin/echo print
# Ticks of the ticker thread (every 10 ms) between the throw and the debugger's look (2 s later): the
# reference runs on until its debugger comes, jdwpd stops every thread at the throw.
REFERENCE_RAN_ON = 20
# jdwpd stops the other threads once the agent's own threads are started (agent/wake.c: making them runs
# Java code, which a thread stopped holding its thread group's monitor would block): on two loaded cores
# (load 6-10) that took 6 and 9 ticks on JDK 21 and 25 (.ci/other_jdks). Still half the reference's least.
JDWPD_STOPPED_WITHIN = 10


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def command(kind: str, mode: str, classes: Path, port: int) -> list[str]:
    """mode: onthrow, onuncaught, never (a class never thrown), nosuspend (onthrow, suspend=n)."""
    program = ["-cp", str(classes), "Trigger", *{"onuncaught": ["uncaught"], "nosuspend": ["hold"]}.get(mode, [])]
    suspend = mode != "nosuspend"
    if kind == "reference":
        jvm.require_reference()
        trigger = "onuncaught=y" if mode == "onuncaught" else f"onthrow={NEVER if mode == 'never' else ISE}"
        agent = f"-agentlib:jdwp=transport=dt_socket,server=y,suspend={'y' if suspend else 'n'}," \
                f"address=127.0.0.1:{port},{trigger},launch=/bin/echo"
        return [jvm.java_executable(), agent, *program]
    trigger = ["--onuncaught"] if mode == "onuncaught" else ["--onthrow", NEVER if mode == "never" else ISE]
    return [*jdwpd_argv(), "launch", "--jdwp", f"127.0.0.1:{port}", *(["--suspend"] * suspend),
            *trigger, "--launch", "/bin/echo", "--", jvm.java_executable(), *program]


class Output:
    """A process's stdout and stderr lines, as they come."""

    def __init__(self) -> None:
        self.lines: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.changed = trio.Event()

    async def pump(self, stream, name: str) -> None:
        buf = b""
        while chunk := await stream.receive_some(4096):
            buf += chunk
            *done, buf = buf.split(b"\n")
            self.lines[name].extend(line.decode(errors="replace") for line in done)
            self.changed.set()
            self.changed = trio.Event()

    async def wait_for(self, pattern: re.Pattern, name: str) -> re.Match:
        while True:
            for line in self.lines[name]:
                if m := pattern.search(line):
                    return m
            await self.changed.wait()


@contextlib.asynccontextmanager
async def running(cmd: list[str], *, stdin: bool = False, env: dict[str, str] | None = None):
    """``cmd`` in its own process group, its output pumped into an Output: (proc, out).  The group
    (the daemon and its JVM, or the JVM) is killed at the end if it still runs."""
    proc = await trio.lowlevel.open_process(cmd, stdin=subprocess.PIPE if stdin else None, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, start_new_session=True, cwd=jvm.jvm_workdir(),
                                            env=env)
    out = Output()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(out.pump, proc.stdout, "stdout")
            nursery.start_soon(out.pump, proc.stderr, "stderr")
            yield proc, out
            nursery.cancel_scope.cancel()
    finally:
        if proc.returncode is None:
            os.killpg(proc.pid, signal.SIGKILL)  # our own child's group
            await proc.wait()


def refused(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.connect(("127.0.0.1", port))
        except ConnectionRefusedError:
            return True
        return False


async def session(kind: str, mode: str, classes: Path, markers: dict[str, int]) -> dict:
    port = free_port()
    facts: dict = {}
    async with running(command(kind, mode, classes, port), stdin=True) as (proc, out):
        with trio.fail_after(60):
            await out.wait_for(re.compile("^ready$"), "stdout")
            facts["refused before the exception"] = refused(port)
            await proc.stdin.send_all(b"go\n")
            if mode == "never":
                facts["exit code"] = await proc.wait()
                facts["refused at the end"] = refused(port)
            else:
                facts["port announced"] = int((await out.wait_for(ANNOUNCED, "stdout")).group(1)) == port
                if mode == "nosuspend":
                    await out.wait_for(re.compile("^after "), "stdout")  # past the throw, holding
                    facts["transcript"] = await debug_later(port, kind, classes, markers, proc)
                else:
                    await trio.sleep(2)  # the debugger comes a while after the throw
                    facts["transcript"], facts["ticks after the throw"] = await debug(port, kind, classes,
                                                                                      markers)
                facts["exit code"] = await proc.wait()
        facts["program output"] = [line for line in out.lines["stdout"] if not ANNOUNCED.search(line)]
        facts["uncaught trace"] = [line for line in out.lines["stderr"] if "UnsupportedOperation" in line]
    return facts


async def debug(port: int, kind: str, classes: Path, markers: dict[str, int]) -> tuple[list, int]:
    async with open_jdwp_client("127.0.0.1", port, timeout=TIMEOUT) as client:
        t = Transcript(client, kind, classes, markers)
        _, events = await t.event("the exception")
        (ev,) = events
        assert ev.event_kind == EventKind.EXCEPTION and ev.request_id == 0
        thread = ev.thread
        ticks_after = await ticks_since_the_throw(client)
        await ticker_is_held(client, t)
        await t.cmd("ThreadReference", "Name", thread=thread)
        await t.cmd("ThreadReference", "Status", thread=thread)
        await t.cmd("ThreadReference", "SuspendCount", thread=thread)
        await t.cmd("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1)
        code, reply = await t.cmd("ObjectReference", "ReferenceType", object=ev.exception.object_id)
        await t.cmd("ReferenceType", "Signature", ref_type=reply.type_id)
        line = await line_of(client, ev.location)
        t.note("where", "the throw's line", [k for k, v in markers.items() if v == line])
        await t.ok("VirtualMachine", "Resume")
        await t.event("to the end")
        return [e.shown() for e in t.entries], ticks_after


def is_the_trigger(composite: tuple[int, tuple]) -> bool:
    """The exception that woke the agent, as the reference reports it with suspend=n: request 0, no suspension."""
    policy, events = composite
    return (policy == SuspendPolicy.NONE and len(events) == 1 and events[0].event_kind == EventKind.EXCEPTION
            and events[0].request_id == 0)


async def debug_later(port: int, kind: str, classes: Path, markers: dict[str, int], proc) -> list:
    """suspend=n: the program ran on past the throw; a debugger attaching now gets no start event."""
    async with open_jdwp_client("127.0.0.1", port, timeout=TIMEOUT) as client:
        t = Transcript(client, kind, classes, markers)
        await trio.sleep(0.5)
        left = client.pending_events()
        if kind == "reference":
            # The reference reports the triggering exception (request 0, SUSPEND_NONE) even with suspend=n,
            # and a debugger gets it or not by when it attaches (observed: none once the program is well
            # past the throw; 2 of 3 debuggers attaching at the announce got it; 1 run in several of this
            # test under load). jdwpd never sends it. Only that composite is let pass.
            left = [composite for composite in left if not is_the_trigger(composite)]
        t.entries.append(Entry(("Event.Composite",), "no further event", 0, t.norm(left)))
        await proc.stdin.send_all(b"end\n")
        await t.event("to the end")
        return [e.shown() for e in t.entries]


async def ticker_values(client) -> tuple[int, int]:
    """Trigger.ticks and Trigger.ticksAtThrow."""
    trigger = (await client.command("VirtualMachine", "ClassesBySignature", signature="LTrigger;")).classes[0].type_id
    fields = {f.name: f.field_id for f in (await client.command("ReferenceType", "Fields", ref_type=trigger)).declared}
    reply = await client.command("ReferenceType", "GetValues", ref_type=trigger,
                                 fields=[fields["ticks"], fields["ticksAtThrow"]])
    ticks, at_throw = (v.value.value for v in reply.values)
    return ticks, at_throw


async def ticks_since_the_throw(client) -> int:
    """How often the ticker thread (every 10 ms) counted between the throw and the debugger's look."""
    ticks, at_throw = await ticker_values(client)
    return ticks - at_throw


async def ticker_is_held(client, t: Transcript) -> None:
    """With the start event the ticker is suspended, under both servers: counted as suspended once, and
    it does not count on while the debugger looks (a quarter second: 25 of its ticks)."""
    threads = (await client.command("VirtualMachine", "AllThreads")).threads
    names = {th.thread: (await client.command("ThreadReference", "Name", thread=th.thread)).thread_name
             for th in threads}
    (ticker,) = [thread for thread, name in names.items() if name == "ticker"]
    await t.cmd("ThreadReference", "SuspendCount", thread=ticker)
    before, _ = await ticker_values(client)
    await trio.sleep(0.25)
    after, _ = await ticker_values(client)
    t.note("ticker", "counted on while the debugger looked", after != before)


async def line_of(client, location) -> int:
    table = await client.command("Method", "LineTable", ref_type=location.class_id, method_id=location.method_id)
    starts = [e for e in table.lines if e.line_code_index <= location.index]
    return max(starts, key=lambda e: e.line_code_index).line_number


@pytest.mark.parametrize("mode", ["onthrow", "onuncaught", "never", "nosuspend"])
async def test_debugging_starts_at_the_exception_as_with_the_reference(mode):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    classes = debuggees.compile_sources(SOURCES)
    markers = debuggees.all_markers(SOURCES)
    reference = await session("reference", mode, classes, markers)
    ours = await session("jdwpd", mode, classes, markers)
    ran_on = {kind: facts.pop("ticks after the throw", None) for kind, facts in (("reference", reference),
                                                                               ("jdwpd", ours))}
    assert ours == reference
    # What both did, stated: nothing listened before the exception, the program ran to its end.
    assert reference["refused before the exception"]
    assert ("after -4" in reference["program output"]) and ("subclass caught" in reference["program output"])
    assert "ticker runs" in reference["program output"]  # after the debugger's Resume, the other threads too
    if mode == "never":
        assert reference["exit code"] == 0 and reference["refused at the end"]
        return
    assert reference["port announced"]
    if mode == "nosuspend":
        labels = [label for (label, _, _) in reference["transcript"]]
        assert labels == ["no further event", "Event.Composite [to the end]"]
        assert reference["program output"][-1] == "released" and reference["exit code"] == 0
        return
    where = next(v for (label, _, v) in reference["transcript"] if label == "where [the throw's line]")
    assert where == (["OT_UNCAUGHT"] if mode == "onuncaught" else ["OT_THROW"])
    assert reference["exit code"] == (1 if mode == "onuncaught" else 0)
    # The deliberate difference (docs/options.md): jdwpd stops every thread at the throw (0 or 1 tick:
    # the ticker may count once between the program's reading of the count and the throw), the reference
    # only once its debugger has attached, here 2 s later (about 200 ticks unloaded).  The bounds are the
    # behaviour, with room for a loaded machine: the reference's ticker need only have run at a tenth of
    # its pace, jdwpd's stop may be late by 100 ms of ticker time.
    assert ran_on["reference"] >= REFERENCE_RAN_ON and ran_on["jdwpd"] <= JDWPD_STOPPED_WITHIN, ran_on
    assert bool(reference["uncaught trace"]) == (mode == "onuncaught")


async def test_serve_adopts_an_agent_that_wakes_late(tmp_path):
    """`jdwpd serve` with a JVM started on its own: the agent connects only at its exception, and the first
    debugger gets that exception as the start event (jdwpd alone: the reference has no such mode)."""
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    classes = debuggees.compile_sources(SOURCES)
    tmp_path.chmod(0o700)
    serve = await trio.lowlevel.open_process(
        [*jdwpd_argv(), "serve", "--link", f"unix:{tmp_path / 'link.sock'}", "--secret-file",
         str(tmp_path / "secret"), "--jdwp", "127.0.0.1:0"], stderr=subprocess.PIPE, start_new_session=True)
    java = None
    daemon, program = Output(), Output()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(daemon.pump, serve.stderr, "stderr")
            with trio.fail_after(60):
                agentpath = (await daemon.wait_for(re.compile(r"start JVMs with (-agentpath:\S+)"), "stderr")).group(1)
                java = await trio.lowlevel.open_process(
                    [jvm.java_executable(), f"{agentpath},suspend=y,onthrow={ISE}", "-cp", str(classes), "Trigger"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
                nursery.start_soon(program.pump, java.stdout, "stdout")
                await program.wait_for(re.compile("^ready$"), "stdout")
                await trio.sleep(0.5)
                assert not any("adopted" in line for line in daemon.lines["stderr"])  # dormant: no link yet
                await java.stdin.send_all(b"go\n")
                port = int((await daemon.wait_for(jvm.JDWPD_READY, "stderr")).group(2))
                async with open_jdwp_client("127.0.0.1", port, timeout=TIMEOUT) as client:
                    policy, events = await client.next_event(timeout=TIMEOUT)
                    assert policy == 2 and [(e.event_kind, e.request_id) for e in events] == [(EventKind.EXCEPTION, 0)]
                    assert await ticks_since_the_throw(client) <= JDWPD_STOPPED_WITHIN
                    await trio.sleep(0.5)
                    assert not [line for line in program.lines["stdout"] if line.startswith("after ")]  # held
                    await client.command("VirtualMachine", "Resume")
                    _, events = await client.next_event(timeout=TIMEOUT)
                    assert events[0].event_kind == EventKind.VM_DEATH
                assert await java.wait() == 0
                assert "after -4" in program.lines["stdout"] and "ticker runs" in program.lines["stdout"]
            nursery.cancel_scope.cancel()
    finally:
        for proc in (java, serve):
            if proc is not None and proc.returncode is None:
                os.killpg(proc.pid, signal.SIGKILL)  # our own children's groups
                await proc.wait()


SOURCES_21 = Path(__file__).resolve().parent / "onthrow_java21"


async def virtual_threads_session(kind: str, jdk, classes: Path, markers: dict[str, int]) -> dict:
    """includevirtualthreads with onthrow: the threads a debugger is told of at the start event and at a
    later exception (virtual ones started before and after the trigger)."""
    port = free_port()
    program = [jdk.java, "-cp", str(classes), "VtTrigger"]
    if kind == "reference":
        cmd = [program[0], f"-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:{port},"
               f"onthrow={ISE},launch=/bin/echo,includevirtualthreads=y", *program[1:]]
    else:
        cmd = [*jdwpd_argv(), "launch", "--jdwp", f"127.0.0.1:{port}", "--suspend", "--onthrow", ISE,
               "--launch", "/bin/echo", "--include-virtual-threads", "--", *program]
    facts: dict = {}
    async with running(cmd) as (proc, out):
        with trio.fail_after(60):
            await out.wait_for(ANNOUNCED, "stdout")
            async with open_jdwp_client("127.0.0.1", port, timeout=TIMEOUT) as client:
                t = Transcript(client, kind, classes, markers)
                await t.event("the trigger")
                facts["at the trigger"] = await thread_names(client)
                look = (await client.command("VirtualMachine", "ClassesBySignature",
                                             signature="LVtTrigger$Look;")).classes[0].type_id
                await t.ok("EventRequest", "Set", event_kind=EventKind.EXCEPTION, suspend_policy=SuspendPolicy.ALL,
                           modifiers=[{"mod_kind": ModKind.EXCEPTION_ONLY, "exception_or_null": look,
                                       "caught": True, "uncaught": True}])
                await t.ok("VirtualMachine", "Resume")
                await t.event("the look")
                facts["at the look"] = await thread_names(client)
                await t.ok("VirtualMachine", "Resume")
                await t.event("to the end")
                facts["transcript"] = [e.shown() for e in t.entries]
            facts["exit code"] = await proc.wait()
        facts["program output"] = [line for line in out.lines["stdout"] if not ANNOUNCED.search(line)]
    return facts


async def thread_names(client) -> list[str]:
    """The program's threads in AllThreads (the JVM's own service threads left out), in order."""
    names = []
    for th in (await client.command("VirtualMachine", "AllThreads")).threads:
        name = (await client.command("ThreadReference", "Name", thread=th.thread)).thread_name
        if name == "main" or name.startswith("vt-"):
            names.append(name)
    return sorted(names)


@pytest.fixture
def jdk21():
    """A JDK 21+ (virtual threads), else a skip that says why. A sync fixture: pytest.skip inside a trio
    test loses its reason."""
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    jdk = jdks.find_jdk(21)
    if jdk is None:
        pytest.skip(jdks.missing_reason(21))
    return jdk


async def test_virtual_threads_listed_from_the_trigger_on_as_with_the_reference(jdk21):
    jdk = jdk21
    classes = debuggees.compile_sources(SOURCES_21, javac=jdk.javac, release="21")
    markers = debuggees.all_markers(SOURCES_21)
    reference = await virtual_threads_session("reference", jdk, classes, markers)
    ours = await virtual_threads_session("jdwpd", jdk, classes, markers)
    assert ours == reference
    # The reference follows virtual threads from its trigger on: one started before it is never listed.
    assert reference["at the trigger"] == ["main"] and reference["at the look"] == ["main", "vt-after"]
    assert reference["exit code"] == 0 and reference["program output"] == ["triggered", "looked", "done"]
