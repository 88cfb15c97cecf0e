"""A thread whose SUSPEND_ALL event is resumed before the thread has parked after it is at no event.

jdb asks for ThreadStart with SUSPEND_ALL and resumes at once.  When that resume overtook the
thread between sending its event and parking (the agent's callback_exit), the agent kept the
thread marked "at an event", and every later suspension of it reported RUNNING while it waited
(tests/differential/test_jdb_session.py: `threads` showed Common-Cleaner, the one listed thread
started while jdb was attached, "running" now and then).  Here the debugger resumes eagerly (three
VM.Resume packets per event, not waiting for the replies), which makes a resume overtake the park
for some of 300 threads in every run: before the fix ~20 of them answered RUNNING; under the
reference and now under jdwpd every one answers WAIT, suspended.
"""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol import spec
from protocol.constants import EventKind, SuspendPolicy

pytestmark = pytest.mark.jvm
HERE = Path(__file__).resolve().parent
WAITERS = 300
THREAD_STATUS_WAIT, SUSPEND_STATUS_SUSPENDED = 4, 1


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(HERE / "waiters_java")


async def test_waiting_threads_resumed_at_their_start_event_report_wait(server_kind, classes):
    resume = spec.by_name("VirtualMachine", "Resume")
    async with jvm.open_jvm(server_kind, classes, "Waiters", [str(WAITERS)]) as debuggee:
        async with open_jdwp_client(debuggee.host, debuggee.port, timeout=30) as c:
            await c.wait_for_event(EventKind.VM_START, 30)
            await c.command("EventRequest", "Set", event_kind=EventKind.THREAD_START,
                            suspend_policy=SuspendPolicy.ALL, modifiers=[])
            await c.command("VirtualMachine", "Resume")
            with trio.fail_after(60):
                while True:  # every start event resumed at once, until "started" and a second without events
                    with trio.move_on_after(1.0) as idle:
                        await c.next_event(30)
                        for _ in range(3):
                            await c.send_packet(resume.set_id, resume.cmd_id)
                    if idle.cancelled_caught and "started" in debuggee.output.text("stdout"):
                        break
            await c.command("VirtualMachine", "Suspend")
            statuses: collections.Counter = collections.Counter()
            for t in (await c.command("VirtualMachine", "AllThreads")).threads:
                if (await c.command("ThreadReference", "Name", thread=t.thread)).thread_name.startswith("waiter-"):
                    s = await c.command("ThreadReference", "Status", thread=t.thread)
                    statuses[(s.thread_status, s.suspend_status)] += 1
    assert statuses == {(THREAD_STATUS_WAIT, SUSPEND_STATUS_SUSPENDED): WAITERS}
