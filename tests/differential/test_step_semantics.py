"""Steps against the reference, case by case: steps an exception carries out of frames (every size and
depth), and line steps in code without lines (javac -g:none).

One debuggee run per server (tests/differential/steps_java): each round of StepsThrough runs every case
once, and the session takes one case per round (a one-shot breakpoint, the step, its event).  The
reference's transcript is the oracle for jdwpd with the full profile and with the nothrow profile (which
has neither frame-pop nor exception events: the agent steps through frames the reference waits out with
single-step off, and must still end every step where the reference does).  A second session sweeps
every size, depth and JDK filter from each place, requests staying for several stops.
"""

from __future__ import annotations

import pprint
import shutil
from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, StepDepth, StepSize
from tests.conformance.harness import TIMEOUT, Transcript
from tests.conformance.scenarios_events import class_exclude, class_match, count, step

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "steps_java"
ROUNDS = 24
LINE, MIN = StepSize.LINE, StepSize.MIN
INTO, OVER, OUT = StepDepth.INTO, StepDepth.OVER, StepDepth.OUT
NO_JDK = (class_exclude("java.*"), class_exclude("jdk.*"), class_exclude("sun.*"))

# (where the thread stops first, its steps (size, depth, extra modifiers), the line the last one ends on
# (None: not claimed here, only compared)): each an exception's path out of frames.
EXCEPTION_CASES = [
    # Over a call that throws, caught in the stepping frame: single-step is off in the callee and comes
    # on at the handler's entry, whose own step is never posted; the next bytecode is the catch body's.
    ("ST_CALL", [(LINE, OVER, ())], "ST_CAUGHT"),
    ("ST_CALL", [(MIN, OVER, ()), (MIN, OVER, ())], "ST_CAUGHT"),
    # From the throw itself (the one catchAbove catches), single-stepping all along: the handler's entry is a
    # step (its catch clause's line).
    ("ST_THROW", [(LINE, INTO, NO_JDK)], "ST_CATCH_ABOVE"),
    ("ST_THROW", [(MIN, INTO, ())], None),
    ("ST_THROW", [(LINE, OVER, ())], None),
    ("ST_THROW", [(MIN, OVER, ())], None),
    # Out of the throwing frame, caught frames up: single-step off until the handler.
    ("ST_THROW", [(LINE, OUT, ())], None),
    ("ST_THROW", [(MIN, OUT, ())], None),
    # The exception passes through the stepping frame to its caller.
    ("ST_PASS_CALL", [(LINE, OVER, ())], "ST_CAUGHT_ABOVE"),
    ("ST_PASS_CALL", [(MIN, OVER, ()), (MIN, OVER, ())], "ST_CAUGHT_ABOVE"),
    ("ST_PASS", [(LINE, OUT, ())], "ST_CAUGHT_ABOVE"),
    ("ST_CALL", [(LINE, INTO, NO_JDK)], None),
    # Thrown and caught in the stepping frame: stepping all along.
    ("ST_THROW_HERE", [(LINE, OVER, ())], "ST_CATCH_HERE"),
    ("ST_THROW_HERE", [(MIN, INTO, ())] * 6, None),
    # INTO through code it does not stop in (filtered: the JDK; without lines: NoLines) to code it does.
    ("ST_VIA_JDK", [(LINE, INTO, NO_JDK)], "ST_VISIT"),
    ("ST_CALL_NOLINES", [(LINE, INTO, NO_JDK)], "ST_LINED"),
    # Out of a method the JDK called, the JDK filtered: it ends in the method reference's hidden class
    # (not filtered, no lines).
    ("ST_VISIT", [(LINE, OUT, NO_JDK)], None),
    ("ST_VISIT", [(LINE, OVER, NO_JDK)] * 3, None),
    # A count: the second completed step is the one reported.
    ("ST_PASS", [(LINE, OVER, (count(2),))], None),
    # A breakpoint inside the call a step goes over: it stops the thread on the way; resumed, the step
    # goes on (here the exception takes it to the handler).
    ("ST_CALL", [(LINE, OVER, ())], "ST_CAUGHT", "ST_THROW"),
    ("ST_PASS_CALL", [(MIN, OVER, ()), (MIN, OVER, ())], "ST_CAUGHT_ABOVE", "ST_THROW"),
    # INTO a line whose getstatic initializes a class (next to last round only: the first use, so it
    # comes last): the step does not stop in <clinit>, which HotSpot runs from the bytecode's resolution
    # without posting single steps; it ends on the next line.
    ("ST_LAZY", [(LINE, INTO, NO_JDK)], "ST_LAZY_END"),
]
# Step requests left in place: (where, size, depth, how many events).  After its first stop an OUT
# step goes on as the reference's does: a new line of the frame it stopped in ends it, until that frame
# calls a method; then the frame's end does.
STAYING = [("ST_LINED", LINE, OUT, 4), ("ST_PASS", LINE, OVER, 4), ("ST_THROW", LINE, OUT, 3)]

