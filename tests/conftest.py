"""Session fixtures: the Java debuggees compiled once, marker lookup, and the two debuggers' servers.

Tests that start JVMs are marked ``@pytest.mark.jvm`` and skip (with the reason)
when no JDK is installed.  A test parametrized with ``server_kind`` runs once
against the reference agent (-agentlib:jdwp) and once against jdwpd; the jdwpd
variant skips until `python -m jdwpd launch --help` works.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jdwpd.testing import debuggees, jvm

TESTS = Path(__file__).resolve().parent
JAVA_SOURCES = TESTS / "java"
SAMPLE_SOURCE = JAVA_SOURCES / "Sample.java"

HAVE_JDK = shutil.which("javac") is not None and shutil.which("java") is not None


def pytest_collection_modifyitems(config, items):
    if "slow" not in (config.getoption("-m") or ""):
        later = pytest.mark.skip(reason="slow: not in the default run; `python -m pytest -m slow` runs it")
        for item in items:
            if "slow" in item.keywords:
                item.add_marker(later)
    if HAVE_JDK:
        return
    skip = pytest.mark.skip(reason="no JDK (java/javac) on PATH: apt-get install openjdk-17-jdk-headless")
    for item in items:
        if "jvm" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def java_sources() -> Path:
    return JAVA_SOURCES


@pytest.fixture(scope="session")
def sample_classes() -> Path:
    """Class directory of tests/java, compiled with -g once per source content and javac version."""
    if not HAVE_JDK:
        pytest.skip("no JDK (java/javac) on PATH")
    return debuggees.compile_sources(JAVA_SOURCES)


@pytest.fixture(scope="session")
def sample_markers() -> dict[str, int]:
    """``// @marker NAME`` -> line, over every source in tests/java (names are unique across files)."""
    return debuggees.all_markers(JAVA_SOURCES)


def skip_unless_jdwpd() -> None:
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)


@pytest.fixture(params=["reference", "jdwpd"])
def server_kind(request) -> str:
    """Which JDWP server debugs the JVM: the reference agent or jdwpd (skipped until `jdwpd launch` exists)."""
    if request.param == "jdwpd":
        skip_unless_jdwpd()
    return request.param


def pytest_sessionfinish(session, exitstatus):
    """Daemons the tests killed could not remove their folders: every test process is gone by now, so
    the same sweep a starting daemon runs takes what they left (docs/cli.md, "Files it leaves")."""
    from jdwpd.link.workdirs import sweep_stale

    jvm._kill_leftovers()
    sweep_stale()
