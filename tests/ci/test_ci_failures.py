"""`jdwpd ci` on what ends tests and on probes that cannot serve (issue 31): a test error is a test
failure, the test is the method the framework invoked, a bad probe is said and the others go on,
caps hold as documented, asserts run in the VM, redaction hides secrets and not ordinary names.

The debuggee is ``tests/ci/junit_java/lib``: a small parser (library code) and its JUnit 5 tests,
one per way a test ends, and ``lib.Hot``, a loop over a hot line.
"""

from __future__ import annotations

import html as html_module
import json
import re
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import jdks, jvm

pytestmark = pytest.mark.jvm
SOURCES = Path(__file__).resolve().parent / "junit_java"
CONSOLE = Path("/usr/share/java/junit-platform-console-standalone.jar")
#: The JDK's helpful message of the NullPointerException ParserTest.rejectsNull plants (JDK 14+; the
#: classes are compiled with -g, so the local is named), as its stack trace prints it.
NPE_MESSAGE = 'Cannot invoke "String.isEmpty()" because "text" is null'


def helpful_npe_messages() -> bool:
    return (jdks.java_feature(jvm.java_executable()) or 0) >= 14


def marker(name: str) -> int:
    for path in (SOURCES / "lib").glob("*.java"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if f"@marker {name}" in line:
                return n
    raise KeyError(name)


def events(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]


def jdwpd_ci(*args: str, cwd=None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*jdwpd_argv(), "ci", *args], capture_output=True, text=True, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="module")
def lib_classes(tmp_path_factory):
    if not CONSOLE.is_file():
        pytest.skip("JUnit 5's console launcher is missing (Debian package junit5; .ci/run installs it)")
    work = tmp_path_factory.mktemp("lib")
    shutil.copytree(SOURCES / "lib", work / "src" / "lib")
    classes = work / "classes"
    subprocess.run(["javac", "-g", "-cp", str(CONSOLE), "-d", str(classes), *map(str, (work / "src").rglob("*.java"))],
                   check=True, timeout=120)
    return work, classes


@pytest.fixture(scope="module")
def parser_run(lib_classes):
    work, classes = lib_classes
    out, reports = work / "debug", work / "reports"
    # no --junit-reports: the folder is found where the command line names it (31.9)
    result = jdwpd_ci("--on-test-failure", "--on-uncaught", "--out", str(out), "--",
                      "java", "-jar", str(CONSOLE), "-cp", str(classes), "--select-class", "lib.ParserTest",
                      "--reports-dir", str(reports), "--disable-banner", "--details=none", cwd=work)
    return result, out, reports


def test_a_test_error_is_a_test_failure_labelled_with_the_test(parser_run):
    """31.1 and 31.2: the NullPointerException thrown in Parser.parse under ParserTest.rejectsNull
    (JUnit's <error>) is captured, named by the test, not by the library's method; assertThrows, a
    try/catch in the test and an assumption are no failures."""
    result, out, _ = parser_run
    assert result.returncode == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    failures = {e["test"]: e for e in events(out) if e["event"] == "test-failure"}
    assert set(failures) == {"lib.ParserTest.rejectsNull", "lib.ParserTest.countsInAHelper"}, failures.keys()
    error = failures["lib.ParserTest.rejectsNull"]
    assert error["exception"]["class"] == "java.lang.NullPointerException"
    if helpful_npe_messages():  # 31.8: the message a person reads in the stack trace, not its null detailMessage
        assert error["exception"]["message"] == NPE_MESSAGE
        assert error["message"] == f"java.lang.NullPointerException: {NPE_MESSAGE}"
        assert json.loads((out / error["file"]).read_text())["message"] == error["message"]
    assert error["location"]["class"] == "lib.ParserTest" and error["location"]["method"] == "rejectsNull"
    assert error["throw_location"]["class"] == "lib.Parser"
    assert error["throw_location"]["line"] == marker("parser_empty")
    snap = json.loads((out / error["file"]).read_text())
    test_frame = snap["frames"][snap["test_frame"]]
    assert test_frame["location"]["method"] == "rejectsNull"
    assert test_frame["locals"] == {"input": None, "depth": 3}
    assert snap["frames"][0]["locals"]["text"] is None  # the throwing frame, in the library
    # the framework's frames are listed, their locals not read (31.8: 153 KB of JUnit internals)
    assert all("locals" not in f for f in snap["frames"] if f["location"]["class"].startswith(("org.junit", "jdk.")))
    assert len(snap["frames"]) == snap["test_frame"] + 1  # from the throw down to the test


