"""The VM façade used in-process (the scripting layer's view): a real JVM and agent, no JDWP bytes."""

import pytest
import trio

from jdwpd.model.requests import Modifier
from protocol.constants import EventKind, ModKind, SuspendPolicy
from tests.commands.types_support import sample_in_process

pytestmark = pytest.mark.jvm
TIMEOUT = 30


async def test_script_session_events_frames_and_leaving(sample_classes):
    with trio.fail_after(3 * TIMEOUT):
        async with sample_in_process(sample_classes) as (vm, jvm):
            assert vm.properties.get("java.version")
            async with vm.script_session() as s:
                policy, events = await s.events.receive()
                assert policy == SuspendPolicy.ALL and events[0].event_kind == EventKind.VM_START
                req = await s.request(EventKind.CLASS_PREPARE, SuspendPolicy.EVENT_THREAD,
                                      [Modifier(ModKind.CLASS_MATCH, {"pattern": "LateLoaded"})])
                await s.resume()
                while True:
                    policy, events = await s.events.receive()
                    if events[0].event_kind == EventKind.CLASS_PREPARE:
                        break
                assert policy == SuspendPolicy.EVENT_THREAD and events[0].request_id == req.request_id
                thread = events[0].thread
                frames = await s.frames(thread)
                assert frames and all(location.method_id for _, location in frames)
                # the frame ids carry the generation, as a debugger's do: locals read through them
                assert await vm.frame_depth(thread, frames[1][0]) == 1
                assert await vm.get_locals(thread, frames[0][0], []) == []
                assert await vm.thread_name(thread) == "main"
                assert await vm.suspend_count(thread) == 1
                assert vm.threads.has_frames_out(thread)
            # leaving resumed the event thread and dropped the request: the program ends normally
            assert await jvm.process.wait() == 0
            await vm.wait_dead()
