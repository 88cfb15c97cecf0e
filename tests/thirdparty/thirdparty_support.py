"""Helpers of the third-party tests: jsoup's driver under either server, as the API sees it.

``open_driver(kind, driver)`` debugs tpdriver.Driver (tests/thirdparty/java), held at its start: under jdwpd
through ``jdwpd.launch`` itself; under the reference the JVM runs with -agentlib:jdwp and the API attaches with
``jdwpd.attach``. The session it yields has the VM, the JVM's output so far and a wait for the JVM's exit.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import attrs

import jdwpd
from jdwpd.testing import jvm
from jdwpd.testing.thirdparty import Library

JAVA = Path(__file__).resolve().parent / "java"
DRIVER_SOURCE = JAVA / "tpdriver" / "Driver.java"
DRIVER_MAIN = "tpdriver.Driver"


@attrs.frozen
class Driver:
    """tpdriver.Driver compiled against the library: what a test needs to run it."""

    library: Library
    classes: Path
    markers: dict[str, int]  # // @marker NAME -> line, in Driver.java
    source: Path = DRIVER_SOURCE
    main: str = DRIVER_MAIN

    @property
    def classpath(self) -> str:
        return os.pathsep.join(str(p) for p in [self.classes, *self.library.classpath])

    @property
    def pages(self) -> Path:
        """The real pages it parses: jsoup's own test pages (htmltests/)."""
        return self.library.source.test_resources / "htmltests"

    def args(self, rounds: int = 1) -> list[str]:
        return [str(self.pages), str(rounds)]

    def argv(self, rounds: int = 1, jvm_args: Sequence[str] = ()) -> list[str]:
        """The plain ``java`` command line (what jdwpd.launch takes)."""
        return [jvm.java_executable(), *jvm_args, "-cp", self.classpath, self.main, *self.args(rounds)]

    def location(self, marker: str) -> str:
        """``Driver.java:LINE`` of a marker."""
        return f"Driver.java:{self.markers[marker]}"


@attrs.define
class DriverSession:
    vm: jdwpd.VM
    output: Callable[[], str]  # the JVM's stdout and stderr so far
    wait_exit: Callable  # async (timeout) -> exit code


@contextlib.asynccontextmanager
async def open_driver(kind: str, driver: Driver, rounds: int = 1,
                      jvm_args: Sequence[str] = ()) -> AsyncIterator[DriverSession]:
    if kind == "jdwpd":
        async with jdwpd.launch(driver.argv(rounds, jvm_args), suspend=True) as vm:
            yield DriverSession(vm, vm.process.output, vm.process.wait)
    else:
        async with (
            jvm.open_reference_jvm(driver.classpath, driver.main, driver.args(rounds), jvm_args=jvm_args) as debuggee,
            jdwpd.attach(debuggee.address) as vm,
        ):
            yield DriverSession(vm, debuggee.output.text, debuggee.wait_exit)