# From the entry of NoLines.run (no line table): line steps end at the next bytecode at their depth.
NO_LINES_STEPS = [(LINE, OVER), (LINE, INTO), (LINE, OVER), (LINE, INTO), (LINE, OUT), (LINE, INTO), (LINE, INTO),
                  (LINE, INTO), (MIN, OVER), (LINE, OVER), (LINE, OVER), (LINE, INTO)]


async def line_of(t: Transcript, location) -> int:
    """The line of a location by the method's line table; -1 for a method without one."""
    code, table = await t.client.command_raw("Method", "LineTable", ref_type=location.class_id,
                                             method_id=location.method_id, timeout=TIMEOUT)
    if code != 0:
        return -1
    starts = [e for e in table.lines if e.line_code_index <= location.index]
    return max(starts, key=lambda e: e.line_code_index).line_number if starts else -1


async def one_step(t: Transcript, thread: int, size, depth, extra, what: str) -> None:
    rid = await t.set_request(EventKind.SINGLE_STEP, step(thread, size, depth), *extra)
    await t.ok("VirtualMachine", "Resume")
    while True:  # a breakpoint on the way stops the thread first; the step is still on
        _, events = await t.event(what)
        ev = next((e for e in events if e.event_kind == EventKind.SINGLE_STEP), None)
        if ev is not None:
            break
        await t.ok("VirtualMachine", "Resume")
    await t.ok("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=rid)
    t.note("line", what, await line_of(t, ev.location))


async def session(t: Transcript) -> None:
    main_class = await t.start("StepsThrough")
    for i, (marker, size, depth, n) in enumerate(STAYING):
        thread = (await t.run_to(main_class, marker)).thread
        rid = await t.set_request(EventKind.SINGLE_STEP, step(thread, size, depth))
        for j in range(n):
            await t.ok("VirtualMachine", "Resume")
            ev = await t.event_of(EventKind.SINGLE_STEP, f"staying {i}.{j}: {marker} {size.name} {depth.name}")
            t.note("line", f"staying {i}.{j}", await line_of(t, ev.location))
        await t.ok("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=rid)
    for i, (marker, steps, _, *break_at) in enumerate(EXCEPTION_CASES):
        thread = (await t.run_to(main_class, marker)).thread
        bps = [await t.breakpoint(main_class, b) for b in break_at]
        for j, (size, depth, extra) in enumerate(steps):
            await one_step(t, thread, size, depth, extra, f"{i}.{j}: {marker} {size.name} {depth.name}")
        for rid in bps:
            await t.ok("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=rid)
        # Where the thread is now, as the debugger sees it: the whole stack.
        await t.ok("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1, note=str(i))
    rid = await t.set_request(EventKind.METHOD_ENTRY, class_match("NoLines"), count(1))
    await t.ok("VirtualMachine", "Resume")
    thread = (await t.event_of(EventKind.METHOD_ENTRY, "NoLines.run")).thread
    await t.ok("EventRequest", "Clear", event_kind=EventKind.METHOD_ENTRY, request_id=rid)
    for i, (size, depth) in enumerate(NO_LINES_STEPS):
        await one_step(t, thread, size, depth, NO_JDK, f"no lines {i}: {size.name} {depth.name}")
    # Over the end of main: its native caller then runs Thread.exit at the same depth, where the step
    # ends (the stepping frame has returned); the next one goes on in there.
    thread = (await t.run_to(main_class, "ST_DONE")).thread
    for i in range(3):
        await one_step(t, thread, LINE, OVER, (), f"over the end {i}")
    await t.to_the_end()


@pytest.fixture(scope="module")
def classpath(tmp_path_factory) -> str:
    """StepsThrough with full debug information; NoLines (first on the class path) without any."""
    with_lines = debuggees.compile_sources(SOURCES)
    without = debuggees.compile_sources(SOURCES, extra_args=("-g:none",))
    first = tmp_path_factory.mktemp("nolines")
    shutil.copy(without / "NoLines.class", first / "NoLines.class")
    return f"{first}:{with_lines}"


def _command(kind: str, classpath: str, profile: str, rounds: int = ROUNDS) -> list[str]:
    args = (classpath, "StepsThrough", (str(rounds),))
    if kind == "reference":
        return jvm.reference_command(*args)
    cmd = jvm.jdwpd_command(*args)
    at = cmd.index("launch") + 1
    return [*cmd[:at], "--profile", profile, *cmd[at:]]


async def _run(kind: str, classpath: str, markers: dict[str, int], profile: str = "full", *, run=None,
               rounds: int = ROUNDS) -> list:
    with trio.fail_after(180):
        async with jvm._open_trio(kind, _command(kind, classpath, profile, rounds), 60, None) as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                t = Transcript(client, kind, Path(classpath.split(":")[-1]), markers)
                try:
                    await (run or session)(t)
                except BaseException as e:
                    raise AssertionError(f"{kind} ({profile}) failed after {len(t.entries)} entries:\n"
                                         f"{debuggee.output.describe()}") from e
                return [e.shown() for e in t.entries]


_REFERENCE: list = []


async def _reference(classpath: str, markers: dict[str, int]) -> list:
    if not _REFERENCE:
        _REFERENCE.extend(await _run("reference", classpath, markers))
    return _REFERENCE


@pytest.mark.parametrize("profile", ["full", "nothrow"])
async def test_steps_end_where_the_reference_ends_them(classpath, profile):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    markers = debuggees.all_markers(SOURCES)
    want = await _reference(classpath, markers)
    got = await _run("jdwpd", classpath, markers, profile)
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        assert g == w, f"entry {i} differs\n--- reference ---\n{pprint.pformat(w)}\n--- jdwpd ---\n{pprint.pformat(g)}"
    assert len(got) == len(want)
    # The cases end where the reference's step machine ends them (named above), not just alike.
    lines = {label: value for (label, _, value) in want if label.startswith("line [")}
    markers_of = {v: k for k, v in markers.items()}
    for i, (marker, steps, expected, *_) in enumerate(EXCEPTION_CASES):
        size, depth, _ = steps[-1]
        line = lines[f"line [{i}.{len(steps) - 1}: {marker} {size.name} {depth.name}]"]
        if expected is not None:
            assert line == markers[expected], f"case {i}: ended on {markers_of.get(line, line)}, not {expected}"
    # In NoLines, line steps at its own depth end one bytecode on, on no line.
    assert lines["line [no lines 0: LINE OVER]"] == -1


# The sweep: from each of these places every size and depth, with and without the JDK filtered; each
# request stays for up to three stops (one for OUT: left in place it would run to main's end).
SWEEP_FROM = ["ST_CALL", "ST_THROW", "ST_PASS", "ST_PASS_CALL", "ST_THROW_HERE", "ST_VIA_JDK", "ST_CALL_NOLINES",
              "ST_LINED", "ST_VISIT"]
SWEEP = [(m, size, depth, filtered) for m in SWEEP_FROM for size in (LINE, MIN) for depth in (INTO, OVER, OUT)
         for filtered in (False, True) if not (m == "ST_CALL_NOLINES" and depth == OUT)]  # main's own line


async def sweep(t: Transcript) -> None:
    main_class = await t.start("StepsThrough")
    for marker, size, depth, filtered in SWEEP:
        thread = (await t.run_to(main_class, marker)).thread
        what = f"{marker} {size.name} {depth.name}" + (" no JDK" if filtered else "")
        rid = await t.set_request(EventKind.SINGLE_STEP, step(thread, size, depth), *(NO_JDK if filtered else ()))
        for _ in range(1 if depth == OUT else 3):
            await t.ok("VirtualMachine", "Resume")
            await t.event_of(EventKind.SINGLE_STEP, what)
        await t.ok("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=rid)
    await t.to_the_end()


@pytest.mark.parametrize("profile", ["full", "nothrow"])
async def test_a_sweep_of_steps_ends_where_the_reference_ends_them(classpath, profile):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    markers = debuggees.all_markers(SOURCES)
    want = await _run("reference", classpath, markers, run=sweep, rounds=len(SWEEP) + 8)
    got = await _run("jdwpd", classpath, markers, profile, run=sweep, rounds=len(SWEEP) + 8)
    assert len(want) > 3 * len(SWEEP)
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        assert g == w, f"entry {i} differs\n--- reference ---\n{pprint.pformat(w)}\n--- jdwpd ---\n{pprint.pformat(g)}"
    assert len(got) == len(want)