def test_a_failure_in_a_helper_has_the_helpers_and_the_tests_locals(parser_run):
    _, out, _ = parser_run
    [failure] = [e for e in events(out) if e["event"] == "test-failure" and e["test"].endswith("countsInAHelper")]
    assert failure["exception"]["class"] == "org.opentest4j.AssertionFailedError"
    snap = json.loads((out / failure["file"]).read_text())
    frames = {f["location"]["method"]: f for f in snap["frames"]}
    assert frames["checkTokens"]["locals"]["got"] == 3 and frames["checkTokens"]["locals"]["expected"] == 4
    assert frames["countsInAHelper"]["locals"]["expectedTokens"] == 4


def test_errors_and_failures_are_attached_in_the_junit_xml_and_reported(parser_run):
    _, out, reports = parser_run
    xml = reports / "TEST-junit-jupiter.xml"
    cases = {c.get("name"): c for c in ElementTree.parse(xml).iter("testcase")}
    error = cases["rejectsNull()"]
    assert error.find("error") is not None or error.find("failure") is not None
    for name in ("rejectsNull()", "countsInAHelper()"):
        assert "[[ATTACHMENT|" in (cases[name].find("system-out").text or ""), name
    for name in ("expectedThrowIsNoFailure()", "passes()"):
        text = cases[name].find("system-out").text if cases[name].find("system-out") is not None else ""
        assert "[[ATTACHMENT" not in (text or ""), name
    summary = (out / "summary.md").read_text()
    assert "test failures: 2" in summary
    assert "lib.ParserTest.rejectsNull" in summary and "NullPointerException" in summary
    html = (out / "report.html").read_text()
    if helpful_npe_messages():
        assert NPE_MESSAGE in summary
        assert html_module.escape(NPE_MESSAGE) in html
    shown = html[html.index('id="0002-test-failure"'):]
    assert shown.index("<b>the test</b>: lib.ParserTest.rejectsNull") < shown.index('<ol class="stack">')


def test_a_failure_thrown_in_a_class_loader_is_captured(lib_classes):
    """31.10: the VM leaves out throws by where they are caught, not by where they are thrown: a
    test's own Class.forName of a missing class fails the test, with its locals (its
    ClassNotFoundException is thrown in a class loader, whose other throws it catches itself)."""
    work, classes = lib_classes
    out = work / "loader"
    result = jdwpd_ci("--on-test-failure", "--out", str(out), "--", "java", "-jar", str(CONSOLE), "-cp", str(classes),
                      "--select-class", "lib.LoaderTest", "--disable-banner", "--details=none", cwd=work)
    assert result.returncode == 1, result.stderr[-3000:]
    [failure] = [e for e in events(out) if e["event"] == "test-failure"]
    assert failure["test"] == "lib.LoaderTest.loadsAPluginThatIsMissing"
    assert failure["exception"]["class"] == "java.lang.ClassNotFoundException"
    assert failure["location"]["line"] == marker("loader_forname")
    snap = json.loads((out / failure["file"]).read_text())
    assert snap["frames"][snap["test_frame"]]["locals"] == {"plugin": "lib.plugins.Missing"}


def test_a_probe_that_cannot_serve_is_said_and_the_others_go_on(lib_classes):
    """31.3: a condition naming a field the class lacks fails its probe alone: an event, a line on
    stderr, a summary row and, with --fail-on probe, status 3; the snapshot beside it is taken."""
    work, classes = lib_classes
    out = work / "bad-probe"
    line = marker("parser_return")
    result = jdwpd_ci("--snapshot", f"lib.Parser:{line}@this.nosuch > 0", "--snapshot", f"lib.Parser:{line}#2",
                      "--fail-on", "probe", "--out", str(out), "--", "java", "-cp", str(classes), "lib.Hot", "10")
    assert "hot: total" in result.stdout  # the program ran to its end
    assert result.returncode == 3, result.stderr[-3000:]
    got = events(out)
    errors = [e for e in got if e["event"] == "probe-error"]
    assert errors and "nosuch" in errors[0]["error"], got
    said = [x for x in result.stderr.splitlines() if x.startswith("jdwpd ci: snapshot") and "nosuch" in x]
    assert len(said) == 1, result.stderr
    assert len([e for e in got if e["event"] == "snapshot"]) == 2  # the other probe went on
    assert not any(e["event"] == "vm-error" for e in got)
    summary = (out / "summary.md").read_text()
    assert "probe-error" in summary and "nosuch" in summary and "probe-spent" in summary


