"""A debugger that leaves while its invoke runs leaves no thread suspended (issue 22, item 1).

The debugger stops main at a SUSPEND_ALL breakpoint while workers count, invokes Leave.slow on main
(main sleeps in the call) and, while the call runs, disposes (VirtualMachine.Dispose) or vanishes
(closes its socket).  The reference marks the invoke detached: when it ends it suspends nothing
again, every thread runs on, and the program ends as it would have.  jdwpd restored the
suspensions the invoke had lifted for a debugger that no longer existed, and the program hung.
Raw client, reference and jdwpd; an invoke shorter and one longer than the daemon's wait for a
leaving debugger's invokes (session.DETACH_TIMEOUT), each multi- and single-threaded.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import JdwpClosedError, open_jdwp_client
from protocol import Value, messages, spec
from protocol.constants import EventKind, InvokeOptions, ModKind, SuspendPolicy, Tag

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "leave_java"
TIMEOUT = 30
RUNNING = 0.7  # seconds the invoke runs before the debugger leaves


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(SOURCES)


async def leave_during_invoke(kind: str, classes: Path, how: str, single: bool, invoke_ms: int) -> dict:
    facts: dict = {}
    async with jvm.open_jvm(kind, classes, "Leave") as vm:
        try:
            async with open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
                await c.wait_for_event(EventKind.VM_START, TIMEOUT)
                ev = await c.run_to_prepare("Leave", TIMEOUT)
                loc = await c.line_location(ev.type_id, "stop", debuggees.marker_line(SOURCES / "Leave.java", "STOP"))
                await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                suspend_policy=SuspendPolicy.ALL,
                                modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}])
                await c.command("VirtualMachine", "Resume")
                _, events = await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
                main = events[0].thread
                methods = (await c.command("ReferenceType", "Methods", ref_type=ev.type_id)).declared
                slow = next(m.method_id for m in methods if m.name == "slow")
                invoke = spec.by_name("ClassType", "InvokeMethod")
                options = InvokeOptions.INVOKE_SINGLE_THREADED if single else 0
                body = messages.encode_command(invoke, {
                    "clazz": ev.type_id, "thread": main, "method_id": slow,
                    "arguments": [Value(Tag.INT, invoke_ms)], "options": options}, c.sizes)
                await c.send_packet(invoke.set_id, invoke.cmd_id, body)
                await trio.sleep(RUNNING)
                if how == "dispose":
                    try:
                        await c.command("VirtualMachine", "Dispose", timeout=TIMEOUT)
                    except JdwpClosedError:
                        pass
            facts["exit"] = await vm.wait_exit(invoke_ms / 1000 + TIMEOUT)
        except BaseException as e:
            e.add_note(f"debuggee ({kind}) output:\n{vm.output.describe()}")
            raise
        facts["stdout"] = [line for line in vm.output.lines("stdout") if not jvm.REFERENCE_READY.search(line)]
    return facts


LONG_MS = 12_000  # longer than the daemon once waited for a leaving session's invokes (10 s)
CASES = [pytest.param(how, single, 1500, id=f"short-{'single-threaded' if single else 'all-threads'}-{how}")
         for single in (False, True) for how in ("dispose", "vanish")]
# The issue's own scenario (Dispose while a non-single-threaded invoke outlasts any wait) runs by
# default; the other long ones take 25 s each and exercise the same path: `-m slow` runs them.
CASES += [pytest.param("dispose", False, LONG_MS, id="long-all-threads-dispose")]
CASES += [pytest.param(how, single, LONG_MS, id=f"long-{'single-threaded' if single else 'all-threads'}-{how}",
                       marks=pytest.mark.slow)
          for single, how in ((False, "vanish"), (True, "dispose"), (True, "vanish"))]


@pytest.mark.parametrize("how, single, invoke_ms", CASES)
async def test_leaving_during_an_invoke_leaves_nothing_suspended(classes, how, single, invoke_ms):
    expected = {"exit": 0, "stdout": ["workers counted 240", "main done"]}
    assert await leave_during_invoke("reference", classes, how, single, invoke_ms) == expected
    assert await leave_during_invoke("jdwpd", classes, how, single, invoke_ms) == expected
