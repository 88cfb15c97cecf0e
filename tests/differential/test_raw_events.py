"""Events through our raw client, reference agent vs jdwpd: the same composites, in the same order.

JDI hides how events are packed; this test sees every Event.Composite as sent:
its suspend policy, which events share it (a step ending on a breakpoint's line,
co-located events), their order, and the request IDs they name.  The session
uses breakpoints with Count modifiers, a line step, method entry and exit with
return values restricted to the main thread and a class pattern, field access
and modification watchpoints, exceptions (caught, with catch location, and
uncaught in another thread), a late ClassPrepare, and VMDeath.  Requests that
could fire on several threads at once are restricted to one thread, so the
order of composites is defined.
"""

from __future__ import annotations

import pytest
import trio

from jdwpd.testing.client import JdwpClient
from jdwpd.testing.transcript import Transcript, debuggee_session
from protocol import messages
from protocol.constants import EventKind, StepDepth, StepSize, SuspendPolicy, TypeTag
from protocol.wire import Location

pytestmark = pytest.mark.jvm

M = messages.Modifiers
K = EventKind


class Session:
    def __init__(self, c: JdwpClient, markers: dict[str, int]) -> None:
        self.c = c
        self.m = markers
        self.t = Transcript()
        self.window: list[tuple[int, int]] = []  # (kind, request id) of the entry/exit requests

    async def request(self, label: str, kind: int, policy: int, *modifiers) -> int:
        reply = await self.t.cmd(self.c, "EventRequest", "Set", label, event_kind=kind, suspend_policy=policy,
                                 modifiers=list(modifiers), must=True)
        return reply.request_id

    async def location(self, type_id: int, marker: str) -> Location:
        """The first code index of the marker's line, in whichever method of the class holds it."""
        c = self.c
        for method in (await c.command("ReferenceType", "Methods", ref_type=type_id)).declared:
            code, table = await c.command_raw("Method", "LineTable", ref_type=type_id, method_id=method.method_id)
            if code == 0:
                indexes = [li.line_code_index for li in table.lines if li.line_number == self.m[marker]]
                if indexes:
                    return Location(TypeTag.CLASS, type_id, method.method_id, min(indexes))
        raise AssertionError(f"no code for {marker}")

    async def field(self, type_id: int, name: str) -> int:
        fields = (await self.c.command("ReferenceType", "Fields", ref_type=type_id)).declared
        return next(f.field_id for f in fields if f.name == name)

    async def resume(self, policy: int, events) -> None:
        if policy == SuspendPolicy.ALL:
            await self.t.cmd(self.c, "VirtualMachine", "Resume", must=True)
        elif policy == SuspendPolicy.EVENT_THREAD:
            await self.t.cmd(self.c, "ThreadReference", "Resume", thread=events[0].thread, must=True)

    async def run(self) -> list:
        c, t = self.c, self.t
        policy, events = await c.next_event(timeout=30)
        t.add("composite", (policy, events))
        await self.request("ClassPrepare Sample", K.CLASS_PREPARE, SuspendPolicy.EVENT_THREAD,
                           M.ClassMatch(class_pattern="Sample"))
        await self.request("ClassPrepare LateLoaded", K.CLASS_PREPARE, SuspendPolicy.ALL,
                           M.ClassMatch(class_pattern="LateLoaded"))
        await t.cmd(c, "VirtualMachine", "Resume", must=True)
        while True:
            policy, events = await c.next_event(timeout=60)
            t.add("composite", (policy, events))
            for event in events:
                await self.react(event)
            if any(e.event_kind == K.VM_DEATH for e in events):
                return t.steps
            await self.resume(policy, events)

    async def react(self, e) -> None:
        if e.event_kind == K.CLASS_PREPARE and e.signature == "LSample;":
            await self.sample_prepared(e.type_id)
        elif e.event_kind == K.CLASS_PREPARE and e.signature == "LLateLoaded;":
            for kind, rid in self.window:
                await self.t.cmd(self.c, "EventRequest", "Clear", "entry/exit window", event_kind=kind,
                                 request_id=rid)
            await self.request("FieldModification LateLoaded.counter", K.FIELD_MODIFICATION,
                               SuspendPolicy.EVENT_THREAD,
                               M.FieldOnly(declaring=e.type_id, field_id=await self.field(e.type_id, "counter")))
            await self.request("Breakpoint LATE_CTOR", K.BREAKPOINT, SuspendPolicy.ALL,
                               M.LocationOnly(loc=await self.location(e.type_id, "LATE_CTOR")))
        elif e.event_kind == K.BREAKPOINT and e.location.index == self.compute_start.index and \
                e.location.method_id == self.compute_start.method_id:
            await self.compute_reached(e.thread)
        elif e.event_kind == K.SINGLE_STEP:
            await self.t.cmd(self.c, "EventRequest", "Clear", "step", event_kind=K.SINGLE_STEP,
                             request_id=e.request_id)

    async def sample_prepared(self, sample: int) -> None:
        self.sample = sample
        self.compute_start = await self.location(sample, "COMPUTE_START")
        await self.request("Breakpoint COMPUTE_START", K.BREAKPOINT, SuspendPolicy.ALL,
                           M.LocationOnly(loc=self.compute_start))
        await self.request("Breakpoint COMPUTE_TOTAL (where the step ends)", K.BREAKPOINT,
                           SuspendPolicy.EVENT_THREAD, M.LocationOnly(loc=await self.location(sample, "COMPUTE_TOTAL")))
        await self.request("Breakpoint FACT_RECURSE, 2nd hit", K.BREAKPOINT, SuspendPolicy.EVENT_THREAD,
                           M.Count(count=2), M.LocationOnly(loc=await self.location(sample, "FACT_RECURSE")))
        await self.request("Breakpoint FACT_BASE, 1st hit", K.BREAKPOINT, SuspendPolicy.EVENT_THREAD,
                           M.LocationOnly(loc=await self.location(sample, "FACT_BASE")), M.Count(count=1))
        await self.request("Exception in Sample code", K.EXCEPTION, SuspendPolicy.EVENT_THREAD,
                           M.ExceptionOnly(exception_or_null=0, caught=True, uncaught=True),
                           M.ClassMatch(class_pattern="Sample"))
        await self.request("Exception uncaught anywhere", K.EXCEPTION, SuspendPolicy.ALL,
                           M.ExceptionOnly(exception_or_null=0, caught=False, uncaught=True))

    async def compute_reached(self, thread: int) -> None:
        await self.request("Step line over", K.SINGLE_STEP, SuspendPolicy.EVENT_THREAD,
                           M.Step(thread=thread, size=StepSize.LINE, depth=StepDepth.OVER), M.Count(count=1))
        await self.request("FieldAccess Sample.fInt on main", K.FIELD_ACCESS, SuspendPolicy.EVENT_THREAD,
                           M.FieldOnly(declaring=self.sample, field_id=await self.field(self.sample, "fInt")),
                           M.ThreadOnly(thread=thread))
        for kind, label in ((K.METHOD_ENTRY, "MethodEntry"), (K.METHOD_EXIT_WITH_RETURN_VALUE, "MethodExit+value")):
            rid = await self.request(f"{label} Sample* on main", kind, SuspendPolicy.NONE,
                                     M.ThreadOnly(thread=thread), M.ClassMatch(class_pattern="Sample*"))
            self.window.append((kind, rid))


