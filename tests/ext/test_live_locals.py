"""Locals read in place (agent/slots.c) and by a stack walk (agent/live.c): the same values JVMTI
gives, no VM operation, and none of the walk's own Java code seen by a debugger.

HotSpot reads a platform thread's locals through a safepoint per value.  The agent instead reads
a breakpoint frame's slots where the interpreter keeps them (after one walk per location has
told it which slots hold references), and walks the event thread's own top frames for anything
else (a capture's callers).  RequestStats says how each read was made, so these tests fail if the
agent quietly falls back.  The callers of the breakpointed method are warmed up first, so that a
capture's deeper frames are compiled frames.
"""

from __future__ import annotations

import struct
import subprocess

import pytest
import trio

from jdwpd.testing import debuggees, jdks, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.agent_code import decode_capture
from protocol.constants import EventKind, ModKind, SuspendPolicy
from tests.ext.ext_support import TIMEOUT, breakpoint_mods, conditional, in_place_or_skip, location_of_line, prepare

pytestmark = pytest.mark.jvm

WARM = 20_000  # calls before the targets: the callers are compiled by then
N = WARM + 40

LIVE = """\
public class Live {
    static int sink;
    int f = 5;

    static final class Node {
        final int v;
        Node(int v) { this.v = v; }
    }

    void leaf(boolean z, byte b, char c, short s, int i, long l, float fl, double d, String str, int[] arr,
              Node node) {
        sink += i; // @bp
    }

    void mid(int i, long mark) {
        double half = i / 2.0;
        String tag = "t" + i;
        leaf(i % 2 == 0, (byte) -i, (char) ('a' + i), (short) (i * 300), i, i * 5_000_000_000L, i * 1.5f, -i * 0.25,
             "s" + i, new int[] {i, i + 1}, i % 3 == 0 ? null : new Node(i));
        sink += tag.length() + (int) half + (int) mark;
    }

    void top(int i) {
        long big = Long.MIN_VALUE + i;
        mid(i, 77L);
        sink += (int) big;
    }

    public static void main(String[] args) {
        Live live = new Live();
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) live.top(i);
        System.out.println("DONE " + sink); // @done
    }
}
"""


def _byte(x: int) -> int:
    return struct.unpack("b", struct.pack("B", x & 0xFF))[0]


def _short(x: int) -> int:
    return struct.unpack("h", struct.pack("H", x & 0xFFFF))[0]


# Each condition reads one kind of local (and `i` to stay in the targets' window), true at one i.
CONDITIONS = {
    f"i == {WARM + 1}": WARM + 1,
    f"z && i > {WARM + 5} && i < {WARM + 8}": WARM + 6,
    f"b == {_byte(-(WARM + 3))} && i >= {WARM}": WARM + 3,
    f"c == {(ord('a') + WARM + 4) & 0xFFFF} && i >= {WARM}": WARM + 4,
    f"s == {_short((WARM + 5) * 300)} && i >= {WARM}": WARM + 5,
    f"l == {(WARM + 7) * 5_000_000_000}L": WARM + 7,
    f"fl == {(WARM + 9) * 1.5}f": WARM + 9,
    f"d == {-(WARM + 11) * 0.25}": WARM + 11,
    f'str.equals("s{WARM + 13}")': WARM + 13,
    f"arr[1] == {WARM + 15}": WARM + 14,  # arr = {i, i + 1}
    f"node == null && i > {WARM + 18} && i < {WARM + 21}": WARM + 19,  # i % 3 == 0 once in there
    f"this.f + i == {5 + WARM + 17}": WARM + 17,
}


@pytest.fixture(scope="module")
def live_classes(tmp_path_factory):
    out = tmp_path_factory.mktemp("live")
    (out / "Live.java").write_text(LIVE)
    subprocess.run([debuggees.default_javac(), "-g", "--release", debuggees.default_release(),
                    "-d", str(out), str(out / "Live.java")], check=True,
                   timeout=120)
    lines = {tag: n for n, text in enumerate(LIVE.splitlines(), 1) for tag in ("bp", "done") if f"// @{tag}" in text}
    return out, lines


def _javas() -> list:
    newer = jdks.find_jdk(21)
    return [pytest.param(None, id="default-jdk"),
            pytest.param(newer.java if newer else None, id="jdk21+",
                         marks=pytest.mark.skipif(newer is None, reason=jdks.missing_reason(21)))]


async def _no_quota(c) -> dict:
    """A budget without the default CPU quota: reading through JVMTI costs the loop too much for it."""
    budget = await c.command("Jdwpd", "DefineBudget", hit_cap=0, expires_millis=0, rate_per_second=0, cpu_ppm=0,
                             flags=0)
    return conditional(budget.budget_id)


async def _stop_at_done(c, ref, lines):
    method, index = await location_of_line(c, ref, lines["done"])
    await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.ALL,
                    modifiers=breakpoint_mods(ref, method, index))
    return method


