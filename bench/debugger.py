"""Debugger-driven measurements: round trips, breakpoint hits, filtered requests, steps, frames.

Each runs the same scripted session (bench/dbg.py) against the reference agent and jdwpd.
Unless said otherwise values are per operation, measured in the debugger (the client's
wall clock); the filter measurements are the debuggee's own time for its hot loop.
"""

from __future__ import annotations

import re

import trio

from protocol.constants import EventKind, StepDepth, StepSize, SuspendPolicy

from . import lean
from .common import Config, Measurement, MeasurementFailed, Target
from .dbg import Debugger, M, debug_target, drain_events, now, wait_stdout

SERVERS = ("reference", "jdwpd")
JDB_EXCLUDES = ("java.*", "javax.*", "sun.*", "com.sun.*", "jdk.*")  # jdb's default step exclusions


# ---------------------------------------------------------------- round trips


def run_roundtrip(variant: str, cfg: Config) -> dict[str, float]:
    n = cfg.pick(300, 1000)

    async def body(d: Debugger) -> dict[str, float]:
        thread, loc = await d.run_to("HIT")
        calls = {
            "signature": ("ReferenceType", "Signature", {"ref_type": d.target}),
            "line_table": ("Method", "LineTable", {"ref_type": d.target, "method_id": loc.method_id}),
            "thread_name": ("ThreadReference", "Name", {"thread": thread}),
            "frame_count": ("ThreadReference", "FrameCount", {"thread": thread}),
            # Never memoized (jdwpd/daemon/fast/memo.py): the daemon asks the agent every time.
            "thread_status": ("ThreadReference", "Status", {"thread": thread}),
        }
        out = {}
        for name, (set_name, cmd_name, fields) in calls.items():
            await d.c.command(set_name, cmd_name, **fields)  # asked once before: the steady state is measured
            out[name] = lean.roundtrips(d.c, set_name, cmd_name, n, **fields)
        return out

    return debug_target(variant, ["hits"], body)


ROUNDTRIP = Measurement(
    name="roundtrip",
    doc="One command in flight at a time, at a SUSPEND_ALL breakpoint, timed by bench/lean.py (us per round trip)",
    variants=SERVERS,
    run=run_roundtrip,
    units={k: "us" for k in ("signature", "line_table", "thread_name", "frame_count", "thread_status")},
    targets=(
        Target("signature", "jdwpd", "reference", 0.8),
        Target("line_table", "jdwpd", "reference", 0.8),
        Target("thread_name", "jdwpd", "reference", 1.5),
        Target("frame_count", "jdwpd", "reference", 1.5),
        Target("thread_status", "jdwpd", "reference", 1.5),
    ),
    needs_debugger=True,
)


# ---------------------------------------------------------------- breakpoint hits


def run_hits(variant: str, cfg: Config) -> dict[str, float]:
    n = cfg.pick(100, 300)

    async def body(d: Debugger) -> dict[str, float]:
        await d.breakpoint("HIT", SuspendPolicy.EVENT_THREAD)
        await d.c.command("VirtualMachine", "Resume")
        _, events = await d.c.wait_for_event(EventKind.BREAKPOINT, timeout=30)
        t0 = now()
        for _ in range(n):
            await d.c.command("ThreadReference", "Resume", thread=events[0].thread)
            _, events = await d.c.wait_for_event(EventKind.BREAKPOINT, timeout=30)
        return {"bp_hit": (now() - t0) / n * 1e6}

    return debug_target(variant, ["hits"], body)


HITS = Measurement(
    name="breakpoint",
    doc="Breakpoint hit -> event -> ThreadReference.Resume -> next hit (us per hit)",
    variants=SERVERS,
    run=run_hits,
    units={"bp_hit": "us"},
    targets=(Target("bp_hit", "jdwpd", "reference", 1.2),),
    needs_debugger=True,
)


# ---------------------------------------------------------------- filtered requests


