"""The reply memo and the fast lane (jdwpd/daemon/fast/memo.py, jdwpd/daemon/fast/lane.py) against real JVMs.

A memoized reply is right only while what it answered cannot have changed: class facts until a
redefinition, a thread's name while the whole VM is held, its frame count while the thread is.
Each test here would fail if a reply were kept too long (a name read while another thread keeps
renaming, a frame count across PopFrames or a resume, bytecodes across RedefineClasses), if the
lane's answers overtook the commands it handed on (a FrameCount pipelined behind a Resume), or
if it lost or reordered replies under a flood.

Debuggees (tests/differential/memo_java): ``Renamer`` renames its main thread each round and
stops in ``Shape.area`` at a new recursion depth; ``Spinner`` has a thread "victim" that another
thread renames every 2 ms (``tight``: as fast as it can).  Every server kind runs the same
scenario: the reference agent, jdwpd, and jdwpd with JDWPD_FAST=memo=off (no memo, no lane).
"""

from __future__ import annotations

import contextlib
import pprint
import socket
import struct
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import JdwpClient, open_jdwp_client
from protocol import messages, spec
from protocol.constants import ErrorCode, EventKind
from tests.commands.types_support import TIMEOUT, Transcript

pytestmark = pytest.mark.jvm
HERE = Path(__file__).resolve().parent
SOURCES = HERE / "memo_java"
MARKERS = debuggees.all_markers(SOURCES)
KINDS = ["reference", "jdwpd", "jdwpd-nolane", "jdwpd-eager"]
# jdwpd-eager: the lane takes the socket at every chance, so every command that is no memo answer
# crosses a hand-over (JDWPD_FAST=lane_after_hits=0).
ENVIRONMENTS = {"jdwpd": {}, "jdwpd-nolane": {"JDWPD_FAST": "memo=off"},
                "jdwpd-eager": {"JDWPD_FAST": "lane_after_hits=0"}}


def use_environment(m, kind: str) -> None:
    m.delenv("JDWPD_FAST", raising=False)
    for name, value in ENVIRONMENTS.get(kind, {}).items():
        m.setenv(name, value)

# Shape.perimeter changed, Shape.area as it was (so its frame on the stack stays current).
SHAPE_V2 = """\
/** Facts the reply memo keeps: area() holds the breakpoint, perimeter() is redefined by the test. */
public class Shape {
    static int area(int n) {
        int side = n + 2;
        return side * side;
    }

    static int perimeter(int n) {
        int sides = 4;
        int bonus = n % 3;
        return sides * n + bonus;
    }
}
"""


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(SOURCES)


@pytest.fixture(params=KINDS)
def kind(request, monkeypatch) -> str:
    if request.param != "reference" and not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    use_environment(monkeypatch, request.param)
    return request.param


def _server(kind: str) -> str:
    return "reference" if kind == "reference" else "jdwpd"


@contextlib.asynccontextmanager
async def debugging(kind: str, classpath, main: str, args=(), *, limit: float = 40) -> AsyncIterator[Transcript]:
    """A Transcript on a raw client of ``main`` run under ``kind``; the JVM is killed at the end."""
    with trio.fail_after(limit):
        async with jvm.open_jvm(_server(kind), classpath, main, list(args)) as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                t = Transcript(client, kind)
                t.debuggee = debuggee
                yield t


def compare(transcripts: dict[str, list]) -> None:
    reference = transcripts["reference"]
    for kind, ours in transcripts.items():
        for i, (want, got) in enumerate(zip(reference, ours, strict=False)):
            assert got == want, (f"{kind}: entry {i} differs\n--- reference ---\n{pprint.pformat(want)}\n"
                                 f"--- {kind} ---\n{pprint.pformat(got)}")
        assert len(ours) == len(reference), kind


