"""Which test a thread runs, and whether an exception ends it (docs/ci.md, `--on-test-failure`).

The test is the method the framework invoked: the deepest frame, not the framework's own, whose
caller is the framework or reflection and that has a test runner below it (JUnit 4, 5, TestNG).
The deepest, because lambdas a test hands to ``assertThrows`` or ``assertAll`` are called by the
framework too, above the test.  Library code the test calls lies above the test frame, so an
exception thrown there is labelled with the test, not with the library's method.

A test fails when an exception leaves its frame: whatever its class (an assertion's
``AssertionError``, or any other exception, which JUnit reports as an ``<error>``), it is caught
below the test frame (by the framework, or by reflection that wraps it) or not at all.  One caught
at or above the test frame (``assertThrows``, a try/catch in the test) ends nothing.
"""

from __future__ import annotations

import datetime
from typing import Any

import attrs

from jdwpd.api import Limits, to_python
from jdwpd.api.snapshot import SCHEMA
from jdwpd.api.views import ByteBudget

from .expected import expected_by_annotation

#: Test runners: a test frame has one of these below it.
RUNNERS = ("org.junit.", "junit.", "org.testng.")
#: What calls a test method for its runner.
REFLECTION = ("jdk.internal.reflect.", "java.lang.reflect.", "sun.reflect.", "java.lang.invoke.",
              "jdk.internal.invoke.")
#: Frames that are never the code under test: runners, assertion libraries, the JDK, build tools.
FRAMEWORK_PREFIXES = (*RUNNERS, "org.opentest4j.", "org.assertj.", "org.hamcrest.", "java.", "jdk.", "sun.",
                      "com.google.common.truth.", "kotlin.test.", "org.apache.maven.surefire.", "org.gradle.")
#: Exceptions that leave a test without failing it: an assumption that did not hold, a skip.
NOT_FAILURES = frozenset({"org.opentest4j.TestAbortedException", "org.junit.AssumptionViolatedException",
                          "org.junit.internal.AssumptionViolatedException", "org.testng.SkipException"})
#: Runners' catches that expect the exception (JUnit 4's ``@Test(expected=...)``, ``ExpectedException``).
EXPECTING = ("org.junit.internal.runners.statements.ExpectException", "org.junit.rules.ExpectedException")
#: JUnit 4's statement for ``@Test(expected=X)``: it catches what the test throws, and fails the
#: test with an exception of its own when that is no X, or when nothing was thrown.
JUNIT4_EXPECT = "org.junit.internal.runners.statements.ExpectException"
#: The statement it runs: the test method's invocation.
JUNIT4_INVOKE = "org.junit.internal.runners.statements.InvokeMethod"


#: Runner classes a test calls (so they catch above the test frame, never below it): an exception
#: they catch ends no test (``assertThrows``; ``assertAll`` throws its own failure afterwards).
ASSERTION_APIS = ("org.junit.jupiter.api.Assert", "org.junit.Assert", "org.junit.jupiter.api.Assumptions",
                  "org.testng.Assert", "junit.framework.Assert", "junit.framework.TestCase")

#: Where an exception that ends a test is caught: by a runner, or by reflection, which calls the
#: test (and on JDKs 18+ catches first, then wraps it).  The VM judges each throw by these (the
#: API's catch filter, jdwpd's extension): one caught anywhere else (the code under test, a class
#: loader of the JDK asking its parent, a parser of the launcher) never leaves it.  Most throws of
#: a test run are of that kind; each one that left the VM cost a round trip (issue 31.10).
RECORDERS = tuple(f"{p}*" for p in (*RUNNERS, *REFLECTION))
#: Runner classes that catch what ends no test: the assertion APIs a test calls, the
#: ``ExpectedException`` rule's catch (JUnit 4's ``ExpectException`` is no such class: what it
#: catches fails the test when it is not what ``@Test(expected=X)`` names), the console launcher
#: (its option parser, picocli, shadowed under it, tries numbers and constructors) and JUnit 4's
#: runner builders (they probe each class for a ``suite()`` method).
NOT_RECORDERS = (*(f"{p}*" for p in (*ASSERTION_APIS, "org.junit.rules.ExpectedException")),
                 "org.junit.platform.console.*",
                 "org.junit.internal.builders.*")


async def junit4_expected(frame: Any) -> Any:
    """The type an ``ExpectException.evaluate`` frame expects (JUnit 4's ``@Test(expected=X)``),
    read from its ``expected`` field; None where it cannot be read."""
    try:
        this = await frame.this()
        cls = await this.get("expected") if this is not None else None
        return await cls.reflected_type() if cls is not None else None
    except Exception:  # another JUnit's statement, a VM going away
        return None


async def junit4_missing_expected(hit: Any, frames: list[Any]) -> tuple[str, str, dict | None] | None:
    """``(test, expected class, the test method's first line)`` where JUnit 4 fails a
    ``@Test(expected=X)`` test that returned without throwing X: its ``ExpectException`` throws
    ``AssertionError("Expected exception: X")`` after the test's frame is gone, so the test is
    named from the statement it ran
    (``InvokeMethod``'s ``testMethod``, a ``FrameworkMethod``, its ``java.lang.reflect.Method``)."""
    thrown = getattr(hit, "thrown", None)
    if thrown is None or thrown.type_name != "java.lang.AssertionError" or not frames \
            or frames[0].location.type.name != JUNIT4_EXPECT or frames[0].location.method.name != "evaluate":
        return None
    try:
        this = await frames[0].this()
        expected = await junit4_expected(frames[0])
        invoke = await this.get("next")
        if expected is None or invoke is None or invoke.type_name != JUNIT4_INVOKE:
            return None
        method = await (await invoke.get("testMethod")).get("method")
        declaring = await (await method.get("clazz")).reflected_type()
        name = await method.get("name")
    except Exception:  # a runner of another shape: no test to name
        return None
    where = None
    try:  # the test method's first line: where the test is shown
        found = await declaring.methods_named(name)
        where = (await found[0].location()).to_python() if found else None
    except Exception:  # no line table: the throw's location is shown
        pass
    return f"{declaring.name}.{name}", expected.name, where


