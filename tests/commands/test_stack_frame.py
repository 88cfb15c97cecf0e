"""StackFrame: locals, this, stale frame ids, PopFrames; reference agent vs jdwpd."""

import pytest

from protocol.constants import ErrorCode, EventKind, ModKind, SuspendPolicy, Tag
from tests.commands.types_support import TIMEOUT, differential

pytestmark = pytest.mark.jvm


async def _frames(t, thread):
    return (await t.ok("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1)).frames


async def _breakpoint_at(t, ref, line):
    """A SUSPEND_ALL breakpoint at the first code of ``line`` in class ``ref``."""
    for m in (await t.ok("ReferenceType", "Methods", ref_type=ref, record=False)).declared:
        code, table = await t.cmd("Method", "LineTable", ref_type=ref, method_id=m.method_id, record=False)
        for entry in table.lines if code == 0 else ():
            if entry.line_number == line:
                loc = {"type_tag": 1, "class_id": ref, "method_id": m.method_id, "index": entry.line_code_index}
                return await t.ok("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                  suspend_policy=SuspendPolicy.ALL,
                                  modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}])
    raise AssertionError(f"no code at line {line}")


async def _slots(t, frame):
    """(slot, tag) of the variables of the frame's method, from its variable table."""
    loc = frame.location
    table = await t.ok("Method", "VariableTable", ref_type=loc.class_id, method_id=loc.method_id)
    return [(v.slot, ord(v.signature[0]) if v.signature[0] not in "L[" else Tag.OBJECT)
            for v in table.slots if v.code_index <= loc.index < v.code_index + v.length]


async def test_locals_this_and_errors(sample_classes, sample_markers):
    async def scenario(t):
        thread, _ = await t.run_to_line("Sample", sample_markers["COMPUTE_TOTAL"])
        frames = await _frames(t, thread)
        top, caller = frames[0], frames[1]
        slots = await _slots(t, top)
        assert slots
        await t.ok("StackFrame", "GetValues", thread=thread, frame=top.frame_id, slots=slots)
        await t.ok("StackFrame", "ThisObject", thread=thread, frame=top.frame_id)
        await t.ok("StackFrame", "ThisObject", thread=thread, frame=caller.frame_id)  # static main: null
        caller_slots = await _slots(t, caller)
        await t.ok("StackFrame", "GetValues", thread=thread, frame=caller.frame_id, slots=caller_slots)
        # wrong slot, wrong type
        await t.cmd("StackFrame", "GetValues", thread=thread, frame=top.frame_id, slots=[(99, Tag.INT)])
        int_slot = next(s for s, tag in slots if tag == Tag.INT)
        await t.cmd("StackFrame", "GetValues", thread=thread, frame=top.frame_id, slots=[(int_slot, Tag.LONG)])
        # set a local and read it back
        await t.ok("StackFrame", "SetValues", thread=thread, frame=top.frame_id,
                   slot_values=[(int_slot, {"tag": Tag.INT, "value": 1234})])
        await t.ok("StackFrame", "GetValues", thread=thread, frame=top.frame_id, slots=[(int_slot, Tag.INT)])
        await t.cmd("StackFrame", "SetValues", thread=thread, frame=top.frame_id,
                    slot_values=[(int_slot, {"tag": Tag.LONG, "value": 1})])
        # a frame id that was never handed out at this depth
        code, _ = await t.cmd("StackFrame", "ThisObject", thread=thread, frame=top.frame_id + 500)
        assert code != 0
        # nested suspension: frames survive a resume that leaves the thread suspended
        await t.ok("ThreadReference", "Suspend", thread=thread)
        await t.ok("VirtualMachine", "Resume")
        await t.ok("StackFrame", "ThisObject", thread=thread, frame=top.frame_id)
        # the thread runs (to a breakpoint further on, so that the VM cannot end meanwhile): its
        # frames are gone, because it runs or, once it stopped again, because they are stale
        await _breakpoint_at(t, top.location.class_id, sample_markers["MAIN_END"])
        await t.ok("ThreadReference", "Resume", thread=thread)
        code, _ = await t.cmd("StackFrame", "ThisObject", thread=thread, frame=top.frame_id, record=False)
        assert code in (ErrorCode.THREAD_NOT_SUSPENDED, ErrorCode.INVALID_FRAMEID)
        await t.client.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
        await t.cmd("StackFrame", "ThisObject", thread=thread, frame=top.frame_id)
        await t.ok("VirtualMachine", "Resume")

    await differential(sample_classes, "Sample", scenario)


def _pop_scenario(popped):
    async def scenario(t):
        thread, _ = await t.run_to_line("Sample", t.markers["FACT_BASE"])
        frames = await _frames(t, thread)
        assert len(frames) >= 3
        await t.ok("ThreadReference", "Suspend", thread=thread)
        await t.ok("ThreadReference", "Resume", thread=thread)
        await t.ok("StackFrame", "ThisObject", thread=thread, frame=frames[0].frame_id)  # still suspended
        # pop the innermost factorial frame(s), then look again
        await t.ok("StackFrame", "PopFrames", thread=thread, frame=frames[popped - 1].frame_id)
        code, _ = await t.cmd("StackFrame", "ThisObject", thread=thread, frame=frames[0].frame_id)
        assert code == ErrorCode.INVALID_FRAMEID
        after = await _frames(t, thread)
        assert len(after) == len(frames) - popped
        await t.ok("ThreadReference", "FrameCount", thread=thread)
        await t.ok("StackFrame", "GetValues", thread=thread, frame=after[0].frame_id, slots=await _slots(t, after[0]))
        await t.ok("ThreadReference", "Suspend", thread=thread)
        await t.ok("VirtualMachine", "Resume")
        await t.ok("ThreadReference", "Resume", thread=thread)
        await t.ok("ThreadReference", "Suspend", thread=thread)
        code, _ = await t.cmd("StackFrame", "ThisObject", thread=thread, frame=after[0].frame_id)
        assert code == ErrorCode.INVALID_FRAMEID
        # where the thread stopped again depends on timing: its frames are not compared
        assert (await t.ok("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1,
                           record=False)).frames

    return scenario


async def test_stale_frame_after_a_resume_and_pop_one_frame(sample_classes, sample_markers):
    scenario = _pop_scenario(1)

    async def with_markers(t):
        t.markers = sample_markers
        await scenario(t)

    await differential(sample_classes, "Sample", with_markers)


async def test_pop_two_frames(sample_classes, sample_markers):
    scenario = _pop_scenario(2)

    async def with_markers(t):
        t.markers = sample_markers
        await scenario(t)

    await differential(sample_classes, "Sample", with_markers)
