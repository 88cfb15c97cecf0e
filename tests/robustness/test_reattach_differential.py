"""Detach and re-attach, three times on one VM, against the reference agent and against jdwpd:
the same transcript after ID normalization (issue: core debugging, acceptance 3)."""

from __future__ import annotations

import re
import time

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from jdwpd.testing.normalize import Normalizer
from protocol.constants import EventKind, ModKind, SuspendPolicy, TypeTag
from protocol.wire import Location
from tests.robustness.daemon_support import marker, robustness_classes

pytestmark = pytest.mark.jvm


LISTENING = re.compile(r"Listening for transport dt_socket at address: (\d+)")


def address_for_next_debugger(debuggee, debuggers_so_far: int) -> tuple[str, int]:
    """jdwpd listens on one address for good; the reference, started with port 0, listens anew on
    another ephemeral port after every detach and prints it."""
    if debuggee.kind != "reference" or debuggers_so_far == 0:
        return debuggee.host, debuggee.port
    deadline = time.monotonic() + 30
    while True:
        ports = LISTENING.findall(debuggee.output.text("stdout"))
        if len(ports) > debuggers_so_far:
            return debuggee.host, int(ports[debuggers_so_far])
        assert time.monotonic() < deadline, debuggee.output.describe()
        time.sleep(0.05)


async def reattach_transcript(kind: str, classes, line: int) -> list:
    out: list = []
    debuggee = jvm.start_jvm(kind, classes, "Ticker", ["100000", "5"], suspend=True)
    try:
        for round_ in range(3):
            # The reference forgets its ids when a debugger leaves and numbers from 1 again; jdwpd keeps
            # them for the VM's life (on purpose: several debuggers share them).  Names are per debugger.
            norm = Normalizer()
            async with open_jdwp_client(*address_for_next_debugger(debuggee, round_), timeout=30) as c:
                if round_ == 0:
                    out.append(norm(await c.next_event(30)))  # VMStart, suspended
                    await c.command("VirtualMachine", "Resume")
                    await trio.sleep(0.3)
                ref = (await c.command("VirtualMachine", "ClassesBySignature", signature="LTicker;")).classes
                out.append(("classes", norm(ref)))
                ref = ref[0].type_id
                tick = next(m for m in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared
                            if m.name == "tick")
                table = await c.command("Method", "LineTable", ref_type=ref, method_id=tick.method_id)
                index = min(r.line_code_index for r in table.lines if r.line_number == line)
                req = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                      suspend_policy=SuspendPolicy.EVENT_THREAD,
                                      modifiers=[{"mod_kind": ModKind.LOCATION_ONLY,
                                                  "loc": Location(TypeTag.CLASS, ref, tick.method_id, index)}])
                out.append(("set", norm(req)))
                policy, events = await c.wait_for_event(EventKind.BREAKPOINT, 30)
                out.append(("hit", norm((policy, events))))
                thread = events[0].thread
                out.append(("count", norm(await c.command("ThreadReference", "SuspendCount", thread=thread))))
                frames = await c.command("ThreadReference", "Frames", thread=thread, start_frame=0, length=2)
                out.append(("frames", [norm(f.location) for f in frames.frames]))
                if round_ == 1:
                    await c.command("VirtualMachine", "Suspend")  # leaves suspended twice over
                    out.append(("count", norm(await c.command("ThreadReference", "SuspendCount", thread=thread))))
                if round_ != 2:
                    await c.command("VirtualMachine", "Dispose")
                # round 2: the socket just closes under a thread suspended at an event
            await trio.sleep(0.3)  # the VM runs on between debuggers
        async with open_jdwp_client(*address_for_next_debugger(debuggee, 3), timeout=30) as c:
            threads = [t.thread for t in (await c.command("VirtualMachine", "AllThreads")).threads]
            counts = [(await c.command("ThreadReference", "SuspendCount", thread=t)).suspend_count
                      for t in threads]
            out.append(("all counts zero after three debuggers left", all(n == 0 for n in counts)))
    finally:
        debuggee.kill()
    return out


async def test_detach_and_reattach_three_times_as_the_reference_does(tmp_path):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    classes = robustness_classes()
    line = marker("tick")
    reference = await reattach_transcript("reference", classes, line)
    ours = await reattach_transcript("jdwpd", classes, line)
    assert reference[-1] == ("all counts zero after three debuggers left", True)
    for i, (want, got) in enumerate(zip(reference, ours, strict=True)):
        assert got == want, f"entry {i}: reference {want!r}, jdwpd {got!r}"
