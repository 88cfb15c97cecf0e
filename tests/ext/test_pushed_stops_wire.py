"""Jdwpd.PushStops over the wire: a session that asks gets, with each later stop at a line, a
JdwpdStop whose frames and locals are byte for byte what Frames and GetValues answer; a session
that does not ask gets none (its composites are the reference's).  From the second stop at a line
on, the agent reads them in the event's callback (agent/stop_reads.c): the link's trace says so."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol import messages, spec
from protocol.constants import EventKind, SuspendPolicy
from protocol.pushed_stop import decode_stop, values_reply
from tests.ext.ext_support import TIMEOUT, breakpoint_mods, location_of_line, prepare

pytestmark = pytest.mark.jvm

PUSHED = Path(__file__).resolve().parents[1] / "java" / "pushed"
HITS = 8
_FRAMES = spec.by_name("ThreadReference", "Frames")
_GET_VALUES = spec.by_name("StackFrame", "GetValues")


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(PUSHED)


async def _raw_reply(c, cs: spec.CommandSpec, **fields) -> bytes:
    reply = await c.request(cs.set_id, cs.cmd_id, messages.encode_command(cs, fields, c.sizes), cs.label)
    assert reply.error_code == 0, (cs.label, reply.error_code)
    return reply.data


async def _stops(classes: Path, push: bool) -> tuple[int, list[str]]:
    """How many hits came with a JdwpdStop; what differed from the server's own answers (asked of
    the agent's executor after the stop)."""
    line = debuggees.all_markers(PUSHED)["pushed_step"]
    pushed, wrong = 0, []
    with trio.fail_after(2 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "pushed.Main", [str(HITS)]) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            await c.command("VirtualMachine", "JdwpdHello", client_version=4)
            await c.command("Jdwpd", "PushStops", enabled=push)
            ref = await prepare(c, "pushed.Main")
            method, index = await location_of_line(c, ref, line)
            await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                            suspend_policy=SuspendPolicy.EVENT_THREAD, modifiers=breakpoint_mods(ref, method, index))
            await c.command("VirtualMachine", "Resume")
            for k in range(HITS):
                _, events = await c.next_event(TIMEOUT)
                hit = next(e for e in events if int(e.event_kind) == EventKind.BREAKPOINT)
                stops = [e for e in events if int(e.event_kind) == EventKind.JDWPD_STOP]
                assert len(stops) <= 1 and events[0] is hit
                if stops:
                    pushed += 1
                    stop = decode_stop(hit.thread, bytes(stops[0].data))
                    frames = await _raw_reply(c, _FRAMES, thread=hit.thread, start_frame=0, length=-1)
                    if stop.frames_reply(0, -1) != frames:
                        wrong.append(f"hit {k}: frames")
                    slots = sorted((slot, value[0]) for slot, value in stop.values.items())
                    if len(slots) != 5:  # i, l, d, z, c: the primitive arguments visible at the line
                        wrong.append(f"hit {k}: slots {slots}")
                    values = await _raw_reply(c, _GET_VALUES, thread=hit.thread, frame=stop.top_frame_id,
                                              slots=slots)
                    if values_reply([stop.values[s] for s, _ in slots]) != values:
                        wrong.append(f"hit {k}: values")
                await c.command("ThreadReference", "Resume", thread=hit.thread)
            assert await vm.wait_exit(TIMEOUT) == 0  # the last hit resumed: the program ends
    return pushed, wrong


async def test_a_session_that_asks_gets_its_stops_pushed_as_the_server_answers(classes, tmp_path, monkeypatch):
    trace = tmp_path / "link.trace"
    monkeypatch.setenv("JDWPD_LINK_TRACE", str(trace))
    pushed, wrong = await _stops(classes, push=True)
    assert wrong == []
    assert pushed >= HITS - 2  # the first stop at a line learns its variables
    # ... and the ones after the next read them in the callback, with the event
    assert trace.read_text().count("read at the stop") >= HITS - 3


async def test_a_session_that_does_not_ask_gets_none(classes):
    pushed, _ = await _stops(classes, push=False)
    assert pushed == 0


async def test_push_stops_before_hello_is_not_implemented(classes):
    with trio.fail_after(2 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "pushed.Main", ["1"]) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
            reply = await c.request(128, 9, b"\x01", "Jdwpd.PushStops")
            assert reply.error_code == 99  # NOT_IMPLEMENTED, as every command of the set before JdwpdHello


async def test_a_session_that_holds_nothing_gets_no_stop_even_where_another_holds_the_thread(classes):
    """Session A asks for pushed stops but its breakpoint suspends nothing; session B holds the thread
    at the same place.  A's composites (policy NONE) carry no JdwpdStop: A does not hold the thread, so
    the stack could change under answers it would give itself."""
    line = debuggees.all_markers(PUSHED)["pushed_step"]
    with trio.fail_after(2 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "pushed.Main", [str(HITS)]) as vm, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as a, \
                open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as b:
            await a.command("VirtualMachine", "JdwpdHello", client_version=4)
            await a.command("Jdwpd", "PushStops", enabled=True)
            ref = await prepare(a, "pushed.Main")  # the first debugger holds the start and the prepare
            method, index = await location_of_line(a, ref, line)
            for c, policy in ((a, SuspendPolicy.NONE), (b, SuspendPolicy.EVENT_THREAD)):
                await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=policy,
                                modifiers=breakpoint_mods(ref, method, index))
            await a.command("VirtualMachine", "Resume")
            for _ in range(HITS):
                _, events = await b.next_event(TIMEOUT)
                hit = next(e for e in events if int(e.event_kind) == EventKind.BREAKPOINT)
                await b.command("ThreadReference", "Resume", thread=hit.thread)
            seen = []
            for _ in range(HITS):
                policy, events = await a.next_event(TIMEOUT)
                assert policy == SuspendPolicy.NONE
                seen += [int(e.event_kind) for e in events]
            assert seen == [EventKind.BREAKPOINT] * HITS
            assert await vm.wait_exit(TIMEOUT) == 0
