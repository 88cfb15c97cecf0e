"""Thread states, monitors, Interrupt and Stop on a debuggee built for them; reference agent vs jdwpd."""

import pytest

from protocol.constants import ThreadStatus
from tests.commands.types_support import differential

pytestmark = pytest.mark.jvm

MONITORS_SOURCE = """\
public class Monitors {
    static final Object lock = new Object();
    static final Object waitLock = new Object();
    static final RuntimeException BOOM = new RuntimeException("boom");

    public static void main(String[] args) throws Exception {
        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep(60000);
            } catch (InterruptedException e) {
                System.out.println("sleeper interrupted");
            }
        }, "sleeper");
        Thread waiter = new Thread(() -> {
            synchronized (waitLock) {
                try {
                    waitLock.wait();
                } catch (InterruptedException e) {
                    System.out.println("waiter interrupted");
                }
            }
        }, "waiter");
        Thread victim = new Thread(() -> {
            try {
                Thread.sleep(60000);
            } catch (InterruptedException e) {
                System.out.println("victim interrupted");
            }
        }, "victim");
        victim.setUncaughtExceptionHandler((t, e) -> System.out.println("victim stopped: " + e.getMessage()));
        Thread blocked;
        synchronized (lock) {
            blocked = new Thread(() -> {
                synchronized (lock) {
                    System.out.println("blocked got the lock");
                }
            }, "blocked");
            sleeper.start();
            waiter.start();
            victim.start();
            blocked.start();
            while (sleeper.getState() != Thread.State.TIMED_WAITING || waiter.getState() != Thread.State.WAITING
                    || victim.getState() != Thread.State.TIMED_WAITING || blocked.getState() != Thread.State.BLOCKED) {
                Thread.sleep(5);
            }
            holding();
        }
        sleeper.join();
        waiter.join();
        victim.join();
        blocked.join();
        System.out.println("done");
    }

    static void holding() {
        int x = 1; // @marker HOLDING
        System.out.println("holding " + x);
    }
}
"""


@pytest.fixture(scope="module")
def monitors_classes(tmp_path_factory):
    from jdwpd.testing import debuggees

    src = tmp_path_factory.mktemp("monitors")
    (src / "Monitors.java").write_text(MONITORS_SOURCE)
    return debuggees.compile_sources(src), debuggees.markers(src / "Monitors.java")["HOLDING"]


async def test_states_monitors_interrupt_and_stop(monitors_classes):
    classes, line = monitors_classes

    async def scenario(t):
        main, monitors = await t.run_to_line("Monitors", line)
        threads = {}
        for th in (await t.ok("VirtualMachine", "AllThreads", record=False)).threads:
            name = (await t.ok("ThreadReference", "Name", thread=th.thread, record=False)).thread_name
            threads[name] = th.thread
        for name in ("main", "sleeper", "waiter", "victim", "blocked"):
            thread = threads[name]
            status = await t.ok("ThreadReference", "Status", thread=thread, note=name)
            if name == "blocked":
                assert status.thread_status == ThreadStatus.MONITOR
            await t.ok("ThreadReference", "OwnedMonitors", thread=thread, note=name)
            await t.ok("ThreadReference", "OwnedMonitorsStackDepthInfo", thread=thread, note=name)
            await t.ok("ThreadReference", "CurrentContendedMonitor", thread=thread, note=name)
            await t.ok("ThreadReference", "FrameCount", thread=thread, note=name)
        fields = (await t.ok("ReferenceType", "Fields", ref_type=monitors, record=False)).declared
        boom_field = next(f.field_id for f in fields if f.name == "BOOM")
        boom = (await t.ok("ReferenceType", "GetValues", ref_type=monitors, fields=[boom_field])).values[0]
        await t.ok("ThreadReference", "Interrupt", thread=threads["sleeper"])
        await t.ok("ThreadReference", "Interrupt", thread=threads["waiter"])
        await t.ok("ThreadReference", "Stop", thread=threads["victim"], throwable=boom.value.value)
        await t.cmd("ThreadReference", "Stop", thread=threads["victim"], throwable=0x7FFFFFF0, note="bad throwable")
        # (Stop with an object that is no Throwable: the reference throws it anyway, which corrupts the
        # thread; jdwpd refuses it on purpose: not compared here.)
        await t.ok("VirtualMachine", "Resume")
        await t.client.wait_for_event(99, 60)  # VMDeath: every thread got what it was sent

    await differential(classes, "Monitors", scenario)
