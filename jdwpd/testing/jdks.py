"""Find an installed JDK of a given feature release or newer (virtual threads need 21).

$JAVA_HOME_<N> first (e.g. JAVA_HOME_21), else the newest JDK under /usr/lib/jvm whose
``release`` file says JAVA_VERSION >= N and that has a javac.  Tests that need one skip
with ``MISSING_REASON`` when there is none.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import attrs

__all__ = ["Jdk", "find_jdk", "feature_of", "MISSING_REASON"]

JVM_DIR = Path("/usr/lib/jvm")
MISSING_REASON = "no JDK {n}+ found (set JAVA_HOME_{n}, or install one under /usr/lib/jvm)"
_VERSION = re.compile(r'^JAVA_VERSION="(\d+)', re.MULTILINE)


@attrs.frozen
class Jdk:
    home: Path
    feature: int

    @property
    def java(self) -> str:
        return str(self.home / "bin" / "java")

    @property
    def javac(self) -> str:
        return str(self.home / "bin" / "javac")

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


def find_jdk(minimum: int) -> Jdk | None:
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