async def _filtered(d: Debugger, how: str) -> float:
    """Requests set at READY, then the debuggee's hot loop time (ms) while events are taken."""
    c = d.c
    thread, _ = await d.run_to("READY")
    if how == "count":
        where = await d.location("FILTER_TARGET")

        async def arm() -> None:
            await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                            suspend_policy=SuspendPolicy.EVENT_THREAD,
                            modifiers=[M.Count(count=1000), M.LocationOnly(loc=where)])

        await arm()

        async def on_event(policy, events) -> None:
            # Count expires its request with the hit it reports: the debugger re-arms while the
            # thread waits, so no hit goes unfiltered, then lets it go on.
            for e in events:
                if int(e.event_kind) == EventKind.BREAKPOINT:
                    await arm()
                    await c.command("ThreadReference", "Resume", thread=e.thread)
    elif how == "count_all":
        # A count never reached: every hit is counted and filtered in the agent, nothing reported.
        await d.breakpoint("FILTER_TARGET", SuspendPolicy.NONE, extra=[M.Count(count=10**9)])
        on_event = None
    elif how == "thread":
        rare = await d.thread_named("rare")
        await d.breakpoint("FILTER_TARGET", SuspendPolicy.NONE, extra=[M.ThreadOnly(thread=rare)])
        on_event = None
    elif how == "entry":
        await c.command("EventRequest", "Set", event_kind=EventKind.METHOD_ENTRY, suspend_policy=SuspendPolicy.NONE,
                        modifiers=[M.ClassMatch(class_pattern="Target$Rare")])
        on_event = None
    elif how == "none":
        on_event = None
    else:
        raise ValueError(how)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(drain_events, c, on_event)
        await c.command("VirtualMachine", "Resume")
        m = await wait_stdout(d.vm, re.compile(r"elapsed_ns=(\d+)"), timeout=300)
        nursery.cancel_scope.cancel()
    return int(m.group(1)) / 1e6


def run_filters(variant: str, cfg: Config) -> dict[str, float]:
    n = cfg.pick(500_000, 1_500_000)
    out = {}
    for metric, mode, how in (("no_request", "filter", "none"), ("count_1000", "filter", "count"),
                              ("count_unreached", "filter", "count_all"),
                              ("thread_only", "filter", "thread"), ("entry_match_1pct", "entry", "entry")):
        out[metric] = debug_target(variant, [mode, str(n)], lambda d, how=how: _filtered(d, how), timeout=300)
    return out


FILTERS = Measurement(
    name="filters",
    doc="Debuggee hot loop (ms): Count(1000) re-armed, ThreadOnly(other thread), MethodEntry ClassMatch 1%",
    variants=SERVERS,
    run=run_filters,
    units={k: "ms" for k in ("no_request", "count_1000", "count_unreached", "thread_only", "entry_match_1pct")},
    targets=(
        Target("count_1000", "jdwpd", "reference", 1.1),
        Target("count_unreached", "jdwpd", "reference", 1.1),
        Target("thread_only", "jdwpd", "reference", 1.1),
        Target("entry_match_1pct", "jdwpd", "reference", 1.1),
        Target("no_request", "jdwpd", "reference", 1.1),
    ),
    needs_debugger=True,
)


# ---------------------------------------------------------------- steps


async def _steps(d: Debugger, n: int) -> dict[str, float]:
    thread, _ = await d.run_to("STEP_START")
    out = {}
    for metric, size in (("step_min", StepSize.MIN), ("step_line", StepSize.LINE)):
        t0 = now()
        for _ in range(n):
            await d.step(thread, size)
        out[metric] = (now() - t0) / n * 1e3
    return out


async def _timed_steps_from(d: Debugger, start: str, n: int, depth: int, excludes=()) -> float:
    """Mean ms of the steps that start at marker ``start`` (the others only bring the thread back there)."""
    thread, loc = await d.run_to(start)
    origin = await d.location(start)
    total, timed = 0.0, 0
    for _ in range(4 * n):
        if timed == n:
            break
        t0 = now()
        new = await d.step(thread, StepSize.LINE, depth, excludes)
        if (loc.method_id, loc.index) == (origin.method_id, origin.index):
            total += now() - t0
            timed += 1
        loc = new
    if timed == 0:
        raise MeasurementFailed(f"no step started at {start}")
    return total / timed * 1e3


