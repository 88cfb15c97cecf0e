"""The VM façade used in-process (the scripting layer's view): a real JVM and agent, no JDWP bytes."""

import pytest
import trio

from jdwpd.daemon.model.requests import Modifier
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode, EventKind, InvokeOptions, ModKind, SuspendPolicy
from protocol.link import InvokeKind
from protocol.wire import Value
from tests.commands.script_session import ScriptSession
from tests.commands.types_support import sample_in_process

pytestmark = pytest.mark.jvm
TIMEOUT = 30


async def test_script_session_events_frames_and_leaving(sample_classes):
    with trio.fail_after(3 * TIMEOUT):
        async with sample_in_process(sample_classes) as (vm, jvm):
            assert vm.properties.get("java.version")
            async with ScriptSession(vm) as s:
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
                assert vm.threads.has_frames_out(thread)  # so a resume checks whether they go stale
                # the frame ids carry the generation, as a debugger's do: locals read through them
                assert await vm.frame_depth(thread, frames[1][0]) == 1
                assert await vm.get_locals(thread, frames[0][0], []) == []
                # an invoke is the script's, as a debugger's is, and it moves the thread's frame ids on
                sample = (await vm.classes_by_signature("LSample;"))[0]["ref"]
                factorial = next(m for m in await vm.classes.methods(sample) if m.name == "factorial")
                value, exception = await s.invoke(InvokeKind.STATIC, clazz=sample, thread=thread,
                                                  method_id=factorial.method_id, args=[Value(ord("I"), 5)],
                                                  options=InvokeOptions.INVOKE_SINGLE_THREADED)
                assert value == Value(ord("I"), 120) and not exception.object_id
                with pytest.raises(JdwpError) as stale:
                    await vm.frame_depth(thread, frames[1][0])
                assert stale.value.code == ErrorCode.INVALID_FRAMEID
                assert await vm.thread_name(thread) == "main"
                assert await vm.suspend_count(thread) == 1
            # leaving resumed the event thread and dropped the request: the program ends normally
            assert await jvm.process.wait() == 0
            await vm.wait_dead()
