"""A thread that has ended, where the reference gives no answer to compare with.

Everything else about ended threads is compared with the reference by the conformance scenario
threads_ended (tests/conformance/scenarios_ended.py).  Its one gap: StackFrame.PopFrames on an ended
thread that a debugger has suspended kills the reference's VM (JDK 17: "JDWP exit error
AGENT_ERROR_INVALID_THREAD ... getting thread invoke request", then SIGSEGV in threadControl_popFrames).
jdwpd answers INVALID_THREAD for the frame ids of generation 0 (the one the reference's count of the
ended thread starts again with: the worker's frames of its first stop are of it), as GetValues and
ThisObject do there, and the VM runs on.
"""

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import ErrorCode, EventKind, ModKind, SuspendPolicy
from tests.commands.types_support import TIMEOUT, Transcript

pytestmark = pytest.mark.jvm


async def _breakpoint(t: Transcript, ref: int, line: int, *mods: dict) -> int:
    for m in (await t.client.command("ReferenceType", "Methods", ref_type=ref, timeout=TIMEOUT)).declared:
        code, table = await t.client.command_raw("Method", "LineTable", ref_type=ref, method_id=m.method_id,
                                                 timeout=TIMEOUT)
        for entry in table.lines if code == 0 else ():
            if entry.line_number == line:
                loc = {"type_tag": 1, "class_id": ref, "method_id": m.method_id, "index": entry.line_code_index}
                r = await t.ok("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                               suspend_policy=SuspendPolicy.ALL,
                               modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}, *mods])
                return r.request_id
    raise AssertionError(f"no code at line {line}")


async def test_pop_frames_of_an_ended_suspended_thread(sample_classes, sample_markers):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", sample_classes, "Sample") as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                t = Transcript(client, "jdwpd")
                main, sample = await t.run_to_line("Sample", sample_markers["CALL_WORKERS"])
                await t.ok("EventRequest", "ClearAllBreakpoints")
                await _breakpoint(t, sample, sample_markers["WORK_LOOP"], {"mod_kind": ModKind.COUNT, "count": 1})
                await t.ok("VirtualMachine", "Resume")
                _, events = await client.wait_for_event(EventKind.BREAKPOINT, timeout=TIMEOUT)
                worker = events[0].thread
                frames = (await t.ok("ThreadReference", "Frames", thread=worker, start_frame=0, length=-1)).frames
                await _breakpoint(t, sample, sample_markers["WORKERS_JOINED"])
                await t.ok("VirtualMachine", "Resume")
                _, events = await client.wait_for_event(EventKind.BREAKPOINT, timeout=TIMEOUT)
                assert events[0].thread == main
                assert (await t.ok("ThreadReference", "Status", thread=worker)).thread_status == 0  # ZOMBIE
                await t.ok("ThreadReference", "Suspend", thread=worker)
                for frame in (frames[0].frame_id, frames[1].frame_id):
                    code, _ = await t.cmd("StackFrame", "PopFrames", thread=worker, frame=frame)
                    assert code == ErrorCode.INVALID_THREAD
                # The VM is unharmed: main's stack is there, and the program runs to its end.
                assert (await t.ok("ThreadReference", "FrameCount", thread=main)).frame_count >= 2
                await t.ok("ThreadReference", "Resume", thread=worker)
                await t.ok("EventRequest", "ClearAllBreakpoints")
                await t.ok("VirtualMachine", "Resume")
                await client.wait_for_event(EventKind.VM_DEATH, timeout=TIMEOUT)
                assert "done" in debuggee.output.text("stdout")
