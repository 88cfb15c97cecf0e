"""A burst of events right before the VM exits: the debugger gets every one, then VMDeath, as under the
reference agent; and a daemon that stopped reading does not keep the VM from exiting.

The debuggee (exit_java/EventsAtExit.java) starts and joins THREADS short platform threads and then
calls one method CALLS times, and main returns at once: ~30,000 SUSPEND_NONE events are still on
their way (queued in the agent, in the sockets, in the daemon) when the VM posts VMDeath.
"""

from __future__ import annotations

import collections
import os
import signal
import time
from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import JdwpClosedError, open_jdwp_client
from protocol.constants import EventKind, ModKind, SuspendPolicy

pytestmark = pytest.mark.jvm
HERE = Path(__file__).resolve().parent
THREADS, CALLS = 5000, 20000
# The agent gives a daemon that takes no bytes 3 s (link.c DEATH_STALL_MS) before the VM goes on exiting;
# the run itself takes ~1 s.  The smaller burst still leaves ~1 MB unsent, far more than the sockets hold.
STUCK_EXIT_BOUND = 10.0
STUCK_THREADS = 500


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(HERE / "exit_java")


async def set_requests(c) -> None:
    for kind in (EventKind.THREAD_START, EventKind.THREAD_DEATH):
        await c.command("EventRequest", "Set", event_kind=kind, suspend_policy=SuspendPolicy.NONE, modifiers=[])
    await c.command("EventRequest", "Set", event_kind=EventKind.METHOD_ENTRY, suspend_policy=SuspendPolicy.NONE,
                    modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "EventsAtExit$Burst"}])


async def events_until_death(kind: str, classes: Path) -> collections.Counter:
    """Every event the debugger gets, by kind, up to and with the composite holding VMDeath; nothing after it."""
    async with jvm.open_jvm(kind, classes, "EventsAtExit", [str(THREADS), str(CALLS)]) as debuggee:
        async with open_jdwp_client(debuggee.host, debuggee.port, timeout=30) as c:
            await c.wait_for_event(EventKind.VM_START, 30)
            await set_requests(c)
            await c.command("VirtualMachine", "Resume")
            counts: collections.Counter = collections.Counter()
            while counts[EventKind.VM_DEATH] == 0:
                _, events = await c.next_event(60)
                counts.update(EventKind(e.event_kind) for e in events)
            with pytest.raises(JdwpClosedError):  # VMDeath is the last thing the debugger hears
                _, events = await c.next_event(30)
                pytest.fail(f"{kind}: events after VMDeath: {events}")
        assert await debuggee.wait_exit(30) == 0
    return counts


async def test_every_event_before_vm_death_is_delivered(classes):
    reference = await events_until_death("reference", classes)
    ours = await events_until_death("jdwpd", classes)
    assert reference[EventKind.METHOD_ENTRY] == CALLS  # the oracle saw the whole burst
    assert reference[EventKind.THREAD_START] >= THREADS
    assert ours == reference


def jvm_pid_of(launcher_pid: int) -> int:
    children = Path(f"/proc/{launcher_pid}/task/{launcher_pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def has_exited(pid: int) -> bool:
    """Exited: gone, or a zombie (its parent, the stopped daemon, cannot reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


async def test_vm_exits_while_the_daemon_is_stopped(classes):
    async with jvm.open_jdwpd_jvm(classes, "EventsAtExit", [str(STUCK_THREADS), str(CALLS)]) as debuggee:
        async with open_jdwp_client(debuggee.host, debuggee.port, timeout=30) as c:
            await c.wait_for_event(EventKind.VM_START, 30)
            await set_requests(c)
            java = jvm_pid_of(debuggee.pid)
            await c.command("VirtualMachine", "Resume")
            os.kill(debuggee.pid, signal.SIGSTOP)  # the daemon (jdwpd launch) stops reading the agent link
            stopped = time.monotonic()
            try:
                with trio.fail_after(STUCK_EXIT_BOUND):
                    while not has_exited(java):
                        await trio.sleep(0.05)
                took = time.monotonic() - stopped
            finally:
                os.kill(debuggee.pid, signal.SIGCONT)
            # The daemon, woken, finds the link gone: its debugger still hears VMDeath, then the close.
            await c.wait_for_event(EventKind.VM_DEATH, 30)
            await c.wait_closed(30)
        assert await debuggee.wait_exit(30) == 0
    print(f"JVM exited {took:.2f} s after the daemon stopped")
