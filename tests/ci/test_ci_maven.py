"""`jdwpd ci -- mvn test` with Surefire's forkCount=2: the build tool's own JVM and both forks debugged
at once, where `-agentlib:jdwp` in every fork would collide on one port."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from jdwpd.own_command import jdwpd_argv

pytestmark = pytest.mark.jvm
PROJECT = Path(__file__).resolve().parent / "maven_project"  # its pom.xml
SOURCES = Path(__file__).resolve().parent / "junit_java" / "shop"
OFFLINE_MISS = ("could not be resolved", "offline mode", "has not been downloaded")


def test_surefire_forks_in_parallel_each_debugged(tmp_path):
    mvn = shutil.which("mvn")
    if mvn is None:
        pytest.skip("no mvn on PATH (Debian package maven)")
    project = tmp_path / "shop"
    shutil.copytree(PROJECT, project)
    # the same sources as the console-launcher test, laid out as Maven wants them
    for source in SOURCES.glob("*.java"):
        kind = "test" if source.stem.endswith("Test") else "main"
        target = project / "src" / kind / "java" / "shop" / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
    out = project / "debug"
    result = subprocess.run([*jdwpd_argv(), "ci", "--on-test-failure", "--out", str(out), "--",
                             mvn, "-o", "-B", "test"], capture_output=True, text=True, cwd=project, timeout=600)
    if any(miss in result.stdout for miss in OFFLINE_MISS):
        pytest.skip("Maven cannot resolve Surefire 3.2.5 and JUnit 5.11 offline on this machine (~/.m2 holds "
                    "none): " + next(line for line in result.stdout.splitlines() if "ERROR" in line)[:200])
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]  # Maven's own: tests failed
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    starts = [e for e in events if e["event"] == "vm-start"]
    forks = [e for e in starts if "surefirebooter" in e["vm"]["main"]]
    assert len(forks) == 2, [e["argv"][:3] for e in starts]
    assert len({e["jdwp"] for e in starts}) == len(starts)  # one address each: nothing collides
    failures = {e["test"]: e for e in events if e["event"] == "test-failure"}
    assert set(failures) == {"shop.CartTest.totalIsTheSumOfThePrices", "shop.LedgerTest.balanceNeverNegative"}
    assert {failures[t]["vm"]["pid"] for t in failures} == {e["vm"]["pid"] for e in forks}
    snap = json.loads((out / failures["shop.CartTest.totalIsTheSumOfThePrices"]["file"]).read_text())
    frame = next(f for f in snap["frames"] if f["location"]["method"] == "totalIsTheSumOfThePrices")
    assert frame["locals"]["actual"] == 9
    report = (project / "target" / "surefire-reports" / "TEST-shop.CartTest.xml").read_text()
    assert "[[ATTACHMENT|" in report  # Surefire's report of the failing test points at its snapshot
