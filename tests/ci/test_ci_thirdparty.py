"""`jdwpd ci` on a third-party suite (issue 31): jsoup's own JUnit 5 tests, from Debian's source
package, compiled with -g (jdwpd.testing.thirdparty), run by JUnit's console launcher with defects
planted in copies of its tests (tests/ci/thirdparty_planted): a wrong expected value (<failure>), an
exception thrown inside jsoup's selector parser (<error>), a background thread's uncaught exception,
and, in a run of its own under --on-timeout, a deadlock between two threads over two documents.

The default run takes a few of jsoup's test classes beside the planted ones; the whole suite
(about 1,000 tests) is the `slow` case.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import debuggees, thirdparty
from tests.ci.evidence import events

pytestmark = pytest.mark.jvm
PLANTED = Path(__file__).resolve().parent / "thirdparty_planted"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SOME_OF_JSOUP = ("--select-class=org.jsoup.nodes.ElementTest", "--select-class=org.jsoup.select.SelectorTest",
                 "--select-class=org.jsoup.parser.TokenQueueTest")
PLANTED_CLASS = "org.jsoup.planted.PlantedTest"


def marker(name: str) -> int:
    return debuggees.all_markers(PLANTED)[name]


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    try:
        suite = thirdparty.build_tests()
    except thirdparty.ThirdPartyUnavailable as e:
        pytest.skip(f"jsoup's JUnit suite unavailable: {e}")
    work = tmp_path_factory.mktemp("jsoup")
    src = work / "src"
    shutil.copytree(PLANTED, src)  # under the working directory: annotations find the sources
    classes = work / "planted-classes"
    cp = os.pathsep.join(str(p) for p in [*suite.classpath, suite.junit_jar])
    subprocess.run(["javac", "-g", "--release", suite.library.release, "-cp", cp, "-d", str(classes),
                    *map(str, src.rglob("*.java"))], check=True, timeout=180)
    return suite, work, classes


def run_ci(suite, work: Path, classes: Path, name: str, ci_args: list[str], select: tuple[str, ...],
           timeout: float) -> tuple[subprocess.CompletedProcess, Path, Path]:
    out, reports = work / name, work / f"{name}-reports"
    command = thirdparty.junit_command(suite, reports, select=select, extra_classpath=[classes], details="none")
    result = subprocess.run([*jdwpd_argv(), "ci", *ci_args, "--out", str(out), "--", *command], capture_output=True,
                            text=True, cwd=work, timeout=timeout, env={**os.environ, "GITHUB_ACTIONS": ""})
    return result, out, reports


@pytest.fixture(scope="module")
def failures_run(planted):
    suite, work, classes = planted
    return run_ci(suite, work, classes, "failures", ["--on-test-failure", "--on-uncaught"],
                  (f"--select-class={PLANTED_CLASS}", *SOME_OF_JSOUP), timeout=900)


def check_failures(result, out: Path, reports: Path) -> None:
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr[-3000:]  # the runner's: tests failed
    assert "Traceback" not in result.stderr
    got = events(out)
    failures = {e["test"]: e for e in got if e["event"] == "test-failure"}
    assert set(failures) == {f"{PLANTED_CLASS}.wrongExpectedValue", f"{PLANTED_CLASS}.unexpectedException"}, \
        sorted(failures)
    wrong = failures[f"{PLANTED_CLASS}.wrongExpectedValue"]
    assert wrong["location"]["line"] == marker("planted_assert")
    snap = json.loads((out / wrong["file"]).read_text())
    test_frame = snap["frames"][snap["test_frame"]]
    assert test_frame["locals"]["expected"] == 3 and test_frame["locals"]["ps"]["@type"] == "org.jsoup.select.Elements"
    error = failures[f"{PLANTED_CLASS}.unexpectedException"]
    assert error["location"]["method"] == "unexpectedException"  # the test, not jsoup's parser
    assert error["throw_location"]["class"].startswith("org.jsoup.") and \
        not error["throw_location"]["class"].startswith("org.jsoup.planted")
    snap = json.loads((out / error["file"]).read_text())
    assert snap["frames"][snap["test_frame"]]["locals"]["query"] == "p:matches(("
    [uncaught] = [e for e in got if e["event"] == "uncaught-exception"]
    assert uncaught["exception"]["class"] == "java.lang.NullPointerException"
    snap = json.loads((out / uncaught["file"]).read_text())
    assert snap["thread"]["name"] == "planted-worker"
    assert snap["location"]["line"] == marker("planted_uncaught")
    assert snap["frames"][0]["locals"]["parsed"]["@type"] == "org.jsoup.nodes.Document"
    # JUnit's XML: the failure and the error each point at their snapshot
    cases = {c.get("name"): c for c in ElementTree.parse(reports / "TEST-junit-jupiter.xml").iter("testcase")
             if c.get("classname") == PLANTED_CLASS}
    assert cases["unexpectedException()"].find("error") is not None  # JUnit says <error>; so do we
    for name in ("wrongExpectedValue()", "unexpectedException()"):
        assert "[[ATTACHMENT|" in cases[name].find("system-out").text, name
    summary = (out / "summary.md").read_text()
    assert "test failures: 2" in summary and "unexpectedException" in summary and "wrongExpectedValue" in summary
    assert "planted-worker" in json.dumps(uncaught) or "NullPointerException" in summary


def test_planted_failures_in_jsoups_suite(failures_run):
    check_failures(*failures_run)
    result, out, _ = failures_run
    # jsoup's own tests passed as they do without us: nothing but the planted ones failed
    counts = thirdparty.parse_junit_summary(result.stdout)
    assert counts.get("tests failed") == 2 and counts.get("tests successful", 0) > 100, counts


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium (Debian package chromium; .ci/run installs it)")
def test_the_report_in_a_real_browser(failures_run, tmp_path):
    _, out, _ = failures_run
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    page = (out / "report.html").resolve().as_uri()
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page], capture_output=True, text=True, timeout=180)
    assert dom.returncode == 0, dom.stderr[-2000:]
    for seen in (f"Test {PLANTED_CLASS}.wrongExpectedValue", f"Test {PLANTED_CLASS}.unexpectedException",
                 "the test</b>: org.jsoup.planted.PlantedTest.unexpectedException", "planted-worker",
                 "uncaught-exception", "expected"):
        assert seen in dom.stdout, seen


def test_a_deadlock_in_a_planted_test(planted):
    """--on-timeout: the cycle named, each thread's monitors, the test the main thread runs."""
    suite, work, classes = planted
    # The deadlock forms 300 ms into the test, once jdwpd ci, the JVM and the launcher have started: 12 s
    # leave room for that on two cores at load 7-9 (passed), and the run waits out 8 s less than at 20 s.
    result, out, _ = run_ci(suite, work, classes, "deadlock", ["--on-timeout", "12s", "--grace", "5s"],
                            ("--select-class=org.jsoup.planted.PlantedDeadlockTest",), timeout=600)
    assert result.returncode == 124, result.stderr[-3000:]
    got = events(out)
    [deadlock] = [e for e in got if e["event"] == "deadlock"]
    assert {t["thread"] for t in deadlock["threads"]} == {"left-to-right", "right-to-left"}
    assert all("org.jsoup.nodes.Document" in t["waits_for"] for t in deadlock["threads"])
    hang = json.loads((out / deadlock["file"]).read_text())
    threads = {t["name"]: t for t in hang["threads"]}
    top = threads["left-to-right"]["frames"][0]["location"]
    # javac gives the monitorenter of `synchronized (to) {` the line of the block's first statement
    assert top["method"] == "copyTitle" and top["line"] in (marker("planted_deadlock"), marker("planted_deadlock") + 1)
    main = threads["main"]
    assert main.get("test") == "org.jsoup.planted.PlantedDeadlockTest.documentsCopyTitlesBothWays", main.get("test")
    assert main.get("joins") in ("left-to-right", "right-to-left"), main.get("joins")
    summary = (out / "summary.md").read_text()
    assert "snapshots: 1" in summary and "timeout: still running after 12" in summary
    assert "deadlock: " in summary


@pytest.mark.slow
def test_planted_failures_in_the_whole_suite(planted):
    suite, work, classes = planted
    result, out, reports = run_ci(suite, work, classes, "whole", ["--on-test-failure", "--on-uncaught"],
                                  ("--select-package=org.jsoup", "--exclude-classname=.*PlantedDeadlockTest"),
                                  timeout=1800)
    check_failures(result, out, reports)
    counts = thirdparty.parse_junit_summary(result.stdout)
    assert counts.get("tests failed") == 2 and counts.get("tests successful", 0) > 900, counts
