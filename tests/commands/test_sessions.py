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
