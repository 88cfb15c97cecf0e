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
#: JUnit 4's statement for ``@Test(expected=X)``: it catches what the test throws, and fails the
#: test with an exception of its own when that is no X, or when nothing was thrown.
JUNIT4_EXPECT = "org.junit.internal.runners.statements.ExpectException"
#: The statement it runs: the test method's invocation.
JUNIT4_INVOKE = "org.junit.internal.runners.statements.InvokeMethod"
#: JUnit 4's rule statement for ``ExpectedException``: it catches what the test throws.  Where the
#: rule expects nothing (no ``expect()`` called: its ``matcherBuilder``'s ``matchers`` empty), that
#: fails the test, and is captured at its throw.  Else the rule judges it by its matchers once the
#: test's frame is gone, and fails the test with an ``AssertionError`` of its own (another exception
#: than it expects, or, from ``Assert.fail``, none at all): that throw is the captured failure.
JUNIT4_RULE = "org.junit.rules.ExpectedException$ExpectedExceptionStatement"
JUNIT4_RULE_CLASS = "org.junit.rules.ExpectedException"


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
#: Runner classes that catch what ends no test: the assertion APIs a test calls, the console
#: launcher (its option parser, picocli, shadowed under it, tries numbers and constructors) and
#: JUnit 4's runner builders (they probe each class for a ``suite()`` method).  JUnit 4's
#: ``ExpectException`` and ``ExpectedException`` rule are no such classes: what they catch fails
#: the test unless it is what they expect (judged in ``ended_test``).
NOT_RECORDERS = (*(f"{p}*" for p in ASSERTION_APIS),
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


async def junit4_rule_expects_nothing(frame: Any) -> bool:
    """Whether the ``ExpectedException`` rule of an ``ExpectedExceptionStatement.evaluate`` frame
    expects no exception (its matchers' list empty); False where that cannot be read (its later
    throw is then judged)."""
    try:
        statement = await frame.this()
        matchers = await (await (await statement.get("this$0")).get("matcherBuilder")).get("matchers")
        return matchers is not None and await matchers.get("size") == 0
    except Exception:  # another JUnit's rule, a VM going away
        return False


#: The fields by which JUnit 4's statements hold the statement they wrap: its own (RunBefores,
#: RunAfters, ExpectException, the rule's), FailOnTimeout's, and rules' anonymous statements'.
WRAPPED_STATEMENT = ("next", "originalStatement", "val$base", "base")
#: How many statements deep the test's InvokeMethod may be below a rule's.
STATEMENT_DEPTH = 12


@attrs.frozen
class FailedAfterTest:
    """A JUnit 4 test its runner fails after the test method's frame is gone."""

    test: str  # pkg.Class.method
    where: dict | None  # the test method's first line, where the failure is shown
    note: str  # why the snapshot has no test frame nor the test's locals


async def junit4_test_method(statement: Any) -> tuple[Any, str] | None:
    """(declaring type, method name) of the test a JUnit 4 statement runs: the ``InvokeMethod``
    it wraps, through the statements between them (``testMethod``, a ``FrameworkMethod``, holds the
    ``java.lang.reflect.Method``); None where the chain is of another shape."""
    for _ in range(STATEMENT_DEPTH):
        if statement is None:
            return None
        if statement.type_name == JUNIT4_INVOKE:
            method = await (await statement.get("testMethod")).get("method")
            return await (await method.get("clazz")).reflected_type(), await method.get("name")
        for name in WRAPPED_STATEMENT:
            if await statement.type.field(name) is not None:
                statement = await statement.get(name)
                break
        else:
            return None
    return None


def _caught_at(hit: Any, frames: list[Any]) -> int:
    """The index of the frame that catches ``hit``'s exception; ``len(frames)`` for none."""
    catch = hit.catch_location
    if catch is None:
        return len(frames)
    return next((i for i, f in enumerate(frames) if f.location.method.id == catch.method.id
                 and f.location.type.id == catch.type.id), len(frames))


async def junit4_failed_after_test(hit: Any, frames: list[Any]) -> FailedAfterTest | None:
    """The JUnit 4 test its own statement fails once the test's frame is gone, else None:

    - ``@Test(expected=X)`` and nothing thrown: ``ExpectException`` throws
      ``AssertionError("Expected exception: X")`` (the top frame);
    - the ``ExpectedException`` rule (a frame of its statement below the throw, only the runner's
      and hamcrest's frames above it, the exception leaving it): another exception than the rule
      expects or none (its ``AssertionError``), or the test's own, rethrown where the rule expected
      none.

    The test is named from the statement's chain down to JUnit's ``InvokeMethod``."""
    thrown = getattr(hit, "thrown", None)
    if thrown is None or not frames or thrown.type_name in NOT_FAILURES:
        return None
    top = frames[0].location
    if top.type.name == JUNIT4_EXPECT and top.method.name == "evaluate":
        if thrown.type_name != "java.lang.AssertionError":
            return None
        at = 0
    else:
        at = next((i for i, f in enumerate(frames) if f.location.type.name == JUNIT4_RULE
                   and f.location.method.name == "evaluate"), -1)
        if at < 0 or not all(is_framework(f.location.type.name) for f in frames[:at]) \
                or _caught_at(hit, frames) <= at:
            return None
    try:
        statement = await frames[at].this()
        found = await junit4_test_method(await statement.get("next"))
        expected = await junit4_expected(frames[at]) if at == 0 and top.type.name == JUNIT4_EXPECT else None
    except Exception:  # a runner of another shape: no test to name
        return None
    if found is None:
        return None
    declaring, name = found
    test = f"{declaring.name}.{name}"
    if top.type.name == JUNIT4_EXPECT:
        if expected is None:
            return None
        why = f"{test} returned without throwing {expected.name}, which its @Test(expected=...) names"
    else:
        rule = {f.location.method.name for f in frames[:at] if f.location.type.name == JUNIT4_RULE_CLASS}
        if thrown.type_name == "java.lang.AssertionError" and "failDueToMissingException" in rule:
            why = f"{test} returned without throwing what its ExpectedException rule expects"
        elif thrown.type_name == "java.lang.AssertionError" and "handleException" in rule \
                and frames[0].location.type.name != JUNIT4_RULE_CLASS:
            why = f"{test} threw an exception its ExpectedException rule does not expect (this message says which)"
        else:
            why = f"{test} threw this, and its ExpectedException rule, which expected no exception, rethrew it"
    where = None
    try:  # the test method's first line: where the test is shown
        methods = await declaring.methods_named(name)
        where = (await methods[0].location()).to_python() if methods else None
    except Exception:  # no line table: the throw's location is shown
        pass
    note = f"{why}: JUnit 4 fails the test once the test method has ended, so its frame and locals are gone"
    return FailedAfterTest(test=test, where=where, note=note)


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
    at = _caught_at(hit, frames)
    if at <= t:
        return None  # caught in the test, or in code it called
    if catch.type.name == JUNIT4_EXPECT and at < len(frames) and thrown is not None:
        # JUnit 4's @Test(expected=X): one that is no X fails the test ("Unexpected exception")
        expected = await junit4_expected(frames[at])
        if expected is None or await thrown.type.is_subtype_of(expected.signature):
            return None
        return t
    if catch.type.name == JUNIT4_RULE and at < len(frames):
        # the ExpectedException rule fails the test with the exception itself only where it
        # expects none; else it judges it later (junit4_failed_after_test)
        return t if await junit4_rule_expects_nothing(frames[at]) else None
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


def failed_after_test_snapshot(hit: Any, frames: list[Any], note: str, limits: Limits) -> dict:
    """A ``jdwpd.snapshot/1`` of a JUnit 4 test its runner failed after the test's frame was gone
    (``junit4_failed_after_test``): the runner's frames where it throws (no locals: the
    framework's), no test frame (``test_frame`` null), and a note that says so."""
    shown = frames[:limits.frames]
    return {
        "schema": SCHEMA,
        "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
        "thread": {"id": hit.thread.id, "name": hit.thread.name},
        "location": hit.location.to_python(),
        "frames": [{"location": f.location.to_python()} for f in shown],
        "test_frame": None,
        "note": note,
        "watches": [],
        "limits": attrs.asdict(limits),
        "truncated": ["frames"] if len(frames) > len(shown) else [],
    }