def run_steps(variant: str, cfg: Config) -> dict[str, float]:
    n = cfg.pick(40, 150)
    out = debug_target(variant, ["steps"], lambda d: _steps(d, n))
    out["step_over_heavy"] = debug_target(
        variant, ["over"], lambda d: _timed_steps_from(d, "HEAVY_CALL", cfg.pick(5, 15), StepDepth.OVER))
    out["step_into_excluding_jdk"] = debug_target(
        variant, ["jdk"], lambda d: _timed_steps_from(d, "JDK_CALL", cfg.pick(5, 15), StepDepth.INTO,
                                                      JDB_EXCLUDES))
    return out


STEPS = Measurement(
    name="steps",
    doc="Single steps as jdb takes them (ms per step): into MIN/LINE, over a 1M-bytecode call, into past the JDK",
    variants=SERVERS,
    run=run_steps,
    units={k: "ms" for k in ("step_min", "step_line", "step_over_heavy", "step_into_excluding_jdk")},
    targets=tuple(Target(k, "jdwpd", "reference", 1.0)
                  for k in ("step_min", "step_line", "step_over_heavy", "step_into_excluding_jdk")),
    needs_debugger=True,
)


# ---------------------------------------------------------------- frames and locals


async def _frames(d: Debugger, n: int) -> dict[str, float]:
    c = d.c
    bp = await d.breakpoint("DEEP_BOTTOM")
    await c.command("VirtualMachine", "Resume")
    _, events = await c.wait_for_event(EventKind.BREAKPOINT, timeout=30)
    thread = events[0].thread
    tables: dict[tuple[int, int], list] = {}  # what JDI caches per method

    async def all_locals() -> int:
        frames = (await c.command("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1)).frames
        count = 0
        for f in frames:
            key = (f.location.class_id, f.location.method_id)
            if key not in tables:
                code, table = await c.command_raw("Method", "VariableTableWithGeneric", ref_type=key[0],
                                                  method_id=key[1])
                tables[key] = table.slots if table else []
            visible = [s for s in tables[key] if s.code_index <= f.location.index < s.code_index + s.length]
            if visible:
                await c.command("StackFrame", "GetValues", thread=thread, frame=f.frame_id,
                                slots=[(s.slot, ord(s.signature[0])) for s in visible])
                count += len(visible)
        return count

    t0 = now()
    count = await all_locals()
    first = (now() - t0) * 1e3
    if count < 50:
        raise MeasurementFailed(f"only {count} locals seen in the deep stack")
    again = []
    for _ in range(n):
        await c.command("VirtualMachine", "Resume")
        await c.wait_for_event(EventKind.BREAKPOINT, timeout=30)
        t0 = now()
        await all_locals()
        again.append((now() - t0) * 1e3)
    await d.clear(EventKind.BREAKPOINT, bp)
    again.sort()
    return {"first_stop": first, "next_stops": again[len(again) // 2]}


def run_frames(variant: str, cfg: Config) -> dict[str, float]:
    return debug_target(variant, ["deep"], lambda d: _frames(d, cfg.pick(3, 10)))


FRAMES = Measurement(
    name="frames",
    doc="Frames and every visible local of a 52-frame stack (ms): first stop (variable tables too), later stops",
    variants=SERVERS,
    run=run_frames,
    units={"first_stop": "ms", "next_stops": "ms"},
    targets=(Target("first_stop", "jdwpd", "reference", 1.2), Target("next_stops", "jdwpd", "reference", 1.2)),
    needs_debugger=True,
)


from .classes import CLASSES  # noqa: E402
from .ide import IDE  # noqa: E402

DEBUGGER_MEASUREMENTS = [ROUNDTRIP, HITS, FILTERS, STEPS, FRAMES, CLASSES, IDE]
