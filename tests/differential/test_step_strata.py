"""Line steps in a class with a SourceDebugExtension (JSR-45 SMAP), reference vs jdwpd.

The reference decides where a LINE step ends by the lines of the default stratum: the one a debugger
named with VirtualMachine.SetDefaultStratum when the class has it, else the SMAP's own default; Java
lines when that is "Java".  Java lines the stratum maps to nothing join the line before them (code
before the first mapped line joins the first), and Java lines that map to one stratum line (in one
file) are one line.  Strata (tests/differential/strata_java) gets a SMAP built from its markers with two
strata: Foo, its default, merges and drops lines; Bar maps line by line, by twos, and tells two files
apart.  From the same places, steps INTO, OUT and OVER run under every default stratum a debugger may
set; the transcript (every request, event and the line each step ends on) must be the reference's.

One difference is deliberate (docs/conformance.md): the reference keeps a thread's converted line table
while its steps stay in one method, even across SetDefaultStratum; jdwpd converts again, so the stratum
set before a step is the one it steps by.  The last case states it.
"""

from __future__ import annotations

import pprint
import shutil
from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, ModKind, StepDepth, StepSize, SuspendPolicy
from tests.conformance.classfile import add_source_debug_extension
from tests.conformance.harness import TIMEOUT, Transcript
from tests.conformance.scenarios_events import step
from tests.differential.test_step_semantics import line_of

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "strata_java"
ROUNDS = 60
LINE = StepSize.LINE
INTO, OVER, OUT = StepDepth.INTO, StepDepth.OVER, StepDepth.OUT
# None: SetDefaultStratum never sent (each class's own default: Foo).  "NoSuch" is a stratum Strata lacks
# (its default then), "" the JDI way of unsetting it.
STRATA = [None, "Bar", "Java", "NoSuch", ""]
# (where the thread stops first, its steps): the last one ends in main, whose line table the reference
# then holds, so that the next stratum's steps start from a fresh conversion on both servers.
CASES = [("R1", [(LINE, INTO)] * 12), ("W2", [(LINE, OUT), (LINE, OVER), (LINE, OVER)]), ("R1", [(LINE, OVER)] * 6)]


def smap(m: dict[str, int]) -> str:
    """Foo: W1-W3 one line, W4 none, W5, W6-W7 one line; nothing of unmapped(); R1 none (its code joins
    R2's line), R2, R3 none, R4, R5-R6 one line.  Bar: W1-W3 lines 1-3 of file 1, W4 line 3 of file 2 (a
    line of its own only by its file), W5-W6 lines 4-5, W7 none; U1-U3 one by one; R1-R6 by twos.  A
    vendor section the parser must skip; CRLF line ends in part."""
    return "\n".join([
        "SMAP", "Strata.java", "Foo",
        "*S Foo", "*F", "+ 1 Foo.foo", "dir/Foo.foo", "*L",
        f"1#1,1:{m['W1']},3", f"2:{m['W5']}", f"3,1:{m['W6']},2",
        f"10:{m['R2']}", f"11:{m['R4']}", f"12,1:{m['R5']},2",
        "*S Bar", "*F", "1 Bar.bar", "2 Other.bar", "*L",
        f"1#1,3:{m['W1']}\r", f"3#2:{m['W4']}\r", f"4,2:{m['W5']}",
        f"7#1,3:{m['U1']}", f"20,3:{m['R1']},2",
        "*V", "vendor text, skipped",
        "*E",
    ]) + "\n"