@pytest.mark.parametrize("args, words", [
    (["--assert", "lib.Parser:10:keys.size() > 0"], ["--assert", "size(...)", "method call"]),
    (["--snapshot", "lib.Parser:10@state.ordinal() == 2"], ["--snapshot", "ordinal(...)"]),
    (["--logpoint", "lib.Parser:10:n={keys.size()}"], ["--logpoint", "size(...)"]),
    (["--snapshot", "lib.Parser:10#0"], ["at least 1"]),
    (["--cpu-quota", "lots"], ["--cpu-quota"]),
])
def test_what_cannot_be_evaluated_is_refused_before_the_command_runs(tmp_path, args, words):
    marker_file = tmp_path / "ran"
    result = jdwpd_ci(*args, "--out", str(tmp_path / "o"), "--", "sh", "-c", f"touch {marker_file}")
    assert result.returncode == 2, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    for word in words:
        assert word in last, (word, last)
    assert not marker_file.exists()


def test_caps_hold_as_documented_first_hits_first(lib_classes):
    """31.4: a snapshot on a hot line takes its first 50 hits (no CPU quota stops it early), a
    logpoint its first 1000 lines, a probe its own cap; each spent probe is an event and a row."""
    work, classes = lib_classes
    out = work / "caps"
    line = marker("parser_return")
    result = jdwpd_ci("--snapshot", f"lib.Parser:{line}", "--logpoint", f"lib.Parser:{line}:tokens={{tokens}}",
                      "--snapshot", f"lib.Hot:{marker('hot_call')}#3", "--out", str(out), "--", "java", "-cp",
                      str(classes), "lib.Hot", "1200", timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    got = events(out)
    snaps = [json.loads((out / e["file"]).read_text()) for e in got if e["event"] == "snapshot"]
    parser = [s for s in snaps if s["location"]["class"] == "lib.Parser"]
    assert len(parser) == 50
    assert sorted(s["frames"][1]["locals"]["i"] for s in parser) == list(range(50))  # the first 50
    assert len([s for s in snaps if s["location"]["class"] == "lib.Hot"]) == 3
    assert len([e for e in got if e["event"] == "log"]) == 1000
    spent = [e for e in got if e["event"] == "probe-spent"]
    assert sorted(e["hits"] for e in spent) == [3, 50, 1000], spent
    assert not any(e["event"] in ("probe-disabled", "probe-error") for e in got)
    summary = (out / "summary.md").read_text()
    assert summary.count("probe-spent") == 3 and "snapshots: 53" in summary


def test_asserts_are_evaluated_in_the_vm(lib_classes):
    """31.5: where the assertion holds the thread goes on (the VM judged it); each failure is an
    event with the line's locals; one that throws is a failure that says what it threw."""
    work, classes = lib_classes
    out = work / "asserts"
    line = marker("parser_return")
    result = jdwpd_ci("--assert", f"lib.Parser:{line}:tokens < 3",
                      "--assert", f"lib.Parser:{line}#1:tokens / depth >= 0", "--fail-on", "assert",
                      "--out", str(out), "--", "java", "-cp", str(classes), "lib.Hot", "50")
    assert result.returncode == 3, result.stderr[-3000:]
    got = events(out)
    failed = [e for e in got if e["event"] == "assertion-failed"]
    plain = [e for e in failed if e["message"] == "assertion failed: tokens < 3"]
    assert len(plain) == 8  # i = 0, 7, ... 49 parse "a b c"
    snap = json.loads((out / plain[0]["file"]).read_text())
    assert snap["frames"][0]["locals"]["tokens"] == 3
    threw = [e for e in failed if "depth" in e["message"]]
    assert len(threw) == 1 and "ArithmeticException" in threw[0]["message"], threw  # i = 0: depth 0


def test_redaction_hides_secrets_not_ordinary_names(lib_classes):
    """31.7: keys, tokenizer, currentToken are shown; apiKey and password are not, and the summary
    says which names were hidden; --no-default-redact turns the list off."""
    work, classes = lib_classes
    line = marker("parser_return")
    for flag, hidden in (([], True), (["--no-default-redact"], False)):
        out = work / f"redact-{bool(flag)}"
        result = jdwpd_ci("--snapshot", f"lib.Parser:{line}#1", *flag, "--out", str(out), "--", "java", "-cp",
                          str(classes), "lib.Hot", "1")
        assert result.returncode == 0, result.stderr[-3000:]
        [e] = [e for e in events(out) if e["event"] == "snapshot"]
        local = json.loads((out / e["file"]).read_text())["frames"][0]["locals"]
        assert local["keys"]["@items"] == ["a", "b", "c"] and local["tokenizer"] == "whitespace"
        summary = (out / "summary.md").read_text()
        if hidden:
            assert local["apiKey"] == "[REDACTED]" and local["password"] == "[REDACTED]"
            assert re.search(r"Redacted.*`apiKey`.*`password`", summary), summary
        else:
            assert local["apiKey"] == "sk-live-1234" and "Redacted" not in summary


@pytest.mark.parametrize("args, words", [
    (["--on-timeout", "10minutes"], ["--on-timeout", "10minutes", "not a duration"]),
    (["--bogus-flag"], ["unrecognized arguments: --bogus-flag"]),
    (["--max-hits", "many"], ["--max-hits"]),
])
def test_a_cli_mistake_is_one_line_naming_jdwpd_ci(tmp_path, args, words):
    """31.9: no usage block before the error, and `jdwpd ci`'s own words for an unknown flag."""
    result = jdwpd_ci(*args, "--out", str(tmp_path / "o"), "--", "true")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jdwpd ci: "), result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_a_logpoint_prints_an_enum_by_name_and_says_it_holds_the_thread(lib_classes):
    """31.8: `{state}` (an enum) prints DONE, not <lib.Parser.State>; the object part makes the
    logpoint hold its thread at each line, and that is said (an event, one stderr line)."""
    work, classes = lib_classes
    out = work / "enum"
    result = jdwpd_ci("--logpoint", f"lib.Parser:{marker('parser_return')}:state={{state}} tokens={{tokens}}",
                      "--out", str(out), "--", "java", "-cp", str(classes), "lib.Hot", "3")
    assert result.returncode == 0, result.stderr[-3000:]
    got = events(out)
    assert [e["line"] for e in got if e["event"] == "log"] == ["state=DONE tokens=3", "state=DONE tokens=2"] + \
        ["state=DONE tokens=2"]
    assert len([e for e in got if e["event"] == "probe-note"]) == 1
    assert sum("holds its thread" in x for x in result.stderr.splitlines()) == 1


JUNIT4 = [Path("/usr/share/java/junit4.jar"), Path("/usr/share/java/hamcrest-core.jar")]


@pytest.mark.skipif(not all(p.is_file() for p in JUNIT4), reason="no JUnit 4 (Debian: junit4, libhamcrest-java)")
def test_junit4_errors_are_failures_and_expected_exceptions_are_not(lib_classes):
    work, classes = lib_classes
    cp = ":".join(str(p) for p in [classes, *JUNIT4])
    classes4 = work / "classes4"
    subprocess.run(["javac", "-g", "-cp", cp, "-d", str(classes4),
                    *map(str, (Path(__file__).parent / "junit4_java").rglob("*.java"))], check=True, timeout=120)
    out = work / "junit4"
    result = jdwpd_ci("--on-test-failure", "--out", str(out), "--", "java", "-jar", str(CONSOLE), "-cp",
                      f"{classes4}:{cp}", "--select-class", "lib4.Parser4Test", "--disable-banner",
                      "--details=none", cwd=work)
    assert result.returncode == 1, result.stderr[-3000:]
    failures = {e["test"]: e for e in events(out) if e["event"] == "test-failure"}
    assert set(failures) == {"lib4.Parser4Test.rejectsNull", "lib4.Parser4Test.counts",
                             "lib4.Parser4Test.expectsAnotherException",
                             "lib4.Parser4Test.expectsAnExceptionNeverThrown"}, failures.keys()
    assert failures["lib4.Parser4Test.rejectsNull"]["exception"]["class"] == "java.lang.NullPointerException"
    assert "Traceback" not in result.stderr and "probe" not in result.stderr, result.stderr[-3000:]

    # @Test(expected=IllegalStateException.class), an IllegalArgumentException thrown: JUnit's
    # "Unexpected exception", captured where the library throws it, with the test's locals
    other = failures["lib4.Parser4Test.expectsAnotherException"]
    assert other["exception"]["class"] == "java.lang.IllegalArgumentException"
    assert other["message"] == ("Unexpected exception, expected<java.lang.IllegalStateException> but "
                                "was<java.lang.IllegalArgumentException>: java.lang.IllegalArgumentException: "
                                "empty text"), other["message"]
    assert other["throw_location"]["class"] == "lib.Parser" and other["location"]["method"] == "expectsAnotherException"
    snap = json.loads((out / other["file"]).read_text())
    assert snap["frames"][snap["test_frame"]]["locals"] == {"text": "", "depth": 3}

    # @Test(expected=IllegalArgumentException.class), nothing thrown: JUnit's AssertionError after
    # the test returned; named as the test, its frame gone (the note says so)
    none = failures["lib4.Parser4Test.expectsAnExceptionNeverThrown"]
    assert none["exception"]["class"] == "java.lang.AssertionError"
    assert none["message"] == "java.lang.AssertionError: Expected exception: java.lang.IllegalArgumentException"
    assert none["location"]["class"] == "lib4.Parser4Test"
    assert none["location"]["method"] == "expectsAnExceptionNeverThrown"
    snap = json.loads((out / none["file"]).read_text())
    assert snap["test"] == "lib4.Parser4Test.expectsAnExceptionNeverThrown" and snap["test_frame"] is None
    assert "frame and locals are gone" in snap["note"] and "frame and locals are gone" in none["note"]
    assert "expectsTheException" not in (out / "summary.md").read_text()


@pytest.mark.skipif(not all(p.is_file() for p in JUNIT4), reason="no JUnit 4 (Debian: junit4, libhamcrest-java)")
def test_junit4_expected_exception_rule_failures_are_captured_with_the_test(lib_classes):
    """31.1: the ``ExpectedException`` rule fails a test after its frame is gone (another exception
    than it expects, or none), or rethrows the test's error where it expects nothing: each a
    test-failure named by the test, in summary.md and attached to JUnit's XML; what it expects
    is no failure."""
    work, classes = lib_classes
    cp = ":".join(str(p) for p in [classes, *JUNIT4])
    classes4 = work / "classes4-rule"
    subprocess.run(["javac", "-g", "-cp", cp, "-d", str(classes4),
                    *map(str, (Path(__file__).parent / "junit4_java").rglob("*.java"))], check=True, timeout=120)
    out, reports = work / "junit4-rule", work / "junit4-rule-reports"
    result = jdwpd_ci("--on-test-failure", "--out", str(out), "--", "java", "-jar", str(CONSOLE), "-cp",
                      f"{classes4}:{cp}", "--select-class", "lib4.Rule4Test", "--reports-dir", str(reports),
                      "--disable-banner", "--details=none", cwd=work)
    assert result.returncode == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and "probe" not in result.stderr, result.stderr[-3000:]
    failures = {e["test"]: e for e in events(out) if e["event"] == "test-failure"}
    assert set(failures) == {"lib4.Rule4Test.expectsAnotherException", "lib4.Rule4Test.expectsAnExceptionNeverThrown",
                             "lib4.Rule4Test.rejectsNull"}, failures.keys()

    # another exception than the rule expects: the rule's AssertionError (hamcrest's words name both)
    other = failures["lib4.Rule4Test.expectsAnotherException"]
    assert other["exception"]["class"] == "java.lang.AssertionError"
    assert "IllegalStateException" in other["message"] and "IllegalArgumentException" in other["message"]
    assert other["location"]["class"] == "lib4.Rule4Test" and other["location"]["method"] == "expectsAnotherException"
    assert "does not expect" in other["note"] and "frame and locals are gone" in other["note"]
    snap = json.loads((out / other["file"]).read_text())
    assert snap["test"] == "lib4.Rule4Test.expectsAnotherException" and snap["test_frame"] is None

    # none thrown: the rule's Assert.fail
    none = failures["lib4.Rule4Test.expectsAnExceptionNeverThrown"]
    assert none["exception"]["class"] == "java.lang.AssertionError"
    assert "IllegalArgumentException" in none["message"], none["message"]
    assert none["location"]["method"] == "expectsAnExceptionNeverThrown" and "returned without" in none["note"]

    # the rule expects nothing: the test's own error, captured where it is thrown with the test's locals
    error = failures["lib4.Rule4Test.rejectsNull"]
    assert error["exception"]["class"] == "java.lang.NullPointerException"
    assert error["throw_location"]["class"] == "lib.Parser" and "note" not in error
    snap = json.loads((out / error["file"]).read_text())
    assert snap["frames"][snap["test_frame"]]["locals"] == {"input": None, "depth": 4}

    summary = (out / "summary.md").read_text()
    assert "test failures: 3" in summary and "lib4.Rule4Test.expectsAnotherException" in summary
    assert "expectsTheException" not in summary and "expectsNothingAndThrowsNothing" not in summary
    cases = {c.get("name").split("(")[0]: c for xml in reports.rglob("*.xml")
             for c in ElementTree.parse(xml).iter("testcase")}
    for name in ("expectsAnotherException", "expectsAnExceptionNeverThrown", "rejectsNull"):
        assert cases[name].find("failure") is not None or cases[name].find("error") is not None, name
        assert "[[ATTACHMENT|" in (cases[name].find("system-out").text or ""), name
    for name in ("expectsTheException", "expectsNothingAndThrowsNothing"):
        text = cases[name].find("system-out").text if cases[name].find("system-out") is not None else ""
        assert "[[ATTACHMENT" not in (text or ""), name
