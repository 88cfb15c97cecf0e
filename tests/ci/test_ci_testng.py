"""`jdwpd ci --on-test-failure` on a TestNG suite (issue 31.1: a test failure is whatever ends a test
unsuccessfully, in JUnit 4, JUnit 5 and TestNG).

The debuggee is ``tests/ci/testng_java/ng``: a small inventory (library code) and its TestNG
tests, run by TestNG's own command line (``org.testng.TestNG``, Debian's ``testng`` package, 6.9):
a failed assertion, a NullPointerException thrown in the library (an unexpected exception), an
exception the ``@Test(expectedExceptions=...)`` annotation expects (on the method, with a message
its ``expectedExceptionsMessageRegExp`` matches, and on the class: ``ng.ClassExpectsTest``), one
whose message the regexp does not match (a failure), ``Assert.expectThrows``, and a passing test.
TestNG writes JUnit-style XML reports under its output folder (``-d``); the
snapshots are attached there.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import debuggees, jdks, jvm
from tests.ci.evidence import events

pytestmark = pytest.mark.jvm
SOURCES = Path(__file__).resolve().parent / "testng_java"
JARS = Path("/usr/share/java")
TESTNG = JARS / "testng.jar"
#: What TestNG's command line needs beside it (Debian's testng depends on them); bsh is optional.
TESTNG_DEPS = ("jcommander.jar", "bsh.jar")
TEST = "ng.InventoryTest"
#: expectedExceptions on the class's @Test
CLASS_EXPECTS = "ng.ClassExpectsTest"


def marker(name: str) -> int:
    return debuggees.all_markers(SOURCES)[name]


@pytest.fixture(scope="module")
def testng_run(tmp_path_factory):
    if not TESTNG.is_file():
        pytest.skip(f"TestNG is missing ({TESTNG}; Debian package testng, which .ci/run installs)")
    cp = [TESTNG, *(JARS / d for d in TESTNG_DEPS if (JARS / d).is_file())]
    work = tmp_path_factory.mktemp("testng")
    shutil.copytree(SOURCES, work / "src")  # under the working directory: annotations find the sources
    classes = work / "classes"
    subprocess.run(["javac", "-g", "-cp", str(TESTNG), "-d", str(classes), *map(str, (work / "src").rglob("*.java"))],
                   check=True, timeout=120)
    out = work / "debug"
    # no --junit-reports: TestNG's output folder is found where its command line names it
    result = subprocess.run([*jdwpd_argv(), "ci", "--on-test-failure", "--on-uncaught", "--out", str(out), "--",
                             jvm.java_executable(), "-cp", ":".join(map(str, [classes, *cp])), "org.testng.TestNG",
                             "-d", "ng-reports", "-testclass", f"{TEST},{CLASS_EXPECTS}"],
                            capture_output=True, text=True, cwd=work, timeout=300)
    return result, out, work / "ng-reports"


def test_a_failed_assertion_and_an_error_are_captured_with_the_test_and_its_locals(testng_run):
    result, out, _ = testng_run
    assert "Total tests run: 8, Failures: 3" in result.stdout, result.stdout[-2000:]
    assert result.returncode == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    failures = {e["test"]: e for e in events(out) if e["event"] == "test-failure"}
    assert set(failures) == {f"{TEST}.countsWhatWasAdded", f"{TEST}.rejectsAMissingName",
                             f"{TEST}.refusesWithAnotherMessage"}, failures.keys()

    failed = failures[f"{TEST}.countsWhatWasAdded"]
    assert failed["exception"]["class"] == "java.lang.AssertionError"
    assert failed["message"] == "java.lang.AssertionError: bolts in stock expected [6] but found [5]"
    assert failed["location"]["line"] == marker("ng_assert")  # the test's line, not TestNG's Assert
    snap = json.loads((out / failed["file"]).read_text())
    test_frame = snap["frames"][snap["test_frame"]]
    assert test_frame["location"]["method"] == "countsWhatWasAdded"
    assert test_frame["locals"]["restocked"] == 5 and "inventory" in test_frame["locals"]
    # the throwing frame (TestNG's Assert.fail) and the test's have their locals, TestNG's others not
    assert snap["frames"][0]["location"]["class"] == "org.testng.Assert" and "locals" in snap["frames"][0]
    assert all("locals" not in f for f in snap["frames"][1:] if f["location"]["class"].startswith("org.testng"))

    error = failures[f"{TEST}.rejectsAMissingName"]
    assert error["exception"]["class"] == "java.lang.NullPointerException"
    assert error["location"]["method"] == "rejectsAMissingName" and error["location"]["line"] == marker("ng_error")
    assert error["throw_location"]["class"] == "ng.Inventory"
    assert error["throw_location"]["line"] == marker("inventory_name")
    if (jdks.java_feature(jvm.java_executable()) or 0) >= 14:  # the JDK's helpful message, as TestNG prints it
        assert error["message"] == ('java.lang.NullPointerException: Cannot invoke "String.length()" because '
                                    '"name" is null')
    snap = json.loads((out / error["file"]).read_text())
    assert snap["frames"][snap["test_frame"]]["locals"] == {"name": None, "count": 2}
    assert snap["frames"][0]["locals"]["name"] is None  # the throwing frame, in the library


def test_what_testng_expects_is_no_failure(testng_run):
    """``@Test(expectedExceptions=IllegalArgumentException.class)`` on the method or on the class,
    with a message its ``expectedExceptionsMessageRegExp`` matches, and ``Assert.expectThrows``: the
    exception is caught by TestNG (by its runner for the first) and ends no test."""
    _, out, _ = testng_run
    got = events(out)
    tests = {e.get("test") for e in got if e["event"] in ("test-failure", "uncaught-exception", "snapshot")}
    for expected in (f"{TEST}.refusesANegativeCount", f"{TEST}.expectThrowsIsNoFailure",
                     f"{TEST}.refusesANegativeCountWithItsMessage",
                     f"{CLASS_EXPECTS}.refusesANegativeCountByTheClassAnnotation"):
        assert expected not in tests, expected
    assert not any(e["event"] == "uncaught-exception" for e in got)
    summary = (out / "summary.md").read_text()
    assert "test failures: 3" in summary and "refusesANegativeCount" not in summary


def test_an_expected_exception_whose_message_fails_the_regexp_is_a_failure(testng_run):
    """``expectedExceptionsMessageRegExp`` that the message does not match: TestNG fails the test;
    captured where the exception is thrown, with the test's locals."""
    _, out, _ = testng_run
    failure = next(e for e in events(out) if e["event"] == "test-failure"
                   and e["test"] == f"{TEST}.refusesWithAnotherMessage")
    assert failure["exception"]["class"] == "java.lang.IllegalArgumentException"
    assert failure["message"] == "java.lang.IllegalArgumentException: a negative count: -5"
    assert failure["location"]["line"] == marker("ng_regexp")
    snap = json.loads((out / failure["file"]).read_text())
    assert snap["frames"][snap["test_frame"]]["locals"] == {"count": -5}


def test_failures_are_attached_to_testngs_junit_xml(testng_run):
    _, out, reports = testng_run
    xml = reports / "junitreports" / f"TEST-{TEST}.xml"
    cases = {c.get("name"): c for c in ElementTree.parse(xml).iter("testcase")}
    assert cases["rejectsAMissingName"].find("error") is not None  # TestNG's <error> for an unexpected exception
    for name in ("countsWhatWasAdded", "rejectsAMissingName", "refusesWithAnotherMessage"):
        out_text = cases[name].find("system-out")
        assert out_text is not None and "[[ATTACHMENT|" in (out_text.text or ""), name
        attached = out_text.text.split("[[ATTACHMENT|")[1].split("]]")[0]
        assert Path(attached).is_file() and json.loads(Path(attached).read_text())["test"] == f"{TEST}.{name}"
    for name in ("refusesANegativeCount", "refusesANegativeCountWithItsMessage", "expectThrowsIsNoFailure",
                 "passes"):
        assert cases[name].find("system-out") is None, name