# How a condition's locals are read: in place (the default), or by a walk at every hit.
MODES = [pytest.param((), id="in-place"), pytest.param(("-Djdwpd.frameLocals=false",), id="walked")]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("java", _javas())
async def test_conditions_on_every_kind_of_local_are_read_in_place_or_walked_never_by_jvmti(live_classes, java,
                                                                                            mode):
    if not mode:
        in_place_or_skip(java)
    classes, lines = live_classes
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "Live", [str(N)], java=java, jvm_args=list(mode)) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            await c.command("VirtualMachine", "JdwpdHello", client_version=1)
            ref = await prepare(c, "Live")
            method, index = await location_of_line(c, ref, lines["bp"])
            by_request = {}
            for text in CONDITIONS:
                r = await c.command("Jdwpd", "CompileCondition", ref_type=ref, method_id=method, index=index,
                                    expression=text)
                assert r.status == 0, (text, r.message)
                req = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                      suspend_policy=SuspendPolicy.EVENT_THREAD,
                                      modifiers=breakpoint_mods(ref, method, index, conditional(r.expr_id),
                                                                await _no_quota(c)))
                by_request[req.request_id] = text
            # The walk runs JDK code on the event thread: a debugger asking for its method entries
            # must see none of them (the program itself never walks its stack).
            entries = await c.command("EventRequest", "Set", event_kind=EventKind.METHOD_ENTRY,
                                      suspend_policy=SuspendPolicy.NONE,
                                      modifiers=[{"mod_kind": ModKind.CLASS_MATCH,
                                                  "class_pattern": "java.lang.StackStreamFactory*"}])
            done = await _stop_at_done(c, ref, lines)
            await c.command("VirtualMachine", "Resume")
            fired, walk_entries = [], 0
            while True:
                _, events = await c.next_event(TIMEOUT)
                walk_entries += sum(1 for e in events if e.request_id == entries.request_id)
                hits = [e for e in events if e.request_id in by_request]
                if hits:  # where: `i` of the suspended thread's top frame (slot 5: this, z, b, c, s, i)
                    frames = await c.command("ThreadReference", "Frames", thread=hits[0].thread, start_frame=0,
                                             length=1)
                    values = await c.command("StackFrame", "GetValues", thread=hits[0].thread,
                                             frame=frames.frames[0].frame_id, slots=[{"slot": 5, "sigbyte": ord("I")}])
                    fired += [(by_request[e.request_id], values.values[0].slot_value.value) for e in hits]
                    await c.command("ThreadReference", "Resume", thread=hits[0].thread)
                if any(int(e.event_kind) == EventKind.BREAKPOINT and e.location.method_id == done for e in events):
                    break
            assert sorted(fired) == sorted(CONDITIONS.items()), "each condition true exactly once, at its i"
            assert walk_entries == 0
            for rid, text in by_request.items():
                stats = await c.command("Jdwpd", "RequestStats", request_id=rid)
                assert stats.evaluations == N and stats.hits == 1, (text, stats)
                assert stats.locals_by_jvmti == 0, (text, stats)
                if mode:
                    assert stats.locals_walked >= N and stats.locals_in_frame == 0, (text, stats)
                else:  # the one walk at the location only learned its slots' kinds
                    assert stats.locals_in_frame >= N and stats.locals_walked == 0, (text, stats)
                assert stats.other_errors == stats.type_errors == 0, (text, stats)
            await c.command("VirtualMachine", "Resume")
            await vm.wait_exit(TIMEOUT)


async def _capture_at(classes, lines, target: int, java, jvm_args=(), object_ids=False, frames=4, locals_frames=3,
                      watches=()):
    """The one capture of 4 frames (locals of 3, `this`) at leaf(i == target), and its request's stats.
    With ``object_ids``, each id in it is checked to be the VM's JDWP id of that object."""
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "Live", [str(N)], java=java, jvm_args=jvm_args) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            await c.command("VirtualMachine", "JdwpdHello", client_version=1)
            ref = await prepare(c, "Live")
            method, index = await location_of_line(c, ref, lines["bp"])
            cond = await c.command("Jdwpd", "CompileCondition", ref_type=ref, method_id=method, index=index,
                                   expression=f"i == {target}")
            watch_ids = []
            for text in watches:
                w = await c.command("Jdwpd", "CompileExpression", ref_type=ref, method_id=method, index=index,
                                    expression=text)
                assert w.status == 0, (text, w.message)
                watch_ids.append(w.expr_id)
            cap = await c.command("Jdwpd", "DefineCapture", frames=frames, locals_frames=locals_frames, depth=1,
                                  max_string=64, max_items=10, max_bytes=65536, max_micros=0, this_object=True,
                                  object_ids=object_ids, watches=watch_ids)
            req = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                  suspend_policy=SuspendPolicy.NONE,
                                  modifiers=breakpoint_mods(ref, method, index, conditional(cond.expr_id),
                                                            conditional(cap.capture_id), await _no_quota(c)))
            await _stop_at_done(c, ref, lines)
            await c.command("VirtualMachine", "Resume")
            captures = []
            while True:
                _, events = await c.next_event(TIMEOUT)
                captures += [decode_capture(e.data) for e in events if int(e.event_kind) == EventKind.JDWPD_CAPTURE]
                if any(int(e.event_kind) == EventKind.BREAKPOINT for e in events):
                    break
            stats = await c.command("Jdwpd", "RequestStats", request_id=req.request_id)
            if object_ids:  # the ids name the objects over JDWP while the VM waits at the end
                this_id = captures[0]["this"]["@id"]
                arr_id = captures[0]["frames"][0]["locals"]["arr"]["@id"]
                kinds = []
                for oid in (this_id, arr_id):
                    ref = await c.command("ObjectReference", "ReferenceType", object=oid)
                    kinds.append((await c.command("ReferenceType", "Signature", ref_type=ref.type_id)).signature)
                assert kinds == ["LLive;", "[I"]
                assert all(f.get("this", {}).get("@id") == this_id for f in captures[0]["frames"][:3])
            await c.command("VirtualMachine", "Resume")
            await vm.wait_exit(TIMEOUT)
    assert len(captures) == 1, (captures, stats)
    for frame in captures[0]["frames"]:  # IDs differ from one VM to the next
        del frame["class"], frame["method"]
    return captures[0], stats


