"""Dispose during an invoke, with both cores busy: the program must end (issue 28, item 6).

OpenJDK's nsk/jdi/VirtualMachine/dispose/dispose005 passed through jdwpd on a quiet machine and hung
under load.  Its shape: a thread stops at a breakpoint that suspends it alone, the debugger invokes a
method on it (not single-threaded) that waits for a monitor main holds, and disposes; main lets the
monitor go once the debugger is gone, and then waits for the thread.

The end of a call that is not single-threaded suspends every thread ("regardless their state
before the invocation", JDI), for the debugger that asked it.  jdwpd's books kept only the event
thread's suspension for that debugger, so when the call ended before the daemon detached it (under
load, the daemon's undo comes after the program has let the call go), the undo resumed the event
thread alone and main stayed suspended for a debugger that no longer existed.  The reference resets
every thread when its debugger leaves.

The call ends (DisposeInvoke's release file) before the Dispose is sent, with its reply read
("done") or not ("before"), or right after the Dispose's reply ("after", dispose005's order).
Spinners keep every core busy meanwhile.  The default run makes each once against each server; the
repetition that measured it (`-m slow`) makes each REPEAT times.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import JdwpClosedError, open_jdwp_client
from protocol import messages, spec
from protocol.constants import EventKind, ModKind, SuspendPolicy

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "dispose_java"
TIMEOUT = 30
EXIT_TIMEOUT = 20  # the program ends within a second or two once nothing holds it
REPEAT = 15
INVOKED = re.compile(r"^invoked$")
EXPECTED = (0, ["invoked", "tested done", "main done"])


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(SOURCES)


@pytest.fixture
def busy_cores() -> Iterator[int]:
    """One busy loop per core, at normal priority (the issue's load was other work, not niced
    work); ended by their PIDs, whatever the test did."""
    spinners: list[subprocess.Popen] = []
    try:
        for _ in range(os.cpu_count() or 2):
            spinners.append(subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL))
        yield len(spinners)
    finally:
        for p in spinners:
            p.kill()
        for p in spinners:
            p.wait(timeout=10)


async def dispose_during_invoke(kind: str, classes: Path, when: str, workdir: Path) -> tuple:
    """(exit code, stdout lines) of one run, or ("hung", stdout lines) when the program did not end."""
    release = workdir / f"release-{kind}-{when}"
    release.unlink(missing_ok=True)
    async with jvm.open_jvm(kind, classes, "DisposeInvoke", [str(release)]) as vm:
        try:
            async with open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
                await c.wait_for_event(EventKind.VM_START, TIMEOUT)
                ev = await c.run_to_prepare("DisposeInvoke", TIMEOUT)
                line = debuggees.marker_line(SOURCES / "DisposeInvoke.java", "STOP")
                loc = await c.line_location(ev.type_id, "stop", line)
                await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                suspend_policy=SuspendPolicy.EVENT_THREAD,
                                modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}])
                await c.command("VirtualMachine", "Resume")
                _, events = await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
                tested = events[0].thread
                methods = (await c.command("ReferenceType", "Methods", ref_type=ev.type_id)).declared
                held = next(m.method_id for m in methods if m.name == "held")
                invoke = spec.by_name("ClassType", "InvokeMethod")
                body = messages.encode_command(invoke, {"clazz": ev.type_id, "thread": tested, "method_id": held,
                                                        "arguments": [], "options": 0}, c.sizes)
                invoke_id = await c.send_packet(invoke.set_id, invoke.cmd_id, body)
                with trio.fail_after(TIMEOUT):  # held() runs, waiting for main's gate
                    while not vm.output.search(INVOKED, "stdout"):
                        await trio.sleep(0.002)
                if when in ("done", "before"):
                    release.touch()
                if when == "done":
                    await c.reply(invoke_id, TIMEOUT)
                try:
                    await c.command("VirtualMachine", "Dispose", timeout=TIMEOUT)
                except JdwpClosedError:
                    pass
                if when == "after":
                    release.touch()
            try:
                rc = await vm.wait_exit(EXIT_TIMEOUT)
            except trio.TooSlowError:
                return "hung", vm.output.lines("stdout")
        except BaseException as e:
            e.add_note(f"debuggee ({kind}, {when}) output:\n{vm.output.describe()}")
            raise
        return rc, [li for li in vm.output.lines("stdout") if not jvm.REFERENCE_READY.search(li)]


async def runs_under_load(classes: Path, tmp_path: Path, whens: tuple[str, ...], repeat: int) -> dict:
    failed: dict[tuple[str, str], list] = {}
    for when in whens:
        for kind in ("reference", "jdwpd"):
            bad = []
            for _ in range(repeat):
                result = await dispose_during_invoke(kind, classes, when, tmp_path)
                if result != EXPECTED:
                    bad.append(result)
            if bad:
                failed[kind, when] = bad
    return failed


async def test_dispose_during_an_invoke_under_load_lets_the_program_end(classes, busy_cores, tmp_path):
    assert await runs_under_load(classes, tmp_path, ("done", "after"), 1) == {}


@pytest.mark.slow
async def test_dispose_during_an_invoke_under_load_repeated(classes, busy_cores, tmp_path):
    assert await runs_under_load(classes, tmp_path, ("done", "before", "after"), REPEAT) == {}
