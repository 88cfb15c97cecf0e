"""ThreadReference and ThreadGroupReference: the same session under the reference agent and jdwpd."""

import pytest

from protocol.constants import ErrorCode, Tag
from tests.commands.types_support import differential

pytestmark = pytest.mark.jvm


async def test_threads_at_a_breakpoint(sample_classes, sample_markers):
    async def scenario(t):
        thread, _ = await t.run_to_line("Sample", sample_markers["COMPUTE_TOTAL"])
        await t.ok("ThreadReference", "Name", thread=thread)
        await t.ok("ThreadReference", "Status", thread=thread)
        await t.ok("ThreadReference", "SuspendCount", thread=thread)
        group = (await t.ok("ThreadReference", "ThreadGroup", thread=thread)).group
        count = (await t.ok("ThreadReference", "FrameCount", thread=thread)).frame_count
        assert count >= 2
        await t.ok("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1)
        await t.ok("ThreadReference", "Frames", thread=thread, start_frame=1, length=1)
        await t.cmd("ThreadReference", "Frames", thread=thread, start_frame=count, length=1)
        await t.cmd("ThreadReference", "Frames", thread=thread, start_frame=0, length=count + 1)
        await t.cmd("ThreadReference", "Frames", thread=thread, start_frame=-1, length=1)
        await t.cmd("ThreadReference", "Frames", thread=thread, start_frame=count + 5, length=0)
        await t.ok("ThreadReference", "OwnedMonitors", thread=thread)
        await t.ok("ThreadReference", "CurrentContendedMonitor", thread=thread)
        await t.ok("ThreadReference", "OwnedMonitorsStackDepthInfo", thread=thread)
        await t.cmd("ThreadReference", "IsVirtual", thread=thread)
        # the group of the thread, its parent and children
        await t.ok("ThreadGroupReference", "Name", group=group)
        parent = (await t.ok("ThreadGroupReference", "Parent", group=group)).parent_group
        await t.ok("ThreadGroupReference", "Name", group=parent)
        await t.ok("ThreadGroupReference", "Parent", group=parent)
        await t.ok("ThreadGroupReference", "Children", group=parent)
        # ids of the wrong kind, unknown ids
        code, _ = await t.cmd("ThreadReference", "Name", thread=group)
        assert code == ErrorCode.INVALID_THREAD
        code, _ = await t.cmd("ThreadGroupReference", "Name", group=thread)
        assert code == ErrorCode.INVALID_THREAD_GROUP
        code, _ = await t.cmd("ThreadReference", "Status", thread=0x7FFFFFF0)
        assert code == ErrorCode.INVALID_OBJECT
        # nested suspension, counted
        await t.ok("ThreadReference", "Suspend", thread=thread)
        assert (await t.ok("ThreadReference", "SuspendCount", thread=thread)).suspend_count == 2
        await t.ok("ThreadReference", "Resume", thread=thread)
        await t.ok("ThreadReference", "SuspendCount", thread=thread)
        await t.ok("ThreadReference", "Status", thread=thread)
        # every thread of the VM, and the top groups
        threads = (await t.ok("VirtualMachine", "AllThreads")).threads
        for th in threads:
            await t.ok("ThreadReference", "Name", thread=th.thread)
            await t.ok("ThreadReference", "SuspendCount", thread=th.thread)
        for g in (await t.ok("VirtualMachine", "TopLevelThreadGroups")).groups:
            await t.ok("ThreadGroupReference", "Name", group=g.group)
            await t.ok("ThreadGroupReference", "Parent", group=g.group)
            await t.ok("ThreadGroupReference", "Children", group=g.group)

    await differential(sample_classes, "Sample", scenario)


async def test_force_early_return_and_not_suspended(sample_classes, sample_markers):
    async def scenario(t):
        thread, _ = await t.run_to_line("Sample", sample_markers["COMPUTE_TOTAL"])
        code, _ = await t.cmd("ThreadReference", "ForceEarlyReturn", thread=thread,
                              value={"tag": Tag.LONG, "value": 5})
        assert code == ErrorCode.TYPE_MISMATCH
        await t.ok("ThreadReference", "ForceEarlyReturn", thread=thread, value={"tag": Tag.INT, "value": 77})
        # a thread that runs and never ends (so the VM cannot end under the questions): the Finalizer
        for th in (await t.ok("VirtualMachine", "AllThreads", record=False)).threads:
            if (await t.ok("ThreadReference", "Name", thread=th.thread, record=False)).thread_name == "Finalizer":
                finalizer = th.thread
        await t.ok("ThreadReference", "Resume", thread=finalizer)
        for cmd in ("FrameCount", "OwnedMonitors", "CurrentContendedMonitor", "OwnedMonitorsStackDepthInfo"):
            code, _ = await t.cmd("ThreadReference", cmd, thread=finalizer)
            assert code == ErrorCode.THREAD_NOT_SUSPENDED
        await t.cmd("ThreadReference", "Frames", thread=finalizer, start_frame=0, length=-1)
        await t.ok("ThreadReference", "Status", thread=finalizer)
        await t.ok("VirtualMachine", "Resume")

    await differential(sample_classes, "Sample", scenario)


async def test_a_thread_that_ended(sample_classes):
    from protocol.constants import EventKind, SuspendPolicy
    from tests.commands.types_support import TIMEOUT

    async def scenario(t):
        c = t.client
        await c.next_event(TIMEOUT)  # VMStart
        death = await t.ok("EventRequest", "Set", event_kind=EventKind.THREAD_DEATH,
                           suspend_policy=SuspendPolicy.EVENT_THREAD, modifiers=[])
        await t.ok("VirtualMachine", "Resume")
        while True:  # the workers end in any order: wait for the one thread that ends alone
            _, events = await c.wait_for_event(EventKind.THREAD_DEATH, TIMEOUT)
            thread = events[0].thread
            name = (await t.ok("ThreadReference", "Name", thread=thread, record=False)).thread_name
            if name == "doomed":
                break
            await t.ok("ThreadReference", "Resume", thread=thread, record=False)
        # at its death event the thread is still alive, and suspended
        await t.ok("ThreadReference", "Status", thread=thread)
        await t.ok("ThreadReference", "SuspendCount", thread=thread)
        await t.ok("ThreadReference", "Name", thread=thread)
        await t.ok("EventRequest", "Clear", event_kind=EventKind.THREAD_DEATH, request_id=death.request_id)
        # everything else stays suspended (so the VM cannot end under the questions); the thread ends
        await t.ok("VirtualMachine", "Suspend")
        await t.ok("ThreadReference", "Resume", thread=thread)
        await t.ok("ThreadReference", "Resume", thread=thread)
        for _ in range(200):
            if (await t.ok("ThreadReference", "Status", thread=thread, record=False)).thread_status == 0:
                break
            await trio_sleep(0.01)
        for cmd in ("Status", "SuspendCount", "Name", "FrameCount", "Interrupt", "OwnedMonitors",
                    "CurrentContendedMonitor"):
            await t.cmd("ThreadReference", cmd, thread=thread, note="ended")
        await t.cmd("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1, note="ended")
        # (What a thread that ended counts once a debugger suspends it while the VM is suspended is
        # the reference's own affair: it starts the count at the VM's suspend depth.)
        for cmd in ("Suspend", "Resume"):
            await t.cmd("ThreadReference", cmd, thread=thread, note="ended")
        await t.ok("VirtualMachine", "Resume")

    await differential(sample_classes, "Sample", scenario)


async def trio_sleep(seconds):
    import trio

    await trio.sleep(seconds)


async def test_counts_after_an_all_suspending_event(sample_classes, sample_markers):
    async def scenario(t):
        thread, _ = await t.run_to_line("Sample", sample_markers["WORKERS_JOINED"])
        threads = (await t.ok("VirtualMachine", "AllThreads", record=False)).threads
        names = {}
        for th in threads:
            names[th.thread] = (await t.ok("ThreadReference", "Name", thread=th.thread, record=False)).thread_name
        order = sorted(names, key=lambda k: names[k])

        async def counts(note):
            t.note(note, [(names[k], (await t.ok("ThreadReference", "SuspendCount", thread=k, record=False))
                           .suspend_count) for k in order])

        # the event thread never runs before the last resume: the VM must not end under the questions
        await counts("at the breakpoint")
        await t.ok("VirtualMachine", "Suspend")
        await counts("suspended again")
        await t.ok("ThreadReference", "Resume", thread=thread)
        await counts("event thread resumed once")
        await t.ok("ThreadReference", "Suspend", thread=thread)
        await t.ok("ThreadReference", "Suspend", thread=thread)
        await t.ok("VirtualMachine", "Resume")
        await counts("one VM resume")
        await t.ok("VirtualMachine", "Resume")
        await counts("two VM resumes")
        await t.ok("ThreadReference", "Resume", thread=thread)

    await differential(sample_classes, "Sample", scenario)
