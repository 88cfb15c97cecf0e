"""A request the agent cannot refuse goes out without waiting for the agent's reply
(jdwpd/daemon/commands/event_request.py, _agent_cannot_refuse): a step of a thread parked in an event,
and requests that need no lookup while nothing runs.  Every other one waits, and a wrong proof
degrades to a request that never fires, never to a broken session."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio

from jdwpd.daemon.commands import event_request
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import ErrorCode, EventKind, ModKind, StepDepth, StepSize, SuspendPolicy, TypeTag
from protocol.wire import Location
from tests.robustness.daemon_support import (
    Daemon,
    inprocess_daemon,
    loaded_class,
    marker,
    robustness_classes,
)

pytestmark = pytest.mark.jvm
TIMEOUT = 20


@asynccontextmanager
async def ticker(tmp_path, ticks: int = 100000, pause_ms: int = 1) -> AsyncIterator[tuple[Daemon, list[str]]]:
    """Ticker under an in-process daemon whose SET_REQUESTs are recorded, within one deadline."""
    classes = robustness_classes()
    async with inprocess_daemon(["-cp", str(classes), "Ticker", str(ticks), str(pause_ms)]) as d:
        with trio.fail_after(60):
            yield d, record_set_requests(d.vm.link)


def record_set_requests(link) -> list[str]:
    """How each SET_REQUEST went to the agent: 'waited' or 'posted'."""
    seen: list[str] = []
    request, post = link.request, link.post

    async def recording_request(name, **fields):
        if name == "SET_REQUEST":
            seen.append("waited")
        return await request(name, **fields)

    async def recording_post(name, on_refused=None, **fields):
        if name == "SET_REQUEST":
            seen.append("posted")
        return await post(name, on_refused=on_refused, **fields)

    link.request, link.post = recording_request, recording_post
    return seen


async def stop_at_tick(c, policy=SuspendPolicy.ALL) -> int:
    ref = await loaded_class(c, "LTicker;")
    tick = next(m for m in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared if m.name == "tick")
    table = await c.command("Method", "LineTable", ref_type=ref, method_id=tick.method_id)
    index = min(r.line_code_index for r in table.lines if r.line_number == marker("tick"))
    bp = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=policy,
                         modifiers=[{"mod_kind": ModKind.LOCATION_ONLY,
                                     "loc": Location(TypeTag.CLASS, ref, tick.method_id, index)}])
    _, events = await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
    await c.command("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=bp.request_id)
    return events[0].thread


def step_mods(thread: int) -> list[dict]:
    return [{"mod_kind": ModKind.STEP, "thread": thread, "size": StepSize.LINE, "depth": StepDepth.OVER},
            {"mod_kind": ModKind.CLASS_EXCLUDE, "class_pattern": "java.*"},
            {"mod_kind": ModKind.COUNT, "count": 1}]


async def step(c, thread: int) -> int:
    req = await c.command("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP, suspend_policy=SuspendPolicy.ALL,
                          modifiers=step_mods(thread))
    await c.command("VirtualMachine", "Resume")
    _, events = await c.wait_for_event(EventKind.SINGLE_STEP, TIMEOUT)
    assert events[0].thread == thread and events[0].request_id == req.request_id
    await c.command("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=req.request_id)
    return events[0].location.index


async def test_steps_from_an_event_go_out_without_waiting(tmp_path):
    async with ticker(tmp_path) as (d, seen):
        async with open_jdwp_client("127.0.0.1", d.port, timeout=TIMEOUT) as c:
            thread = await stop_at_tick(c)
            seen.clear()
            indexes = [await step(c, thread) for _ in range(5)]
            assert seen == ["posted"] * 5
            assert len(set(indexes)) > 1  # the steps moved the thread
            await c.command("VirtualMachine", "Resume")
        stats = await d.agent_stats()
        assert stats["filters"] == 0 and stats["events_enabled"] == 0, stats


async def test_a_thread_that_may_have_run_since_its_event_waits_for_the_agent(tmp_path):
    async with ticker(tmp_path) as (d, seen):
        async with open_jdwp_client("127.0.0.1", d.port, timeout=TIMEOUT) as c:
            thread = await stop_at_tick(c, SuspendPolicy.EVENT_THREAD)
            # Suspended twice, resumed once: still suspended, but a resume went to the agent.
            await c.command("ThreadReference", "Suspend", thread=thread)
            await c.command("ThreadReference", "Resume", thread=thread)
            seen.clear()
            req = await c.command("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP,
                                  suspend_policy=SuspendPolicy.EVENT_THREAD, modifiers=step_mods(thread))
            assert seen == ["waited"]
            await c.command("ThreadReference", "Resume", thread=thread)
            _, events = await c.wait_for_event(EventKind.SINGLE_STEP, TIMEOUT)
            assert events[0].request_id == req.request_id
            # Parked in this step's event, and no other debugger steps it: posted again.
            seen.clear()
            await c.command("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP,
                            suspend_policy=SuspendPolicy.EVENT_THREAD, modifiers=step_mods(thread))
            assert seen == ["posted"]
            await c.command("ThreadReference", "Resume", thread=thread)
            await c.wait_for_event(EventKind.SINGLE_STEP, TIMEOUT)


async def test_another_debuggers_step_of_the_thread_still_gets_duplicate(tmp_path):
    async with ticker(tmp_path) as (d, seen):
        async with open_jdwp_client("127.0.0.1", d.port, timeout=TIMEOUT) as a, \
                open_jdwp_client("127.0.0.1", d.port, timeout=TIMEOUT) as b:
            thread = await stop_at_tick(a)
            seen.clear()
            await a.command("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP,
                            suspend_policy=SuspendPolicy.ALL, modifiers=step_mods(thread))
            code, _ = await b.command_raw("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP,
                                          suspend_policy=SuspendPolicy.ALL, modifiers=step_mods(thread))
            assert code == ErrorCode.DUPLICATE
            assert seen == ["posted", "waited"]


async def test_requests_set_while_nothing_runs_go_out_without_waiting_and_fire(tmp_path):
    # a few ticks, slow enough that the debugger stops at one, and then an end that comes soon
    async with ticker(tmp_path, 5, pause_ms=400) as (d, seen):
        async with open_jdwp_client("127.0.0.1", d.port, timeout=TIMEOUT) as c:
            await stop_at_tick(c)  # every thread suspended
            seen.clear()

            async def set_request(kind, *mods):
                return (await c.command("EventRequest", "Set", event_kind=kind, suspend_policy=SuspendPolicy.NONE,
                                        modifiers=list(mods))).request_id

            thread_death = await set_request(EventKind.THREAD_DEATH, {"mod_kind": ModKind.COUNT, "count": 1})
            vm_death = await set_request(EventKind.VM_DEATH)
            await set_request(EventKind.EXCEPTION, {"mod_kind": ModKind.EXCEPTION_ONLY, "exception_or_null": 0,
                                                    "caught": True, "uncaught": True})
            await set_request(EventKind.CLASS_PREPARE, {"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "x.*"},
                              {"mod_kind": ModKind.COUNT, "count": 2})
            assert seen == ["posted"] * 4
            await c.command("VirtualMachine", "Resume")
            seen.clear()
            await set_request(EventKind.CLASS_PREPARE, {"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "y.*"})
            assert seen == ["waited"]  # the program runs: an event could slip in before the agent has it
            _, events = await c.wait_for_event(EventKind.THREAD_DEATH, TIMEOUT)
            assert events[0].request_id == thread_death
            _, events = await c.wait_for_event(EventKind.VM_DEATH, TIMEOUT)
            assert vm_death in [e.request_id for e in events]


async def test_a_wrong_proof_leaves_a_request_that_never_fires(tmp_path, monkeypatch, caplog):
    """If the agent refuses a posted step after all, the debugger already holds its id: the request
    stays, retired (it never fires, its Clear works), and the daemon says so in its log."""
    async with ticker(tmp_path) as (d, seen):
        async with open_jdwp_client("127.0.0.1", d.port, timeout=TIMEOUT) as a, \
                open_jdwp_client("127.0.0.1", d.port, timeout=TIMEOUT) as b:
            thread = await stop_at_tick(a)
            await a.command("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP,
                            suspend_policy=SuspendPolicy.ALL, modifiers=step_mods(thread))
            monkeypatch.setattr(event_request, "_agent_cannot_refuse", lambda ctx, kind, mods: True)
            with caplog.at_level(logging.WARNING, logger="jdwpd.daemon.facade.requests"):
                refused = await b.command("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP,
                                          suspend_policy=SuspendPolicy.ALL, modifiers=step_mods(thread))
                # The agent's refusal comes in its own time (a stopped thread's Status may be answered
                # by the daemon without the agent): wait for the log line, not for another command.
                with trio.fail_after(TIMEOUT):
                    while "refused request" not in caplog.text:
                        await trio.sleep(0.02)
            kept = [r for r in d.vm.requests if r.request_id == refused.request_id
                    and r.event_kind == EventKind.SINGLE_STEP and not r.in_agent]
            assert len(kept) == 1
            await b.command("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP,
                            request_id=refused.request_id)
            await a.command("VirtualMachine", "Resume")
            _, events = await a.wait_for_event(EventKind.SINGLE_STEP, TIMEOUT)
            assert events[0].thread == thread