async def differential(classpath, main: str, scenario, monkeypatch) -> dict[str, list]:
    """``scenario(t)`` under every kind (sequentially); transcripts asserted identical."""
    transcripts = {}
    for kind in KINDS:
        if kind != "reference" and not jvm.jdwpd_available():
            pytest.skip(f"{jvm.JDWPD_UNAVAILABLE_REASON} (the reference side ran and passed)")
        with monkeypatch.context() as m:
            use_environment(m, kind)
            async with debugging(kind, classpath, main) as t:
                await scenario(t)
                transcripts[kind] = t.entries
    compare(transcripts)
    return transcripts


def encode(set_name: str, cmd_name: str, sizes, **fields: Any) -> tuple[int, int, bytes]:
    cs = spec.by_name(set_name, cmd_name)
    return cs.set_id, cs.cmd_id, messages.encode_command(cs, fields, sizes)


def packet(packet_id: int, command: tuple[int, int, bytes]) -> bytes:
    set_id, cmd_id, data = command
    return struct.pack(">IIBBB", 11 + len(data), packet_id, 0, set_id, cmd_id) + data


async def send_together(c: JdwpClient, *commands: tuple[int, int, bytes]) -> list[int]:
    """Several commands in one write (one TCP segment on loopback): their packet ids."""
    ids = [c.next_packet_id() for _ in commands]
    await c.send_raw(b"".join(packet(pid, cmd) for pid, cmd in zip(ids, commands, strict=True)))
    return ids


async def name_of(c: JdwpClient, thread: int) -> str:
    return (await c.command("ThreadReference", "Name", thread=thread, timeout=TIMEOUT)).thread_name


async def frame_count(c: JdwpClient, thread: int) -> int:
    return (await c.command("ThreadReference", "FrameCount", thread=thread, timeout=TIMEOUT)).frame_count


async def next_breakpoint(t: Transcript) -> int:
    _, events = await t.client.wait_for_event(EventKind.BREAKPOINT, timeout=TIMEOUT)
    thread = next(e for e in events if int(e.event_kind) == EventKind.BREAKPOINT).thread
    t.note("breakpoint thread", {"thread": thread})
    return thread


# ---------------------------------------------------------------------- Renamer: names, counts, redefinition

def frames_at_round(r: int) -> int:
    return 1 + (2 + 3 * r + 1) + 1  # main, depth(2+3r) .. depth(0), Shape.area


async def names_and_counts(t: Transcript) -> None:
    """At each stop (SUSPEND_ALL): Name and FrameCount twice, equal; the next stop shows the new ones."""
    thread, _ = await t.run_to_line("Shape", MARKERS["SHAPE_AREA"])
    t.note("first stop", {"thread": thread})
    caps = await t.ok("VirtualMachine", "CapabilitiesNew")
    for r in range(3):
        if r:
            await t.ok("VirtualMachine", "Resume")
            assert await next_breakpoint(t) == thread
        names = [(await t.ok("ThreadReference", "Name", thread=thread)).thread_name for _ in range(2)]
        counts = [(await t.ok("ThreadReference", "FrameCount", thread=thread)).frame_count for _ in range(2)]
        assert names == [f"round-{r}"] * 2, (t.kind, r, names)
        assert counts == [frames_at_round(r)] * 2, (t.kind, r, counts)
        if r == 0 and caps.can_pop_frames:
            top = (await t.ok("ThreadReference", "Frames", thread=thread, start_frame=0, length=1)).frames[0]
            await t.ok("StackFrame", "PopFrames", thread=thread, frame=top.frame_id)
            popped = [(await t.ok("ThreadReference", "FrameCount", thread=thread)).frame_count for _ in range(2)]
            assert popped == [frames_at_round(0) - 1] * 2, (t.kind, popped)
            assert (await t.ok("ThreadReference", "Name", thread=thread)).thread_name == "round-0"
            await t.ok("VirtualMachine", "Resume")  # area() is called again: the same stop, the same depth
            assert await next_breakpoint(t) == thread
            again = (await t.ok("ThreadReference", "FrameCount", thread=thread)).frame_count
            assert again == frames_at_round(0), (t.kind, again)
    await t.ok("EventRequest", "ClearAllBreakpoints")
    await t.ok("VirtualMachine", "Resume")
    await t.client.wait_for_event(EventKind.VM_DEATH, timeout=TIMEOUT)