async def run_session(kind: str, classes, markers: dict[str, int]) -> list:
    async with debuggee_session(kind, classes, "Sample") as c:
        steps = await Session(c, markers).run()
    return steps


@pytest.fixture(scope="module")
def reference_events(sample_classes, sample_markers) -> list:
    return trio.run(run_session, "reference", sample_classes, sample_markers)


def composites(steps: list) -> list:
    return [value for label, value in steps if label == "composite"]


def test_reference_events_are_sane(reference_events):
    kinds = [[e["event_kind"] for e in events] for _policy, events in composites(reference_events)]
    flat = [k for ks in kinds for k in ks]
    assert kinds[0] == ["VM_START"] and kinds[-1][-1] == "VM_DEATH"
    assert flat.count("BREAKPOINT") >= 5 and "SINGLE_STEP" in flat
    assert ["SINGLE_STEP", "BREAKPOINT"] in kinds or ["BREAKPOINT", "SINGLE_STEP"] in kinds, \
        "the step ends on a breakpoint's line: one composite holds both"
    assert "FIELD_ACCESS" in flat and flat.count("FIELD_MODIFICATION") == 2
    assert flat.count("EXCEPTION") == 3, "caught in Sample code; uncaught matches both exception requests"
    assert "METHOD_ENTRY" in flat and "METHOD_EXIT_WITH_RETURN_VALUE" in flat
    exits = [e for _p, events in composites(reference_events) for e in events
             if e["event_kind"] == "METHOD_EXIT_WITH_RETURN_VALUE"]
    assert "I:123696" in [e["value"] for e in exits], "compute(120) returned 2 * 120 + 123456"


def test_raw_events_match_reference(server_kind_vs_recording, reference_events, sample_classes, sample_markers):
    """Against the reference itself this checks that the event order is deterministic."""
    ours = trio.run(run_session, server_kind_vs_recording, sample_classes, sample_markers)
    for i, ((label, expected), (our_label, got)) in enumerate(zip(reference_events, ours, strict=False)):
        assert (our_label, got) == (label, expected), f"step {i}"
    assert len(ours) == len(reference_events)