@pytest.mark.parametrize("java", _javas())
async def test_a_capture_walks_compiled_callers_and_reads_what_jvmti_reads(live_classes, java):
    in_place_or_skip(java)  # its condition reads in place
    classes, lines = live_classes
    i = WARM + 10
    walked, stats = await _capture_at(classes, lines, i, java)
    by_jvmti, jvmti_stats = await _capture_at(classes, lines, i, java, ["-Djdwpd.liveLocals=false"])
    reads = N + 11 + 4 + 2 + 3  # the condition's `i` at every hit, then the capture's locals and `this`s
    # The condition reads in place; the capture's top frame is read by its walk, the compiled
    # callers' too but through JVMTI where the walk shows null (scalar-replaced objects: only
    # JVMTI reallocates them; `tag` below is one).
    assert stats.locals_in_frame == N, stats
    assert stats.locals_walked + stats.locals_by_jvmti == reads - N and stats.locals_walked >= 12, stats
    assert jvmti_stats.locals_walked == jvmti_stats.locals_in_frame == 0, jvmti_stats
    assert jvmti_stats.locals_by_jvmti == reads, jvmti_stats
    assert walked == by_jvmti
    frames = walked["frames"]
    assert frames[0]["locals"] == {
        "z": i % 2 == 0, "b": _byte(-i), "c": chr((ord("a") + i) & 0xFFFF), "s": _short(i * 300), "i": i,
        "l": i * 5_000_000_000, "fl": i * 1.5, "d": -i * 0.25, "str": "s" + str(i), "arr": [i, i + 1],
        "node": None,  # i % 3 == 0
    }, frames[0]
    assert frames[1]["locals"] == {"i": i, "mark": 77, "half": i / 2.0, "tag": f"t{i}"}, frames[1]
    assert frames[2]["locals"] == {"i": i, "big": -(2 ** 63) + i}, frames[2]
    assert "locals" not in frames[3], "locals of three frames only"
    assert walked["this"] == {"@type": "LLive;", "f": 5}
    assert [f.get("this") for f in frames] == [{"@type": "LLive;", "f": 5}] * 3 + [None], "`this` of each read frame"


async def test_a_capture_with_ids_names_its_objects_by_their_jdwp_ids(live_classes):
    classes, lines = live_classes
    await _capture_at(classes, lines, WARM + 10, None, object_ids=True)


@pytest.mark.parametrize("java", _javas())
async def test_a_capture_of_the_top_frame_alone_reads_it_in_place(live_classes, java):
    """A logpoint's or one-frame snapshot's locals, `this` and watches: in place, no walk, and the
    same capture as a walk and as JVMTI give."""
    in_place_or_skip(java)
    classes, lines = live_classes
    i = WARM + 16
    how = {"frames": 1, "locals_frames": 1, "watches": ["str.length() + i", "this.f * l", "node"]}
    in_place, stats = await _capture_at(classes, lines, i, java, **how)
    walked, walk_stats = await _capture_at(classes, lines, i, java, ["-Djdwpd.frameLocals=false"], **how)
    by_jvmti, jvmti_stats = await _capture_at(classes, lines, i, java, ["-Djdwpd.liveLocals=false"], **how)
    assert in_place == walked == by_jvmti
    assert in_place["frames"][0]["locals"]["str"] == f"s{i}" and in_place["this"] == {"@type": "LLive;", "f": 5}
    reads = N + 11 + 1 + 5  # the condition's `i` at every hit; 11 locals, `this`, the watches' str, i, this, l, node
    assert stats.locals_in_frame == reads and stats.locals_walked == stats.locals_by_jvmti == 0, stats
    assert walk_stats.locals_walked == reads and walk_stats.locals_in_frame == walk_stats.locals_by_jvmti == 0
    assert jvmti_stats.locals_by_jvmti == reads, jvmti_stats