async def test_name_and_frame_count_follow_the_program(classes, monkeypatch):
    """Scenarios 2 and 3: a renamed thread, PopFrames, new depths; identical to the reference."""
    transcripts = await differential(classes, "Renamer", names_and_counts, monkeypatch)
    assert any(label == "StackFrame.PopFrames" for label, _, _ in transcripts["reference"])


async def test_redefined_method_facts_are_the_new_ones(classes, monkeypatch, tmp_path):
    """Scenario 6: Bytecodes and LineTable asked twice, RedefineClasses, asked again: the new method."""
    src = tmp_path / "v2"
    src.mkdir()
    (src / "Shape.java").write_text(SHAPE_V2)
    new_bytes = (debuggees.compile_sources(src, cache=tmp_path / "cache") / "Shape.class").read_bytes()

    async def scenario(t: Transcript) -> None:
        await t.run_to_line("Shape", MARKERS["SHAPE_AREA"])
        caps = await t.ok("VirtualMachine", "CapabilitiesNew")
        if not caps.can_redefine_classes:
            t.note("no RedefineClasses", {})
            return
        ref = await t.class_id("LShape;")
        methods = {m.name: m.method_id for m in (await t.ok("ReferenceType", "Methods", ref_type=ref)).declared}
        perimeter, area = methods["perimeter"], methods["area"]

        async def facts(note: str) -> tuple[bytes, list[int]]:
            codes = [bytes((await t.ok("Method", "Bytecodes", ref_type=ref, method_id=perimeter)).bytes)
                     for _ in range(2)]
            lines = [[ln.line_number for ln in (await t.ok("Method", "LineTable", ref_type=ref,
                                                           method_id=perimeter)).lines] for _ in range(2)]
            await t.ok("Method", "VariableTable", ref_type=ref, method_id=perimeter)
            await t.ok("Method", "IsObsolete", ref_type=ref, method_id=perimeter)
            await t.ok("Method", "IsObsolete", ref_type=ref, method_id=area)
            assert codes[0] == codes[1] and lines[0] == lines[1], (t.kind, note)
            return codes[0], lines[0]

        old_code, old_lines = await facts("before")
        await t.ok("VirtualMachine", "RedefineClasses", classes=[{"ref_type": ref, "classfile": new_bytes}])
        new_code, new_lines = await facts("after")
        assert new_code != old_code, t.kind
        assert len(new_lines) == len(old_lines) + 2 and new_lines[0] == old_lines[0], (t.kind, old_lines, new_lines)
        await t.ok("ReferenceType", "Methods", ref_type=ref)
        await t.ok("EventRequest", "ClearAllBreakpoints")
        await t.ok("VirtualMachine", "Resume")
        await t.client.wait_for_event(EventKind.VM_DEATH, timeout=TIMEOUT)

    await differential(classes, "Renamer", scenario, monkeypatch)


# ---------------------------------------------------------------------- Spinner: a thread renamed while we look

@contextlib.asynccontextmanager
async def spinning(kind: str, classes: Path, mode: str) -> AsyncIterator[tuple[Transcript, int]]:
    """Spinner run to SPIN_READY (victim started, renamer not yet), then resumed: (t, victim)."""
    async with debugging(kind, classes, "Spinner", [mode]) as t:
        c = t.client
        await t.run_to_line("Spinner", MARKERS["SPIN_READY"])
        victims = [th.thread for th in (await c.command("VirtualMachine", "AllThreads", timeout=TIMEOUT)).threads
                   if await name_of(c, th.thread) == "victim"]
        assert len(victims) == 1, (kind, victims)
        await c.command("EventRequest", "ClearAllBreakpoints", timeout=TIMEOUT)
        await c.command("VirtualMachine", "Resume", timeout=TIMEOUT)
        yield t, victims[0]


