"""The third-party test kit works: jsoup (Debian's source package) builds, its driver runs plain and under both
servers with a breakpoint deep in the library, and its own JUnit 5 suite runs plain."""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET

import pytest
import trio
from thirdparty_support import open_driver

from jdwpd.testing import thirdparty

pytestmark = pytest.mark.jvm

DONE = re.compile(r"driver: done documents=(\d+) pages=(\d+) words=(\d+) links=(\d+) cleaned=(\d+) caught=(\d+)")


def test_library_is_built_with_debug_info(jsoup_library):
    assert re.fullmatch(r"1\.\d+\.\d+-\d+(\S*)", jsoup_library.source.version), jsoup_library.source.version
    tokeniser = jsoup_library.classes / "org" / "jsoup" / "parser" / "Tokeniser.class"
    assert tokeniser.is_file()
    assert b"LocalVariableTable" in tokeniser.read_bytes()  # javac -g
    assert (jsoup_library.classes / "org" / "jsoup" / "select" / "Selector$SelectorParseException.class").is_file()
    assert jsoup_library.line("org.jsoup.parser.Tokeniser", "void emit(Token token) {") > 1


def test_driver_runs_plain(jsoup_driver):
    proc = subprocess.run(jsoup_driver.argv(rounds=1), capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    m = DONE.search(proc.stdout)
    assert m, proc.stdout + proc.stderr
    documents, pages, words, links, cleaned, caught = map(int, m.groups())
    assert pages >= 10 and documents == pages == cleaned
    assert words > 10_000 and links > 100 and caught == 1


async def test_breakpoint_deep_in_library(server_kind, jsoup_driver):
    """A deferred breakpoint in jsoup's tokeniser (loaded long after main starts), the stack through the driver,
    a caught exception of a nested library class, and the program running to its end: on both servers."""
    lib = jsoup_driver.library
    emit = lib.line("org.jsoup.parser.Tokeniser", "void emit(Token token) {") + 1
    with trio.fail_after(180):
        async with open_driver(server_kind, jsoup_driver) as session:
            vm = session.vm
            bp = await vm.breakpoint(f"org.jsoup.parser.Tokeniser:{emit}")
            hot = await vm.breakpoint(jsoup_driver.location("hot"))
            assert {b.spec.text for b in vm.unresolved()} == {bp.spec.text, hot.spec.text}
            await vm.resume()

            hit = await bp.wait(timeout=60)
            assert hit.location.line == emit
            frames = await hit.frames()
            methods = [(f.location.type.name, f.location.method.name) for f in frames]
            assert methods[0] == ("org.jsoup.parser.Tokeniser", "emit"), methods
            assert ("tpdriver.Driver", "main") in methods, methods
            assert "token" in await hit.locals()
            await bp.clear()
            await hit.resume()

            hit = await hot.wait(timeout=60)
            assert isinstance((await hit.locals())["text"], str)
            await hot.clear()
            await hit.resume()

            exc = await vm.exception("org.jsoup.select.Selector$SelectorParseException", caught=True, uncaught=False,
                                     timeout=60)
            assert exc.thrown.type.name == "org.jsoup.select.Selector$SelectorParseException"
            assert exc.catch_location is not None and exc.catch_location.method.name == "main"
            await exc.resume()

            assert await session.wait_exit(120) == 0
            m = DONE.search(session.output())
            assert m and m.group(6) == "1", session.output()[-2000:]


def _junit_xml_counts(reports_dir) -> dict[str, int]:
    root = ET.parse(reports_dir / "TEST-junit-jupiter.xml").getroot()
    return {k: int(root.get(k)) for k in ("tests", "failures", "errors", "skipped")}


def test_junit_suite_runs_plain(jsoup_suite, tmp_path):
    """A part of jsoup's own suite (its select package) through the console launcher; counts from the launcher's
    closing table and from the XML report agree."""
    assert len(jsoup_suite.compiled) >= 40, jsoup_suite.compiled
    # dropped: what needs a servlet container (TestServer and the tests that start it), never a parser's test
    assert "org/jsoup/integration/TestServer.java" in jsoup_suite.dropped
    assert not [d for d in jsoup_suite.dropped if d.startswith(("org/jsoup/parser/", "org/jsoup/select/"))]
    cmd = thirdparty.junit_command(jsoup_suite, tmp_path / "reports", select=["--select-package=org.jsoup.select"])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    summary = thirdparty.parse_junit_summary(proc.stdout)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert summary["tests failed"] == 0 and summary["tests successful"] >= 150, summary
    xml = _junit_xml_counts(tmp_path / "reports")
    assert xml["failures"] == xml["errors"] == 0
    assert xml["tests"] == summary["tests successful"] + summary["tests skipped"] + summary["tests aborted"] + \
        summary["tests failed"], (xml, summary)


@pytest.mark.slow
def test_whole_junit_suite_runs_plain(jsoup_suite, tmp_path):
    """All of jsoup's unit tests (about a thousand; upstream's *IT classes are left out by the launcher's default
    class-name filter), green."""
    cmd = thirdparty.junit_command(jsoup_suite, tmp_path / "reports")
    proc, seconds = thirdparty.timed_run(cmd, timeout=600)
    summary = thirdparty.parse_junit_summary(proc.stdout)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert summary["tests failed"] == 0 and summary["tests successful"] >= 900, summary
    print(f"jsoup's suite: {summary['tests successful']} passed in {seconds:.1f} s")