async def one_step(t: Transcript, thread: int, size, depth, what: str) -> None:
    rid = await t.set_request(EventKind.SINGLE_STEP, step(thread, size, depth), note=what)
    await t.ok("VirtualMachine", "Resume")
    ev = await t.event_of(EventKind.SINGLE_STEP, what)
    await t.ok("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=rid)
    t.note("line", what, await line_of(t, ev.location))


async def steps_under_each_stratum(t: Transcript, ref: int, strata: list, cases: list) -> None:
    """Each default stratum in turn (None: none set), then each case's steps from its marker in class ``ref``."""
    for stratum in strata:
        if stratum is not None:
            await t.ok("VirtualMachine", "SetDefaultStratum", stratum_id=stratum, note=repr(stratum))
        for i, (marker, steps) in enumerate(cases):
            thread = (await t.run_to(ref, marker)).thread
            for j, (size, depth) in enumerate(steps):
                await one_step(t, thread, size, depth, f"{stratum!r} {i}.{j}: {marker} {size.name} {depth.name}")


async def session(t: Transcript) -> None:
    main_class = await t.start("StrataMain")
    await t.run_to(main_class, "SM_CALL")
    strata = await t.class_id("LStrata;")
    await steps_under_each_stratum(t, strata, STRATA, CASES)
    # The stated difference: steps end inside run() by Foo's lines (R4, then R5, whose line R6 shares), the
    # stratum changes to Java, and the next step starts in the same method: R6 by Java's lines.
    await t.ok("VirtualMachine", "SetDefaultStratum", stratum_id="Foo", note="'Foo'")
    thread = (await t.run_to(strata, "R1")).thread
    await one_step(t, thread, LINE, OVER, "stale 1: by Foo")
    await one_step(t, thread, LINE, OVER, "stale 2: by Foo")
    await t.ok("VirtualMachine", "SetDefaultStratum", stratum_id="Java", note="'Java' (stale)")
    await one_step(t, thread, LINE, OVER, "stale 3: by Java")
    # The same with one step request left in place across the change: it stops at R4 by Foo, then goes on
    # from R4 by Java's lines (R5, R6) where the reference goes on by Foo's (R5, then out to main).
    await t.ok("VirtualMachine", "SetDefaultStratum", stratum_id="Foo", note="'Foo' (stale staying)")
    thread = (await t.run_to(strata, "R1")).thread
    rid = await t.set_request(EventKind.SINGLE_STEP, step(thread, LINE, OVER), note="stale staying")
    for j in range(3):
        if j == 1:
            await t.ok("VirtualMachine", "SetDefaultStratum", stratum_id="Java", note="'Java' (stale staying)")
        await t.ok("VirtualMachine", "Resume")
        ev = await t.event_of(EventKind.SINGLE_STEP, f"stale staying {j}")
        t.note("line", f"stale staying {j}", await line_of(t, ev.location))
    await t.ok("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=rid)
    await t.to_the_end()


@pytest.fixture(scope="module")
def classpath(tmp_path_factory) -> Path:
    compiled = debuggees.compile_sources(SOURCES)
    out = tmp_path_factory.mktemp("strata")
    shutil.copytree(compiled, out, dirs_exist_ok=True)
    target = out / "Strata.class"
    target.write_bytes(add_source_debug_extension(target.read_bytes(), smap(debuggees.all_markers(SOURCES))))
    return out


def _command(kind: str, classpath: Path, profile: str, main_args: tuple[str, ...] = (str(ROUNDS),)) -> list[str]:
    args = (classpath, "StrataMain", main_args)
    if kind == "reference":
        return jvm.reference_command(*args)
    cmd = jvm.jdwpd_command(*args)
    at = cmd.index("launch") + 1
    return [*cmd[:at], "--profile", profile, *cmd[at:]]


async def _run(kind: str, classpath: Path, markers: dict[str, int], profile: str = "full") -> list:
    with trio.fail_after(180):
        async with jvm._open_trio(kind, _command(kind, classpath, profile), 60, None) as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                t = Transcript(client, kind, classpath, markers)
                try:
                    await session(t)
                except BaseException as e:
                    raise AssertionError(f"{kind} ({profile}) failed after {len(t.entries)} entries:\n"
                                         f"{debuggee.output.describe()}") from e
                return [e.shown() for e in t.entries]


_REFERENCE: list = []


def _stale(entry: tuple) -> bool:
    return "stale" in entry[0]


@pytest.mark.parametrize("profile", ["full", "nothrow"])
async def test_line_steps_by_the_default_stratum_end_where_the_reference_ends_them(classpath, profile):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    markers = debuggees.all_markers(SOURCES)
    if not _REFERENCE:
        _REFERENCE.extend(await _run("reference", classpath, markers))
    want = _REFERENCE
    got = await _run("jdwpd", classpath, markers, profile)
    same_want = [e for e in want if not _stale(e)]
    same_got = [e for e in got if not _stale(e)]
    for i, (w, g) in enumerate(zip(same_want, same_got, strict=False)):
        assert g == w, f"entry {i} differs\n--- reference ---\n{pprint.pformat(w)}\n--- jdwpd ---\n{pprint.pformat(g)}"
    assert len(same_got) == len(same_want)

    # The strata change where steps end (the reference's rule, as the module doc says), not only alike.
    lines = {label: value for (label, _, value) in want if label.startswith("line [")}

    def ends(stratum, case: int) -> list[int]:
        marker, steps = CASES[case]
        return [lines[f"line [{stratum!r} {case}.{j}: {marker} {s.name} {d.name}]"] for j, (s, d) in enumerate(steps)]

    m = markers
    assert ends("Java", 2)[:5] == [m["R2"], m["R3"], m["R4"], m["R5"], m["R6"]]
    assert ends(None, 2)[:2] == [m["R4"], m["R5"]]  # R1 joins R2's line, R3 none, R5-R6 one line
    assert ends("Bar", 2)[:2] == [m["R3"], m["R5"]]  # by twos
    assert ends("NoSuch", 2) == ends("", 2) == ends(None, 2)  # the class's own default
    # INTO from R1 (one line with R2 in both strata): work's first bytecode; then Foo's next line is W5, then
    # W6; Bar's are W2, W3 and W4 (line 3 as W3's, in another file), then W5.
    assert ends("Java", 0)[:2] == [m["R2"], m["W1"]]
    assert ends(None, 0)[:3] == [m["W1"], m["W5"], m["W6"]]
    assert ends("Bar", 0)[:5] == [m["W1"], m["W2"], m["W3"], m["W4"], m["W5"]]
    assert ends(None, 0) != ends("Java", 0)

    # The stated difference: the reference steps on by the Foo table it still holds for run() (R5 and R6 one
    # line: out to main); jdwpd by Java's lines, as the debugger asked.
    stale_want = [v for (label, _, v) in want if label.startswith("line [stale")]
    stale_got = [v for (label, _, v) in got if label.startswith("line [stale")]
    assert stale_want == [m["R4"], m["R5"], m["SM_CALL"]] * 2
    assert stale_got == [m["R4"], m["R5"], m["R6"]] * 2


# SMAPs as the reference parses them (each its own run): {markers}-formatted texts.
VARIANTS = {
    # A text that ends before "*E" is no SMAP: Java lines.
    "unterminated": "SMAP\nStrata.java\nFoo\n*S Foo\n*F\n1 a.foo\n*L\n10:{R2}\n11:{R4}\n",
    "not a SMAP": "a vendor's own debug extension\n",
    # CR, CRLF, blanks before fields and lines, no line end after *E.
    "line ends": "SMAP\r\nStrata.java\r\n  Foo\r\n*S Foo\r*F\r\n 1 a.foo\n*L\r\n  10 :{R2}\r\n11: {R4} \n*E",
    # A name given twice: the first section holding entries is the stratum (an empty one is dropped).
    "twice": "SMAP\nStrata.java\nFoo\n*S Foo\n*S Foo\n*F\n1 a.foo\n*L\n10,2:{R1}\n*S Foo\n*F\n1 b.foo\n*L\n"
             "1:{R1}\n2:{R2}\n3:{R3}\n*E\n",
    # Entries before any *S make a stratum named Aux.
    "aux": "SMAP\nStrata.java\nAux\n*F\n1 a.aux\n*L\n5,3:{R1},2\n*E\n",
    # Kotlin's shape: the class's own lines one to one in file 1, an inlined function's (R3, R4) in file 2,
    # and KotlinDebug mapping those back to the call site.
    "kotlin": "SMAP\nStrata.kt\nKotlin\n*S Kotlin\n*F\n+ 1 Strata.kt\nStrata\n+ 2 Inline.kt\nInlineKt\n*L\n"
              "1#1,{R2}:1\n5#2,2:{R3}\n*S KotlinDebug\n*F\n+ 1 Strata.kt\nStrata\n*L\n{R2}#1,2:{R3}\n*E\n",
    # Ranges of no lines (count 0, increment 0) map nothing: all of run() is R4's line.
    "empty ranges": "SMAP\nStrata.java\nFoo\n*S Foo\n*F\n1 a.foo\n*L\n1,0:{R1}\n2,1:{R2},0\n3:{R4}\n*E\n",
}
# The SMAP names a default stratum it lacks: the reference recurses without end converting the table at the
# step request and its VM dies; jdwpd steps by Java lines (docs/conformance.md).
MISSING_DEFAULT = "SMAP\nStrata.java\nNope\n*S Foo\n*F\n1 a.foo\n*L\n10:{R2}\n11:{R4}\n*E\n"
VARIANT_STEPS = [(LINE, OVER)] * 4 + [(LINE, INTO)] * 5


async def variant_session(t: Transcript) -> None:
    main_class = await t.start("StrataMain")
    await t.run_to(main_class, "SM_CALL")
    strata = await t.class_id("LStrata;")
    thread = (await t.run_to(strata, "R1")).thread
    for j, (size, depth) in enumerate(VARIANT_STEPS):
        await one_step(t, thread, size, depth, f"{j}: {size.name} {depth.name}")
    await t.to_the_end()


async def _run_variant(kind: str, classpath: Path, markers: dict[str, int]) -> tuple[list, str | None]:
    with trio.fail_after(120):
        async with jvm._open_trio(kind, _command(kind, classpath, "full"), 60, None) as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                t = Transcript(client, kind, classpath, markers)
                try:
                    await variant_session(t)
                except Exception as e:  # noqa: BLE001 - the reference's death is the finding
                    return [e.shown() for e in t.entries], f"{type(e).__name__}: {e}"
                return [e.shown() for e in t.entries], None


def _variant_classpath(tmp: Path, text: str) -> tuple[Path, dict[str, int]]:
    markers = debuggees.all_markers(SOURCES)
    shutil.copytree(debuggees.compile_sources(SOURCES), tmp, dirs_exist_ok=True)
    target = tmp / "Strata.class"
    target.write_bytes(add_source_debug_extension(target.read_bytes(), text.format(**markers)))
    return tmp, markers


def _ends(entries: list) -> list[int]:
    return [value for (label, _, value) in entries if label.startswith("line [")]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_smap_variants_step_as_the_reference_parses_them(variant, tmp_path):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    classpath, m = _variant_classpath(tmp_path, VARIANTS[variant])
    want, want_error = await _run_variant("reference", classpath, m)
    got, got_error = await _run_variant("jdwpd", classpath, m)
    assert want_error is None and got_error is None, (want_error, got_error)
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        assert g == w, f"entry {i} differs\n--- reference ---\n{pprint.pformat(w)}\n--- jdwpd ---\n{pprint.pformat(g)}"
    assert len(got) == len(want)
    java = [m["R2"], m["R3"], m["R4"], m["R5"]]
    first_overs = _ends(want)[:4]
    if variant in ("unterminated", "not a SMAP"):
        assert first_overs == java
    else:
        assert first_overs != java, "the SMAP changed nothing: the variant tests no conversion"


async def test_a_smap_missing_its_default_stratum_kills_the_reference_not_jdwpd(tmp_path):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    classpath, m = _variant_classpath(tmp_path, MISSING_DEFAULT)
    want, want_error = await _run_variant("reference", classpath, m)
    got, got_error = await _run_variant("jdwpd", classpath, m)
    assert want_error is not None and want_error.startswith("JdwpClosedError"), want_error  # the connection died
    assert not _ends(want), want[-3:]  # gone at the first step request
    assert got_error is None
    assert _ends(got)[:4] == [m["R2"], m["R3"], m["R4"], m["R5"]]


# ClassPrepare's SourceNameMatch: the reference matches the source names of every stratum of a class's
# SMAP (file names, not paths; the SMAP's generated file name too), then the class's SourceFile.
SOURCE_PATTERNS = ["Foo.foo", "*.bar", "Other.bar", "dir/Foo.foo", "*.foo", "Strata.java", "Strata*", "Nope*",
                   "Bar.ba", "*"]


async def source_name_session(t: Transcript) -> None:
    await t.event_of(EventKind.VM_START, "start")
    pattern_of = {}
    for pattern in SOURCE_PATTERNS:
        modifier = {"mod_kind": ModKind.SOURCE_NAME_MATCH, "source_name_pattern": pattern}
        pattern_of[await t.set_request(EventKind.CLASS_PREPARE, modifier, policy=SuspendPolicy.NONE,
                                       note=pattern)] = pattern
    await t.ok("VirtualMachine", "Resume")
    while True:
        _, events = await t.client.next_event(TIMEOUT)  # not recorded whole: "*" matches the JDK's too
        if any(int(e.event_kind) == EventKind.VM_DEATH for e in events):
            return
        for e in events:
            if int(e.event_kind) == EventKind.CLASS_PREPARE and e.signature.startswith("LStrata"):
                t.note("prepared", pattern_of[e.request_id], e.signature)


async def _run_source_names(kind: str, classpath: Path, markers: dict[str, int]) -> list:
    with trio.fail_after(120):
        async with jvm._open_trio(kind, _command(kind, classpath, "full"), 60, None) as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                t = Transcript(client, kind, classpath, markers)
                await source_name_session(t)
                return [e.shown() for e in t.entries]


async def test_source_name_match_sees_the_smap_source_names(classpath):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    markers = debuggees.all_markers(SOURCES)
    want = await _run_source_names("reference", classpath, markers)
    got = await _run_source_names("jdwpd", classpath, markers)
    assert got == want
    matched = {}
    for label, _, signature in want:
        if label.startswith("prepared ["):
            matched.setdefault(label[len("prepared ["):-1], []).append(signature)
    both = sorted(["LStrata;", "LStrataMain;"])
    assert {p: sorted(v) for p, v in matched.items()} == {
        "Foo.foo": ["LStrata;"], "*.bar": ["LStrata;"], "Other.bar": ["LStrata;"], "*.foo": ["LStrata;"],
        "Strata.java": ["LStrata;"], "Strata*": both, "*": both}


async def next_debugger_session(t: Transcript) -> None:
    """SetDefaultStratum("Java"), then the debugger leaves; the next one's steps still go by Java lines."""
    main_class = await t.start("StrataMain")
    await t.run_to(main_class, "SM_CALL")
    await t.ok("VirtualMachine", "SetDefaultStratum", stratum_id="Java", note="'Java'")
    await t.ok("VirtualMachine", "Dispose")
    await t.client.wait_closed(10)
    async with t.another_debugger() as t2:
        strata = await t2.class_id("LStrata;")
        # The program runs (Dispose let it go): no Resume after the breakpoint is set (run_to's). One sent
        # after the breakpoint already held the VM, as it can be under load, resumed the VM, and the steps
        # then began wherever the thread ran to (main's sleep: they ended in main).
        rid = await t2.breakpoint(strata, "R1")
        thread = (await t2.event_of(EventKind.BREAKPOINT, "R1")).thread
        await t2.ok("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=rid)
        for j in range(2):
            await one_step(t2, thread, LINE, OVER, f"next debugger {j}")
        await t2.ok("VirtualMachine", "Exit", exit_code=0)


async def test_the_default_stratum_outlives_the_debugger_that_set_it(classpath):
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    markers = debuggees.all_markers(SOURCES)
    runs = {}
    for kind in ("reference", "jdwpd"):
        with trio.fail_after(120):
            # Ten minutes of rounds: the second debugger ends the program with Exit, and under load
            # it must still find the program running (400 rounds ran out before its steps).
            command = _command(kind, classpath, "full", ("30000", "20"))
            async with jvm._open_trio(kind, command, 60, None) as debuggee:
                async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                    t = Transcript(client, kind, classpath, markers)
                    t.address = (debuggee.host, debuggee.port)
                    t.output = debuggee.output
                    await next_debugger_session(t)
                    runs[kind] = [e.shown() for e in t.entries]
    assert runs["jdwpd"] == runs["reference"]
    assert _ends(runs["reference"]) == [markers["R2"], markers["R3"]]  # Java's lines, not Foo's (R4, R5)