async def test_name_of_a_thread_suspended_alone_follows_its_renamer(kind, classes):
    """Scenario 1: only the victim is held; the renamer runs on, so every Name reads anew."""
    async with spinning(kind, classes, "slow") as (t, victim):
        c = t.client
        await c.command("ThreadReference", "Suspend", thread=victim, timeout=TIMEOUT)
        seen = []
        with trio.fail_after(10):
            for _ in range(12):
                seen.append(await name_of(c, victim))
                await trio.sleep(0.03)
        counts = [await frame_count(c, victim) for _ in range(3)]  # held: the count may be kept
        await c.command("ThreadReference", "Resume", thread=victim, timeout=TIMEOUT)
    assert all(n.startswith("n") or n == "victim" for n in seen), (kind, seen)  # "victim": not yet renamed
    assert len(set(seen)) >= 6, (kind, seen)  # renamed every ~2 ms, asked every ~30 ms
    assert len(set(counts)) == 1 and counts[0] >= 2, (kind, counts)


async def test_name_asked_as_the_vm_suspends_is_the_suspended_name(kind, classes):
    """A Name pipelined with VirtualMachine.Suspend, while a thread renames as fast as it can: once the
    VM is held, Name must equal the thread's name field (a name read before the suspension took hold
    is not the frozen one, and must not be kept as if it were)."""
    async with spinning(kind, classes, "tight") as (t, victim):
        c = t.client
        thread_class = await t.class_id("Ljava/lang/Thread;")
        fields = (await c.command("ReferenceType", "Fields", ref_type=thread_class, timeout=TIMEOUT)).declared
        name_field = next(f.field_id for f in fields if f.name == "name")
        mismatches = []
        deadline = time.monotonic() + 8
        rounds = 0
        while rounds < 40 and time.monotonic() < deadline:
            rounds += 1
            ids = await send_together(c, encode("ThreadReference", "Name", c.sizes, thread=victim),
                                      encode("VirtualMachine", "Suspend", c.sizes))
            for pid in ids:
                assert (await c.reply(pid, TIMEOUT)).error_code == 0
            held = [await name_of(c, victim) for _ in range(2)]
            values = await c.command("ObjectReference", "GetValues", object=victim,
                                     fields=[{"field_id": name_field}], timeout=TIMEOUT)
            field = (await c.command("StringReference", "Value", string_object=values.values[0].value.value,
                                     timeout=TIMEOUT)).string_value
            if held != [field, field]:
                mismatches.append((rounds, held, field))
            await c.command("VirtualMachine", "Resume", timeout=TIMEOUT)
            await trio.sleep(0.003)
    assert rounds >= 10, (kind, rounds)
    assert not mismatches, f"{kind}: Name while the VM is held differs from Thread.name: {mismatches[:5]}"


async def test_frame_count_pipelined_behind_a_resume_finds_the_thread_running(kind, classes):
    """Scenario 4: Suspend, FrameCount twice (kept), then Resume and FrameCount sent without waiting:
    the FrameCount must come after the resume (THREAD_NOT_SUSPENDED), never the kept count.  Both the
    thread's own Resume and VirtualMachine.Resume; in one write and in two."""
    results = []
    async with spinning(kind, classes, "slow") as (t, victim):
        c = t.client
        with trio.fail_after(30):
            for i in range(24):
                whole_vm = i % 2 == 1
                if whole_vm:
                    await c.command("VirtualMachine", "Suspend", timeout=TIMEOUT)
                    resume = encode("VirtualMachine", "Resume", c.sizes)
                else:
                    await c.command("ThreadReference", "Suspend", thread=victim, timeout=TIMEOUT)
                    resume = encode("ThreadReference", "Resume", c.sizes, thread=victim)
                counts = [await frame_count(c, victim) for _ in range(2)]
                assert counts[0] == counts[1] >= 2, (kind, counts)
                ask = encode("ThreadReference", "FrameCount", c.sizes, thread=victim)
                if i % 4 < 2:
                    ids = await send_together(c, resume, ask)
                else:
                    ids = [await c.send_packet(*resume), await c.send_packet(*ask)]
                resumed, counted = [await c.reply(pid, TIMEOUT) for pid in ids]
                results.append((i, resumed.error_code, counted.error_code))
                await trio.sleep(0.002)
    bad = [r for r in results if r[1:] != (0, ErrorCode.THREAD_NOT_SUSPENDED)]
    assert not bad, f"{kind}: (round, Resume error, FrameCount error) not (0, 13): {bad}"


