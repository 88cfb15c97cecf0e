"""A stopped thread's stack and locals answered from the stop's reads ahead (issue 30 item 4):
jdwpd reads the stack, the thread's state and the top frame's primitive locals with the event
(jdwpd/daemon/fast/stop_read.py) and answers Frames and GetValues from them in the session's reader
(jdwpd/daemon/session/stop_replies.py).  The answers are the reference's, errors included: every
range of frames, locals of every kind, in any order and subset, a stale frame id, a wrong tag,
`this` of a static frame, at six stops of one thread (SUSPEND_EVENT_THREAD), raw client.  Under
jdwpd the link's trace shows the later stops answered from what was read ahead, and their Resume
answered before the agent is told to resume.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jdwpd.testing import debuggees
from jdwpd.testing.transcript import Transcript, debuggee_session
from protocol.constants import EventKind, ModKind, SuspendPolicy

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "stops_java"
STOPS = 6


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(SOURCES)


async def session(kind: str, classes: Path) -> Transcript:
    t = Transcript()
    line = debuggees.marker_line(SOURCES / "Stops.java", "stops_hit")
    async with debuggee_session(kind, classes, "Stops") as c:
        await c.wait_for_event(EventKind.VM_START, 30)
        ref = (await c.run_to_prepare("Stops", 30)).type_id
        loc = await c.line_location(ref, "hit", line)
        method = next(m.method_id for m in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared
                      if m.name == "hit")
        table = await c.command("Method", "VariableTable", ref_type=ref, method_id=method)
        slots = {v.name: (v.slot, ord(v.signature[0])) for v in table.slots
                 if v.code_index <= loc["index"] < v.code_index + v.length}
        request = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                  suspend_policy=SuspendPolicy.EVENT_THREAD,
                                  modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}])
        await c.command("VirtualMachine", "Resume")
        stale = None
        for n in range(STOPS):
            _, events = await c.wait_for_event(EventKind.BREAKPOINT, 30)
            thread = events[0].thread
            top = await t.cmd(c, "ThreadReference", "Frames", f"{n} top", must=True, thread=thread, start_frame=0,
                              length=1)
            frame = top.frames[0].frame_id
            if n % 2:
                await t.cmd(c, "ThreadReference", "Frames", f"{n} all", thread=thread, start_frame=0, length=-1)
            await t.cmd(c, "ThreadReference", "FrameCount", f"{n} count", thread=thread)
            await t.cmd(c, "ThreadReference", "Frames", f"{n} caller", thread=thread, start_frame=1, length=1)
            await t.cmd(c, "ThreadReference", "Frames", f"{n} past the end", thread=thread, start_frame=1, length=99)
            every = [{"slot": s, "sigbyte": tag} for s, tag in slots.values()]
            prims = [{"slot": s, "sigbyte": tag} for s, tag in slots.values() if chr(tag) in "ZBCSIJFD"]
            await t.cmd(c, "StackFrame", "GetValues", f"{n} i", thread=thread, frame=frame,
                        slots=[{"slot": slots["i"][0], "sigbyte": slots["i"][1]}])
            await t.cmd(c, "StackFrame", "GetValues", f"{n} primitives backwards", thread=thread, frame=frame,
                        slots=prims[::-1])
            await t.cmd(c, "StackFrame", "GetValues", f"{n} every local", thread=thread, frame=frame, slots=every)
            await t.cmd(c, "StackFrame", "GetValues", f"{n} i as a long", thread=thread, frame=frame,
                        slots=[{"slot": slots["i"][0], "sigbyte": ord("J")}])
            if stale is not None:
                await t.cmd(c, "StackFrame", "GetValues", f"{n} a frame of the last stop", thread=thread, frame=stale,
                            slots=[{"slot": slots["i"][0], "sigbyte": slots["i"][1]}])
            await t.cmd(c, "StackFrame", "ThisObject", f"{n} this", thread=thread, frame=frame)
            stale = frame
            if n == STOPS - 1:  # before the last resume: the program ends right after it, and may beat a Clear
                await c.command("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT,
                                request_id=request.request_id)
            await t.cmd(c, "ThreadReference", "Resume", f"{n} resume", thread=thread)
        await c.wait_for_event(EventKind.VM_DEATH, 30)
    return t


async def test_a_stop_read_ahead_answers_as_the_reference(classes, tmp_path, monkeypatch):
    reference = await session("reference", classes)
    trace = tmp_path / "link-trace"
    monkeypatch.setenv("JDWPD_LINK_TRACE", str(trace))
    ours = await session("jdwpd", classes)
    assert ours.steps == reference.steps
    text = trace.read_text()
    # the first stop there learns the variable table; every later one is answered from its reads ahead
    assert text.count("answered FRAME_GET_LOCALS") >= 2 * (STOPS - 1), text[-3000:]
    assert text.count("answered THREAD_FRAMES") >= STOPS - 1, text[-3000:]
    # a resume that waits for nothing is answered before it is posted: the debugger goes on while the VM
    # runs (its thread would otherwise often take the daemon's CPU before the reply went)
    replied_then_sent = "after its reply:\nsent THREAD_RESUME\n"
    assert text.count(replied_then_sent) >= STOPS - 1, text[-3000:]
