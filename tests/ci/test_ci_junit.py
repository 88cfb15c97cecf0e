"""`jdwpd ci --on-test-failure` with real test runners: JUnit 5's console launcher (Debian's junit5),
two test classes in two forked JVMs at once, as a build with parallel forks runs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from jdwpd.own_command import jdwpd_argv

pytestmark = pytest.mark.jvm
SOURCES = Path(__file__).resolve().parent / "junit_java"
CONSOLE = Path("/usr/share/java/junit-platform-console-standalone.jar")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def junit_run(tmp_path_factory):
    if not CONSOLE.is_file():
        pytest.skip("JUnit 5's console launcher is missing (Debian package junit5; .ci/run installs it)")
    work = tmp_path_factory.mktemp("junit")
    src = work / "src"
    shutil.copytree(SOURCES, src)  # the annotations point into the working directory's sources
    classes = work / "classes"
    sources = [str(p) for p in src.rglob("*.java")]
    subprocess.run(["javac", "-g", "-cp", str(CONSOLE), "-d", str(classes), *sources], check=True, timeout=120)
    forks = " ".join(
        f"java -jar {CONSOLE} -cp {classes} --select-class shop.{cls} --reports-dir {work / ('reports-' + cls)} "
        f"--disable-banner --details=none & p{i}=$!;" for i, cls in enumerate(("CartTest", "LedgerTest")))
    script = f"{forks} s=0; wait $p0 || s=1; wait $p1 || s=1; exit $s"
    summary = work / "step-summary.md"
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    out = work / "debug"
    result = subprocess.run([*jdwpd_argv(), "ci", "--on-test-failure", "--out", str(out),
                             "--junit-reports", str(work / "reports-CartTest"),
                             "--junit-reports", str(work / "reports-LedgerTest"), "--", "sh", "-c", script],
                            capture_output=True, text=True, cwd=work, env=env, timeout=300)
    return result, out, work


def events(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]


def test_the_run_keeps_the_test_runners_status_and_output(junit_run):
    result, out, _ = junit_run
    assert result.returncode == 1, result.stderr  # two tests failed: the runner says so, and so do we
    assert "Traceback" not in result.stderr
    assert "tests failed" in result.stdout


def test_each_failing_test_has_a_snapshot_labelled_with_its_name_and_locals(junit_run):
    _, out, _ = junit_run
    failures = {e["test"]: e for e in events(out) if e["event"] == "test-failure"}
    assert set(failures) == {"shop.CartTest.totalIsTheSumOfThePrices", "shop.LedgerTest.balanceNeverNegative"}
    cart = failures["shop.CartTest.totalIsTheSumOfThePrices"]
    assert cart["exception"]["class"] == "org.opentest4j.AssertionFailedError"
    assert "cart total" in cart["message"]
    assert cart["location"]["class"] == "shop.CartTest" and cart["location"]["file"] == "CartTest.java"
    snap = json.loads((out / cart["file"]).read_text())
    test_frame = next(f for f in snap["frames"] if f["location"]["method"] == "totalIsTheSumOfThePrices")
    assert test_frame["locals"]["expected"] == 12 and test_frame["locals"]["actual"] == 9
    ledger = json.loads((out / failures["shop.LedgerTest.balanceNeverNegative"]["file"]).read_text())
    frame = next(f for f in ledger["frames"] if f["location"]["method"] == "balanceNeverNegative")
    assert frame["locals"]["balance"] == -2
    # two forked JVMs, both seen
    mains = [e["vm"]["main"] for e in events(out) if e["event"] == "vm-start"]
    assert len(mains) == 2, mains


def test_github_annotations_and_step_summary(junit_run):
    result, _, work = junit_run
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert any(line.startswith("::error file=src/shop/CartTest.java,line=") for line in errors), errors
    assert any("src/shop/LedgerTest.java" in line for line in errors), errors
    assert "jdwpd ci" in (work / "step-summary.md").read_text()


def test_junit_reports_point_at_the_snapshots(junit_run):
    _, out, work = junit_run
    xml = work / "reports-CartTest" / "TEST-junit-jupiter.xml"
    cases = {c.get("name"): c for c in ElementTree.parse(xml).iter("testcase")}
    failed = cases["totalIsTheSumOfThePrices()"]
    attachment = failed.find("system-out").text
    assert "[[ATTACHMENT|" in attachment and str(out.resolve()) in attachment
    assert cases["emptyCartIsFree()"].find("system-out") is None or \
        "[[ATTACHMENT" not in (cases["emptyCartIsFree()"].find("system-out").text or "")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium (Debian package chromium; .ci/run installs it)")
def test_the_report_reads_well_in_a_real_browser(junit_run, tmp_path):
    _, out, _ = junit_run
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    page = (out / "report.html").resolve().as_uri()
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = dom.stdout
    for seen in ("jdwpd ci report", "Test shop.CartTest.totalIsTheSumOfThePrices", "cart total",
                 "shop.LedgerTest.balanceNeverNegative", "expected", "actual", "CartTest.java"):
        assert seen in text, seen
    shot = tmp_path / "report.png"
    subprocess.run([CHROMIUM, *flags, "--window-size=1200,1600", f"--screenshot={shot}", page],
                   capture_output=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 20_000  # a rendered page, not an empty one


def test_select_by_test_name(junit_run):
    _, _, work = junit_run
    out = work / "selected"
    result = subprocess.run([*jdwpd_argv(), "ci", "--on-test-failure", "--select", "test=shop.Cart*",
                             "--out", str(out), "--", "java", "-jar", str(CONSOLE), "-cp", str(work / "classes"),
                             "--select-package", "shop", "--disable-banner", "--details=none"],
                            capture_output=True, text=True, cwd=work, timeout=300)
    assert result.returncode == 1, result.stderr[-2000:]
    failures = [e["test"] for e in events(out) if e["event"] == "test-failure"]
    assert failures == ["shop.CartTest.totalIsTheSumOfThePrices"]  # LedgerTest's failure is not selected
