"""Several debuggers on one VM through jdwpd, and debuggers that leave: the VM runs on.

The reference allows one debugger at a time, so these run against jdwpd only.
"""

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, ModKind, SuspendPolicy

pytestmark = pytest.mark.jvm
TIMEOUT = 30


@pytest.fixture
def need_jdwpd():
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)


def _prepare(pattern, policy):
    return dict(event_kind=EventKind.CLASS_PREPARE, suspend_policy=policy,
                modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": pattern}])


async def test_two_debuggers_get_their_own_events(need_jdwpd, sample_classes):
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jdwpd_jvm(sample_classes, "Sample") as vm:
            async with open_jdwp_client(vm.host, vm.port) as a, open_jdwp_client(vm.host, vm.port) as b:
                policy, events = await a.next_event(TIMEOUT)
                assert events[0].event_kind == EventKind.VM_START and policy == SuspendPolicy.ALL
                ra = await a.command("EventRequest", "Set", _prepare("LateLoaded", SuspendPolicy.ALL))
                rb = await b.command("EventRequest", "Set", _prepare("LateLoaded", SuspendPolicy.NONE))
                rb2 = await b.command("EventRequest", "Set", _prepare("Late*", SuspendPolicy.EVENT_THREAD))
                assert ra.request_id == rb.request_id == 2  # each debugger counts its own ids
                await a.command("VirtualMachine", "Resume")
                pa, ea = await a.wait_for_event(EventKind.CLASS_PREPARE, TIMEOUT)
                pb, eb = await b.wait_for_event(EventKind.CLASS_PREPARE, TIMEOUT)
                assert (pa, [e.request_id for e in ea]) == (SuspendPolicy.ALL, [2])
                assert pb == SuspendPolicy.EVENT_THREAD and sorted(e.request_id for e in eb) == [2, rb2.request_id]
                thread = ea[0].thread
                # A's VM-wide suspension and B's own thread suspension are counted separately
                assert (await b.command("ThreadReference", "SuspendCount", thread=thread)).suspend_count == 2
                await a.command("VirtualMachine", "Resume")
                assert (await b.command("ThreadReference", "SuspendCount", thread=thread)).suspend_count == 1
                await b.command("ThreadReference", "Resume", thread=thread)
                await a.wait_for_event(EventKind.VM_DEATH, TIMEOUT)
                await b.wait_for_event(EventKind.VM_DEATH, TIMEOUT)
            assert await vm.wait_exit(TIMEOUT) == 0


async def test_a_vanishing_debugger_leaves_the_vm_running(need_jdwpd, sample_classes):
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jdwpd_jvm(sample_classes, "Sample") as vm:
            async with open_jdwp_client(vm.host, vm.port) as a:
                await a.next_event(TIMEOUT)  # VMStart: everything suspended
                await a.command("VirtualMachine", "Suspend")
                await a.command("EventRequest", "Set", _prepare("LateLoaded", SuspendPolicy.ALL))
                main = (await a.command("VirtualMachine", "AllThreads")).threads[0].thread
                await a.command("ThreadReference", "Suspend", thread=main)
                assert (await a.command("ThreadReference", "SuspendCount", thread=main)).suspend_count == 3
            # the socket is gone without a Dispose: its suspensions and requests go with it
            assert await vm.wait_exit(TIMEOUT) == 0


async def test_dispose_then_another_debugger(need_jdwpd, sample_classes):
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jdwpd_jvm(sample_classes, "Sample") as vm:
            async with open_jdwp_client(vm.host, vm.port) as a:
                await a.next_event(TIMEOUT)
                await a.command("VirtualMachine", "Suspend")
                main = (await a.command("VirtualMachine", "AllThreads")).threads[0].thread
                await a.command("VirtualMachine", "Dispose")
                await a.wait_closed(TIMEOUT)
            async with open_jdwp_client(vm.host, vm.port) as b:
                code, reply = await b.command_raw("ThreadReference", "SuspendCount", thread=main)
                assert code != 0 or reply.suspend_count == 0
                # the VM runs to its end: a later debugger gets no VMStart (as with the reference), its VMDeath
                _, events = await b.next_event(TIMEOUT)
                assert [e.event_kind for e in events] == [EventKind.VM_DEATH]
            assert await vm.wait_exit(TIMEOUT) == 0


SLOW_SOURCE = """\
public class Slow {
    static int nap(int ms) throws Exception {
        Thread.sleep(ms);
        return ms;
    }

    public static void main(String[] args) throws Exception {
        int x = 1; // @marker SLOW_MAIN
        System.out.println(nap(10) + x);
    }
}
"""


@pytest.fixture
def slow_classes(tmp_path):
    from jdwpd.testing import debuggees

    src = tmp_path / "slow"
    src.mkdir()
    (src / "Slow.java").write_text(SLOW_SOURCE)
    return debuggees.compile_sources(src), debuggees.markers(src / "Slow.java")["SLOW_MAIN"]


async def test_queries_are_answered_while_an_invoke_runs_and_changes_keep_their_order(need_jdwpd, slow_classes):
    from tests.commands.types_support import Transcript

    classes, line = slow_classes
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jdwpd_jvm(classes, "Slow") as vm:
            async with open_jdwp_client(vm.host, vm.port) as c:
                t = Transcript(c, "jdwpd")
                thread, slow = await t.run_to_line("Slow", line)
                methods = (await c.command("ReferenceType", "Methods", ref_type=slow)).declared
                nap = next(m.method_id for m in methods if m.name == "nap")
                # Suspend and SuspendCount sent back to back: the query sees the change before it
                s1 = await c.send_packet(11, 2, thread.to_bytes(8, "big"))
                s2 = await c.send_packet(11, 12, thread.to_bytes(8, "big"))
                assert (await c.reply(s1, TIMEOUT)).error_code == 0
                assert int.from_bytes((await c.reply(s2, TIMEOUT)).data, "big") == 2
                await c.command("ThreadReference", "Resume", thread=thread)
                # a 1.5 s invoke does not hold up queries sent after it
                from protocol import messages, spec

                cs = spec.by_name("ClassType", "InvokeMethod")
                data = messages.encode_command(cs, dict(clazz=slow, thread=thread, method_id=nap,
                                                        arguments=[{"tag": ord("I"), "value": 1500}], options=1))
                invoke = await c.send_packet(cs.set_id, cs.cmd_id, data)
                started = trio.current_time()
                await c.command("VirtualMachine", "Version")
                await c.command("VirtualMachine", "AllThreads")
                await c.command("ThreadReference", "Name", thread=thread)
                # ... nor changes: the reference's command loop goes on while an invoke runs
                r = await c.command("EventRequest", "Set", _prepare("Nothing*", SuspendPolicy.NONE))
                await c.command("EventRequest", "Clear", event_kind=EventKind.CLASS_PREPARE, request_id=r.request_id)
                assert trio.current_time() - started < 1.0
                reply = await c.reply(invoke, TIMEOUT)
                assert reply.error_code == 0
                result = messages.decode_reply(cs, reply.data)
                assert result.return_value.value == 1500 and result.exception.object_id == 0
                assert trio.current_time() - started >= 1.4
                await c.command("VirtualMachine", "Resume")
                await c.wait_for_event(EventKind.VM_DEATH, TIMEOUT)
            assert await vm.wait_exit(TIMEOUT) == 0
