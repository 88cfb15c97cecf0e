"""Third-party debuggees (Milestone 3): jsoup, from Debian's source package, compiled with -g in the test cache.

Session fixtures (each skips, saying why, when the library cannot be had: no network on the first run, no
apt-get, no JDK, no JUnit console launcher):

- ``jsoup_library``: jdwpd.testing.thirdparty.Library: ``.classes`` (javac -g), ``.classpath``, ``.source``
  (the unpacked tree, ``.version``), ``.line(class, needle)`` (a line of the library's source, found by text);
- ``jsoup_driver``: thirdparty_support.Driver: tpdriver.Driver (tests/thirdparty/java) compiled against it,
  ``.argv(rounds)``, ``.classpath``, ``.markers``, ``.location(marker)``; ``open_driver(kind, driver)`` runs it
  under either server;
- ``jsoup_suite``: jdwpd.testing.thirdparty.TestSuite: jsoup's own JUnit 5 tests, compiled (``.compiled``,
  ``.dropped``, ``.disabled``), for ``thirdparty.junit_command(suite, reports_dir, select=...)``.

The first session downloads (apt-get source, about 10 MB of index and 0.5 MB of source) and compiles (the
library about 20 s, its tests about a minute on two cores); later sessions reuse the cache offline.
"""

from __future__ import annotations

import os
import shutil

import pytest
from thirdparty_support import JAVA, Driver

from jdwpd.testing import debuggees, thirdparty


def _need_jdk() -> None:
    if not (shutil.which(debuggees.default_javac()) or os.path.isfile(debuggees.default_javac())):
        pytest.skip("no JDK (java/javac) on PATH: apt-get install openjdk-17-jdk-headless")


@pytest.fixture(scope="session")
def jsoup_library() -> thirdparty.Library:
    _need_jdk()
    try:
        return thirdparty.build_library()
    except thirdparty.ThirdPartyUnavailable as e:
        pytest.skip(f"third-party library jsoup unavailable: {e}")


@pytest.fixture(scope="session")
def jsoup_driver(jsoup_library) -> Driver:
    cp = os.pathsep.join(str(p) for p in jsoup_library.classpath)
    classes = debuggees.compile_sources(JAVA, extra_args=("-cp", cp), cache=thirdparty.thirdparty_root() / "classes")
    return Driver(jsoup_library, classes, debuggees.all_markers(JAVA))


@pytest.fixture(scope="session")
def jsoup_suite(jsoup_library) -> thirdparty.TestSuite:
    try:
        return thirdparty.build_tests()
    except thirdparty.ThirdPartyUnavailable as e:
        pytest.skip(f"jsoup's JUnit suite unavailable: {e}")