def is_framework(cls: str) -> bool:
    return cls.startswith(FRAMEWORK_PREFIXES)


def test_index(classes: list[str]) -> int | None:
    """The index (top frame 0) of the test frame in a stack given as its frames' class names."""
    runner_below = False
    for i in range(len(classes) - 1, -1, -1):
        cls = classes[i]
        if cls.startswith(RUNNERS):
            runner_below = True
            continue
        if runner_below and not is_framework(cls) and i + 1 < len(classes) \
                and classes[i + 1].startswith(RUNNERS + REFLECTION):
            return i
    return None


def test_of(snapshot: dict) -> str | None:
    """``pkg.TestClass.method`` of a snapshot's test frame, if its frames reach one."""
    frames = snapshot.get("frames", [])
    if "test_frame" in snapshot:
        i = snapshot["test_frame"]
    else:
        i = test_index([f["location"].get("class", "") for f in frames])
    if i is None:
        return None
    loc = frames[i]["location"]
    return f"{loc.get('class')}.{loc.get('method', '?')}"


async def ended_test(hit: Any, frames: list[Any]) -> int | None:
    """The index of the test frame an exception hit leaves (the test fails), else None."""
    thrown = getattr(hit, "thrown", None)
    if thrown is not None and thrown.type_name in NOT_FAILURES:
        return None
    t = test_index([f.location.type.name for f in frames])
    if t is None:
        return None
    catch = hit.catch_location
    if catch is None:
        return t
    at = next((i for i, f in enumerate(frames) if f.location.method.id == catch.method.id
               and f.location.type.id == catch.type.id), len(frames))
    if at <= t:
        return None  # caught in the test, or in code it called
    if catch.type.name == JUNIT4_EXPECT and at < len(frames) and thrown is not None:
        # JUnit 4's @Test(expected=X): one that is no X fails the test ("Unexpected exception")
        expected = await junit4_expected(frames[at])
        if expected is None or await thrown.type.is_subtype_of(expected.signature):
            return None
        return t
    if catch.type.name.startswith(EXPECTING):
        return None  # expected by the runner (ExpectedException's rule)
    if await expected_by_annotation(hit, frames, t):
        return None  # TestNG's @Test(expectedExceptions=...): its runner catches it as any other
    return t


async def test_failure_snapshot(hit: Any, frames: list[Any], t: int, limits: Limits) -> dict:
    """A ``jdwpd.snapshot/1`` of a failing test: the frames from the throw down to the test's, the
    locals of the throwing frame, of the test's frame and of the code under test between them
    (not of the framework's frames: they say nothing of why the test failed).  ``test_frame``:
    the test frame's index in ``frames``."""
    budget = ByteBudget(limits.bytes)
    truncated: list[str] = []
    shown = list(range(t + 1))
    if len(shown) > limits.frames:  # keep the top and the test's frame
        shown = [*range(max(1, limits.frames - 1)), t]
        truncated.append("frames")
    read = {0, t} | {i for i in shown if not is_framework(frames[i].location.type.name)}
    out = []
    # the test's frame first: its locals are what a reader wants before the budget runs out
    for i in sorted(shown, key=lambda i: (i != t, i)):
        frame = frames[i]
        entry: dict[str, Any] = {"location": frame.location.to_python()}
        if i in read:
            if budget.left >= 0:
                try:
                    entry["locals"] = {n: await to_python(v, limits, budget=budget)
                                       for n, v in (await frame.locals()).items()}
                    this = await frame.this()
                    if this is not None:
                        entry["this"] = await to_python(this, limits, budget=budget)
                except Exception as e:  # no -g, a native frame: the stack is still worth having
                    entry["locals_error"] = str(e)
            else:
                entry["@truncated"] = "budget"
        out.append((i, entry))
    out.sort(key=lambda x: x[0])
    if budget.left < 0:
        truncated.append("budget")
    return {
        "schema": SCHEMA,
        "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
        "thread": {"id": hit.thread.id, "name": hit.thread.name},
        "location": hit.location.to_python(),
        "frames": [e for _, e in out],
        "test_frame": shown.index(t),
        "watches": [],
        "limits": attrs.asdict(limits),
        "truncated": truncated,
    }


def missing_expected_snapshot(hit: Any, frames: list[Any], test: str, expected: str, limits: Limits) -> dict:
    """A ``jdwpd.snapshot/1`` of a JUnit 4 ``@Test(expected=X)`` test that threw nothing: the
    runner's frames where it throws its ``AssertionError`` (no locals: the framework's), no test
    frame (``test_frame`` null: it returned before), and a note that says so."""
    shown = frames[:limits.frames]
    return {
        "schema": SCHEMA,
        "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
        "thread": {"id": hit.thread.id, "name": hit.thread.name},
        "location": hit.location.to_python(),
        "frames": [{"location": f.location.to_python()} for f in shown],
        "test_frame": None,
        "note": (f"{test} returned without throwing {expected}, which its @Test(expected=...) names: JUnit 4 "
                 "throws this AssertionError after the test, whose frame and locals are gone by then"),
        "watches": [],
        "limits": attrs.asdict(limits),
        "truncated": ["frames"] if len(frames) > len(shown) else [],
    }
