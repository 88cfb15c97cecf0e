"""One jdb session, run against the reference agent and against jdwpd: the transcripts must be identical.

The session walks the Sample debuggee from start to end: breakpoints by line
and by method (deferred until the class loads), locals, print and dump of every
primitive type, strings (non-ASCII, supplementary), arrays, objects and nulls,
toString() through InvokeMethod, step / next / step up, a caught exception, an
uncaught one in another thread, threads / thread / suspend / resume, clear, and
cont to the end.  IDs, identity hashes and column padding are normalized
(jdwpd.testing.normalize); everything else jdb prints must match.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest

from jdwpd.testing import jvm
from jdwpd.testing.jdb import Jdb, open_jdb
from jdwpd.testing.normalize import Normalizer

pytestmark = pytest.mark.jvm

JAVA_SOURCES = Path(__file__).resolve().parents[1] / "java"

HIT = r"Breakpoint hit:"
STEPPED = r"Step completed:"
THROWN = r"Exception occurred:"

LOCAL_PRINTS = ["lBoolean", "lByte", "lChar", "lShort", "lInt", "lLong", "lFloat", "lDouble", "lString", "lInts",
                "lNull"]
STATIC_PRINTS = ["sBoolean", "sByte", "sChar", "sShort", "sInt", "sLong", "sFloat", "sDouble", "sAscii", "sUnicode",
                 "sSupplementary", "sEmpty", "sNull", "sMatrix[0][1]", "sStrings[1]", "sChars[2]", "sObjects[0]"]
STATIC_ARRAYS = ["sInts", "sLongs", "sDoubles", "sFloats", "sBooleans", "sChars", "sBytes", "sShorts", "sStrings",
                 "sObjects", "sMatrix", "sEmptyInts"]


@attrs.frozen
class Session:
    steps: tuple  # ((command, normalized output), ...)
    debuggee_stdout: str

    def output_of(self, command: str) -> str:
        return next(out for cmd, out in self.steps if cmd == command)

    @property
    def text(self) -> str:
        return "\n".join(f"$ {cmd}\n{out}" for cmd, out in self.steps)


def thread_id(threads_output: str, name: str) -> str:
    """The raw ID jdb shows for thread ``name`` in a `threads` listing (jdb wants it back in `thread ID`)."""
    m = re.search(r"\)(0x[0-9a-f]+|\d+)\s+" + re.escape(name) + r"\s", threads_output)
    assert m, f"no thread {name!r} in:\n{threads_output}"
    return m.group(1)


def scenario(jdb: Jdb, m: dict[str, int]) -> None:
    c = jdb.command
    jdb.start()
    c(f"stop at Sample:{m['MAIN_LOCALS']}")
    c("stop in Sample.compute")
    c("cont", HIT)
    c("locals")
    for name in LOCAL_PRINTS:
        c(f"print {name}")
    c("dump lInts")
    c("dump lNull")
    c("print sample")
    c("dump sample")
    c("print sample.fShape")
    c("dump sample.fShape")
    c("print sample.fNull")
    for name in STATIC_PRINTS:
        c(f"print Sample.{name}")
    for name in STATIC_ARRAYS:
        c(f"dump Sample.{name}")
    c("set lInt = 7")
    c("print lInt")
    c("print sample.fShape.area()")  # no breakpoint there yet: compute has one
    c("print Sample.factorial(3)")
    c("class Sample")
    c("fields Sample$Circle")
    c("methods Sample$Circle")
    c("where")
    threads = c("threads")
    main = thread_id(threads, "main")
    c(f"thread {main}", label="thread <main>")
    c(f"clear Sample:{m['MAIN_LOCALS']}")

    c("cont", HIT)
    c("where")
    c("locals")
    c("up")
    c("locals")
    c("down")
    c("print x")
    c("print this.fInt")
    c("step", STEPPED)
    c("locals")
    c("next", STEPPED)
    c("step up", STEPPED)
    c("clear Sample.compute")

    c(f"stop at Sample$Inner:{m['INNER_SUM']}")
    c("stop in Sample$Circle.area")
    c("cont", HIT)
    c("dump this")
    c("where")
    c("cont", HIT)
    c("where")
    c("print radius")
    c(f"clear Sample$Inner:{m['INNER_SUM']}")
    c("clear Sample$Circle.area")

    c("catch java.lang.IllegalStateException")
    c("cont", THROWN)
    c("where")
    c("locals")
    c("ignore java.lang.IllegalStateException")

    c(f"stop at Sample:{m['WORKERS_JOINED']}")
    c("cont", HIT)
    c("locals")
    c("threads")
    c(f"suspend {main}", label="suspend <main>")
    c(f"resume {main}", label="resume <main>")
    c("suspend")
    # `resume` leaves jdb without a current thread, and `cont` would then do nothing.
    c("resume")
    c(f"thread {main}", label="thread <main>")
    c(f"clear Sample:{m['WORKERS_JOINED']}")

    # jdb's default `catch uncaught java.lang.Throwable` stops in the doomed thread.
    c("cont", THROWN)
    c("where")
    c("ignore uncaught java.lang.Throwable")

    c(f"stop at LateLoaded:{m['LATE_CTOR']}")
    c("cont", HIT)
    c("where")
    c("print counter")
    c(f"clear LateLoaded:{m['LATE_CTOR']}")
    c("cont", r"The application exited", prompt=False)


_BARE_PROMPT = re.compile(r"(?m)(?:^|(?<=VM Started: ))> ")
_BLANK_LINES = re.compile(r"\n{2,}")


def canonical(output: str) -> str:
    """jdb's own races removed: its bare prompt "> " and blank lines are printed by the command
    thread while the event thread prints "VM Started:" or "Breakpoint hit:", in either order."""
    return _BLANK_LINES.sub("\n", _BARE_PROMPT.sub("", output.replace("\r", "")))


def threads_scenario(jdb: Jdb, m: dict[str, int]) -> None:
    """tests/java/Threads.java: every thread state, monitors held and contended."""
    c = jdb.command
    jdb.start()
    c(f"stop at Threads:{m['THREADS_IN_PLACE']}")
    c("cont", HIT)
    threads = c("threads")
    c("where all")
    c("threadlocks all")
    c("lock Threads.held")
    c("lock Threads.waitedOn")
    sleeper, main = thread_id(threads, "sleeper"), thread_id(threads, "main")
    c(f"thread {sleeper}", label="thread <sleeper>")
    c("where")
    c(f"suspend {sleeper}", label="suspend <sleeper>")
    c(f"resume {sleeper}", label="resume <sleeper>")
    c(f"thread {main}", label="thread <main>")
    c(f"clear Threads:{m['THREADS_IN_PLACE']}")
    c("cont", r"The application exited", prompt=False)


# Commands that walk VirtualMachine.AllThreads, whose order JDWP leaves to the server.
_PER_THREAD_BLOCKS = {"where all": re.compile(r"^\S.*:$"), "threadlocks all": re.compile(r"^Monitor information for")}


def sort_thread_blocks(command: str, output: str) -> str:
    """Per-thread blocks in name order (before ID normalization, which numbers by first appearance)."""
    starts = _PER_THREAD_BLOCKS.get(command)
    if starts is None:
        return output
    lines = output.split("\n")
    prompt = lines.pop()  # the prompt that ends the output
    blocks: list[list[str]] = []
    for line in lines:
        if starts.match(line) or not blocks:
            blocks.append([line])
        else:
            blocks[-1].append(line)
    return "\n".join(line for block in sorted(blocks) for line in block) + "\n" + prompt


def run_session(kind: str, classes, markers: dict[str, int], main_class: str = "Sample",
                script=scenario) -> Session:
    with jvm.debuggee_jvm(kind, classes, main_class) as vm:
        with open_jdb(vm.host, vm.port, jdb_args=("-sourcepath", str(JAVA_SOURCES))) as jdb:
            try:
                script(jdb, markers)
            except BaseException as e:
                e.add_note(f"jdb transcript so far:\n{jdb.normalized()}\ndebuggee ({kind}) output:\n"
                           f"{vm.output.describe()}")
                raise
            jdb.quit()
            vm.wait(30)
        n = Normalizer()
        steps = tuple((s.command, canonical(n.text(sort_thread_blocks(s.command, s.output))))
                      for s in jdb.transcript if s.command != "quit")
        return Session(steps, program_stdout(vm))


def program_stdout(vm: jvm.Debuggee) -> str:
    """The debuggee's own output: the reference agent's "Listening for transport" lines removed."""
    return "".join(line + "\n" for line in vm.output.lines("stdout") if not jvm.REFERENCE_READY.search(line))


@pytest.fixture(scope="module")
def reference_session(sample_classes, sample_markers) -> Session:
    return run_session("reference", sample_classes, sample_markers)


def test_reference_session_is_sane(reference_session: Session, sample_markers):
    """The recorded reference transcript shows what the scenario meant to exercise."""
    m = sample_markers
    s = reference_session
    assert f'Breakpoint hit: "thread=main", Sample.main(), line={m["MAIN_LOCALS"]} bci=' in s.text
    locals_out = s.output_of("locals")
    for expected in ("lBoolean = true", "lByte = 127", "lChar = q", "lShort = 512", "lInt = -99",
                     "lLong = 1099511627776", "lFloat = -2.5", "lDouble = 0.001",
                     'lString = "local \u00e7a \U0001F680"', "lNull = null", "lInts = instance of int[4]"):
        assert expected in locals_out, locals_out
    assert 'Sample.sSupplementary = "clef \U0001D11E smile \U0001F600"' in s.text
    assert 'Sample.sUnicode = "h\u00e9llo w\u00f6rld \u2713"' in s.text
    assert "Sample.sNull = null" in s.text
    assert "1, 2, 3, -4" in s.output_of("dump lInts")
    assert "true, false, true" in s.output_of("dump Sample.sBooleans")
    assert "instance of int[2] (id=obj#" in s.output_of("dump Sample.sMatrix")
    assert 'sample = "Sample@HASH"' in s.output_of("print sample")  # toString() through InvokeMethod
    assert "fShape: instance of Sample$Circle" in s.output_of("dump sample")
    assert f"Sample.compute(), line={m['COMPUTE_START']}" in s.text
    assert f"Sample.compute(), line={m['COMPUTE_TOTAL']}" in s.output_of("step")
    assert f"Sample.main(), line={m['CALL_COMPUTE']}" in s.output_of("step up")
    assert f"Sample$Inner.outerSum(), line={m['INNER_SUM']}" in s.text
    assert f"Sample$Circle.area(), line={m['CIRCLE_AREA']}" in s.text
    assert (f"java.lang.IllegalStateException (to be caught at: Sample.catcher(), line={m['CATCH_CLAUSE']}"
            in s.text)
    assert "java.lang.UnsupportedOperationException (uncaught)" in s.text
    assert '"thread=doomed", Sample.lambda$uncaughtInThread$' in s.text
    assert f"LateLoaded.<init>(), line={m['LATE_CTOR']}" in s.text
    assert "The application exited" in s.steps[-1][1]
    assert "Group main:" in s.output_of("threads")
    assert s.debuggee_stdout.splitlines()[-1] == "done"


def test_session_matches_reference(server_kind_vs_recording: str, reference_session: Session, sample_classes,
                                   sample_markers):
    """For the reference itself this is the determinism check that makes the comparison meaningful."""
    ours = run_session(server_kind_vs_recording, sample_classes, sample_markers)
    for (cmd, expected), (our_cmd, got) in zip(reference_session.steps, ours.steps, strict=False):
        assert our_cmd == cmd
        assert got == expected, f"after `{cmd}`"
    assert len(ours.steps) == len(reference_session.steps)
    assert ours.debuggee_stdout == reference_session.debuggee_stdout


@pytest.fixture(scope="module")
def reference_threads_session(sample_classes, sample_markers) -> Session:
    return run_session("reference", sample_classes, sample_markers, "Threads", threads_scenario)


def test_reference_threads_session_is_sane(reference_threads_session: Session):
    s = reference_threads_session
    listing = s.output_of("threads")
    for name, state in (("sleeper", "sleeping"), ("waiter", "cond. waiting"), ("blocked", "waiting in a monitor"),
                        ("parked", "cond. waiting"), ("grouped", "sleeping")):
        assert re.search(rf"{name} {state}", listing), listing
    assert "Group grouped-threads:" in listing
    assert "Threads.enterHeld" in s.output_of("where all")
    held = s.output_of("lock Threads.held")
    assert "Owned by: main, entry count: 1" in held and "Waiting thread: blocked" in held
    assert "Waiting thread: waiter" in s.output_of("lock Threads.waitedOn")
    assert "Waiting for monitor: instance of java.lang.Object" in s.output_of("threadlocks all")


def test_threads_session_matches_reference(server_kind_vs_recording: str, reference_threads_session: Session,
                                           sample_classes, sample_markers):
    ours = run_session(server_kind_vs_recording, sample_classes, sample_markers, "Threads", threads_scenario)
    for (cmd, expected), (our_cmd, got) in zip(reference_threads_session.steps, ours.steps, strict=False):
        assert our_cmd == cmd
        assert got == expected, f"after `{cmd}`"
    assert len(ours.steps) == len(reference_threads_session.steps)
    assert ours.debuggee_stdout == reference_threads_session.debuggee_stdout
