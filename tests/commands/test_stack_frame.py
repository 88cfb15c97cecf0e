"""StackFrame: locals, this, stale frame ids, PopFrames; reference agent vs jdwpd."""

import pytest

from protocol.constants import ErrorCode, Tag
from tests.commands.types_support import differential

pytestmark = pytest.mark.jvm


async def _frames(t, thread):
    return (await t.ok("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1)).frames


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
        # the thread runs: its frames are gone, first because it is not suspended ...
        await t.ok("ThreadReference", "Resume", thread=thread)
        code, _ = await t.cmd("StackFrame", "ThisObject", thread=thread, frame=top.frame_id)
        assert code in (ErrorCode.THREAD_NOT_SUSPENDED, ErrorCode.INVALID_THREAD)

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
        await _frames(t, thread)

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
