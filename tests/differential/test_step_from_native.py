"""Steps that start in a native frame (a thread suspended inside Thread.sleep), reference vs jdwpd.

The reference can ask no FramePop of a native frame: INTO and OUT single-step from the start and end
at the caller's first bytecode after the native method returns.  OVER it never enables at all: such
a step never ends (the thread runs on unseen).  jdwpd ends INTO and OUT where the reference does, and
OVER where INTO and OUT end: a deliberate difference (docs/conformance.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import JdwpClient, open_jdwp_client
from protocol.constants import EventKind, ModKind, StepDepth, StepSize, SuspendPolicy

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "steps_java"
CASES = [(StepSize.LINE, StepDepth.INTO), (StepSize.LINE, StepDepth.OUT), (StepSize.MIN, StepDepth.INTO),
         (StepSize.MIN, StepDepth.OUT), (StepSize.LINE, StepDepth.OVER), (StepSize.MIN, StepDepth.OVER)]
WAIT = 1.5  # seconds without an event that count as "the step did not end": seven naps of the thread


async def sleeper_in_native(c: JdwpClient) -> int:
    """Suspend the VM while the sleeper thread is inside Thread.sleep (its top frame native)."""
    for _ in range(100):
        await c.command("VirtualMachine", "Suspend")
        for t in (await c.command("VirtualMachine", "AllThreads")).threads:
            if (await c.command("ThreadReference", "Name", thread=t.thread)).thread_name == "sleeper":
                top = (await c.command("ThreadReference", "Frames", thread=t.thread, start_frame=0,
                                       length=-1)).frames  # none yet while the thread starts
                if top and top[0].location.index == -1:
                    return t.thread
        await c.command("VirtualMachine", "Resume")
        await trio.sleep(0.05)
    raise AssertionError("the sleeper thread was never caught inside Thread.sleep")


async def where(c: JdwpClient, location) -> tuple[str, int]:
    methods = (await c.command("ReferenceType", "Methods", ref_type=location.class_id)).declared
    return next(m.name for m in methods if m.method_id == location.method_id), location.index


def command(kind: str, classes: Path, profile: str) -> list[str]:
    args = (classes, "Sleeper", ("30000",))
    if kind == "reference":
        return jvm.reference_command(*args)
    cmd = jvm.jdwpd_command(*args)
    at = cmd.index("launch") + 1
    return [*cmd[:at], "--profile", profile, *cmd[at:]]


async def session(kind: str, classes: Path, profile: str = "full") -> list:
    ends = []
    async with jvm._open_trio(kind, command(kind, classes, profile), 60, None) as debuggee:
        async with open_jdwp_client(debuggee.host, debuggee.port, timeout=30) as c:
            await c.next_event(timeout=30)  # VMStart
            await c.command("VirtualMachine", "Resume")
            for size, depth in CASES:
                thread = await sleeper_in_native(c)
                rid = (await c.command("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP,
                                       suspend_policy=SuspendPolicy.EVENT_THREAD,
                                       modifiers=[{"mod_kind": ModKind.STEP, "thread": thread, "size": size,
                                                   "depth": depth}])).request_id
                await c.command("VirtualMachine", "Resume")
                with trio.move_on_after(WAIT):
                    _, events = await c.next_event(timeout=WAIT + 5)
                    (ev,) = events
                    assert ev.event_kind == EventKind.SINGLE_STEP and ev.request_id == rid
                    ends.append((size.name, depth.name, await where(c, ev.location)))
                    await c.command("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=rid)
                    await c.command("ThreadReference", "Resume", thread=thread)
                    continue
                ends.append((size.name, depth.name, None))
                await c.command("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=rid)
            await c.command("VirtualMachine", "Exit", exit_code=0)
    return ends


@pytest.mark.parametrize("profile", ["full", "nothrow"])
async def test_steps_from_a_native_frame(profile):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    classes = debuggees.compile_sources(SOURCES)
    reference = await session("reference", classes)
    ours = await session("jdwpd", classes, profile)
    # Where the caller goes on after the native sleep returns, past its invoke: nap() on JDK 17, the
    # Java part of Thread.sleep on later ones.
    after_sleep = next(end for (_, depth, end) in reference if depth == "INTO")
    assert after_sleep is not None and after_sleep[1] > 0
    for (size, depth, end_ref), (_, _, end_ours) in zip(reference, ours, strict=True):
        if depth == "OVER":
            assert end_ref is None, (size, depth, end_ref)  # the reference's OVER never ends
            assert end_ours == after_sleep, (size, depth, end_ours)
        else:
            assert end_ours == end_ref == after_sleep, (size, depth, end_ref, end_ours)