# ---------------------------------------------------------------------- a flood of memo hits

SLOW_FLOOD = 20_000
SIGNATURE_BODY = struct.pack(">I", len(b"LShape;")) + b"LShape;"


def _slow_flood(host: str, port: int, packets: bytes, expected: dict[int, tuple[int, bytes | None]]) -> list:
    """On its own socket with a small receive buffer: send everything, read the replies in small
    pieces (slowly at first, so the daemon's writes meet a full socket).  Replies in arrival order."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: a small window
        s.settimeout(20)
        s.connect((host, port))
        s.sendall(b"JDWP-Handshake")
        got = b""
        while len(got) < 14:
            chunk = s.recv(14 - len(got))
            assert chunk, "closed during the handshake"
            got += chunk
        assert got == b"JDWP-Handshake"
        s.sendall(packets)
        buf = bytearray()
        replies = []
        deadline = time.monotonic() + 20
        slow_reads = 0
        while len(replies) < len(expected):
            assert time.monotonic() < deadline, f"{len(replies)} of {len(expected)} replies after 20 s"
            chunk = s.recv(97 if slow_reads < 500 else 65536)
            assert chunk, f"closed after {len(replies)} of {len(expected)} replies"
            if slow_reads < 500:
                slow_reads += 1
                time.sleep(0.001)
            buf += chunk
            while len(buf) >= 11:
                length, pid, flags, code = struct.unpack_from(">IIBH", buf)
                if len(buf) < length:
                    break
                assert flags == 0x80, (pid, flags)
                replies.append((pid, code, bytes(buf[11:length])))
                del buf[:length]
        return replies


@pytest.mark.parametrize("lane", ["jdwpd", "jdwpd-nolane", "jdwpd-eager"])
async def test_a_flood_of_memo_hits_loses_and_reorders_nothing(classes, monkeypatch, lane):
    """Scenario 5 (jdwpd only): 3000 Signature commands unread, with a few other commands among them;
    every reply arrives, right and once, the Signatures in order.  Then the same on a second debugger connection
    that sends 20000 and reads its replies slowly through a small receive buffer."""
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    use_environment(monkeypatch, lane)
    async with debugging(lane, classes, "Renamer") as t:
        c = t.client
        thread, _ = await t.run_to_line("Shape", MARKERS["SHAPE_AREA"])
        ref = await t.class_id("LShape;")
        count = frames_at_round(0)
        version = await c.command("VirtualMachine", "Version", timeout=TIMEOUT)
        sig = encode("ReferenceType", "Signature", c.sizes, ref_type=ref)
        fc = encode("ThreadReference", "FrameCount", c.sizes, thread=thread)
        ver = encode("VirtualMachine", "Version", c.sizes)
        assert (await c.command("ReferenceType", "Signature", ref_type=ref, timeout=TIMEOUT)).signature == "LShape;"

        def plan(n: int, first_id: int) -> tuple[bytes, dict[int, tuple[str, tuple]]]:
            out, want = [], {}
            for k in range(n):
                pid = first_id + k
                cmd, what = (ver, "version") if k % 701 == 350 else (fc, "count") if k % 499 == 7 else (sig, "sig")
                out.append(packet(pid, cmd))
                want[pid] = what
            return b"".join(out), want

        first = c.next_packet_id()
        for _ in range(2999):
            c.next_packet_id()
        data, want = plan(3000, first)
        with trio.fail_after(30):
            await c.send_raw(data)
            arrived = {}
            for pid, what in want.items():
                r = await c.reply(pid, 20)
                assert r.error_code == 0, (pid, what, r.error_code)
                if what == "sig":
                    assert r.data == SIGNATURE_BODY, (pid, r.data)
                elif what == "count":
                    assert struct.unpack(">i", r.data) == (count,), (pid, r.data)
                else:
                    decoded = messages.decode_reply(spec.by_name("VirtualMachine", "Version"), r.data, c.sizes)
                    assert decoded == version
                arrived[pid] = r
        assert len(arrived) == 3000

        data, want = plan(SLOW_FLOOD, 1_000_000)  # ~440 KB of replies: more than the socket buffers hold
        replies = await trio.to_thread.run_sync(_slow_flood, t.debuggee.host, t.debuggee.port, data, want)
        order = [pid for pid, _, _ in replies]
        assert sorted(order) == sorted(want), "replies lost or repeated"
        # jdwpd runs queries concurrently (with or without the lane), so a Signature may overtake the
        # FrameCount before it; the Signatures among themselves keep their order.
        signatures = [pid for pid in order if want[pid] == "sig"]
        assert signatures == sorted(signatures), "Signature replies reordered"
        for pid, code, body in replies:
            assert code == 0, (pid, want[pid], code)
            if want[pid] == "sig":
                assert body == SIGNATURE_BODY, (pid, body)
            elif want[pid] == "count":
                assert struct.unpack(">i", body) == (count,), (pid, body)
        # The first debugger still works, and the program still stops where it should.
        assert await name_of(c, thread) == "round-0"
        assert await frame_count(c, thread) == count
        await c.command("VirtualMachine", "Resume", timeout=TIMEOUT)
        await next_breakpoint(t)
        assert await name_of(c, thread) == "round-1"
        assert await frame_count(c, thread) == frames_at_round(1)


@pytest.mark.parametrize("lane", ["jdwpd", "jdwpd-nolane", "jdwpd-eager"])
async def test_name_read_by_one_debugger_as_another_suspends_the_vm(classes, monkeypatch, lane):
    """jdwpd only (the reference takes one debugger): debugger A asks the victim's Name over and over
    while debugger B suspends the whole VM, a thread renaming the victim as fast as it can.  Once B's
    Suspend is answered nothing renames any more, so Name (asked by B) must equal Thread.name; a
    Name whose answer was read before the suspension took hold must not be kept as the frozen one."""
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    use_environment(monkeypatch, lane)
    mismatches = []
    rounds = 0
    async with spinning(lane, classes, "tight") as (t, victim):
        b = t.client
        thread_class = await t.class_id("Ljava/lang/Thread;")
        fields = (await b.command("ReferenceType", "Fields", ref_type=thread_class, timeout=TIMEOUT)).declared
        name_field = next(f.field_id for f in fields if f.name == "name")
        async with open_jdwp_client(t.debuggee.host, t.debuggee.port, timeout=TIMEOUT) as a:
            stop = trio.Event()

            async def ask_names() -> None:
                ask = encode("ThreadReference", "Name", a.sizes, thread=victim)
                while not stop.is_set():
                    ids = await send_together(a, *[ask] * 8)
                    for pid in ids:
                        assert (await a.reply(pid, TIMEOUT)).error_code == 0

            with trio.fail_after(30):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(ask_names)
                    deadline = time.monotonic() + 8
                    while rounds < 150 and time.monotonic() < deadline:
                        rounds += 1
                        await trio.sleep(0.002)
                        await b.command("VirtualMachine", "Suspend", timeout=TIMEOUT)
                        await trio.sleep(0.001)  # A's Names in flight land meanwhile
                        held = [await name_of(b, victim) for _ in range(2)]
                        values = await b.command("ObjectReference", "GetValues", object=victim,
                                                 fields=[{"field_id": name_field}], timeout=TIMEOUT)
                        field = (await b.command("StringReference", "Value",
                                                 string_object=values.values[0].value.value,
                                                 timeout=TIMEOUT)).string_value
                        if held != [field, field]:
                            mismatches.append((rounds, held, field))
                        await b.command("VirtualMachine", "Resume", timeout=TIMEOUT)
                    stop.set()
    assert rounds >= 10, (lane, rounds)
    assert not mismatches, (f"{lane}: {len(mismatches)} of {rounds} suspensions answered a stale Name "
                            f"(round, [Name, Name], Thread.name): {mismatches[:5]}")
