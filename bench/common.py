"""What every benchmark needs: the measurement record, compiled debuggees, bounded child processes.

A measurement is a function ``run(variant, cfg) -> {metric: value}`` called once per
repetition per variant; the runner interleaves variants and repetitions, so that the
noise of a shared 2-core machine falls on every variant alike.  Values are "lower is
better" (times), in the metric's unit.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import debuggees

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
JAVA_SRC = BENCH / "java"
HOST = "127.0.0.1"


@attrs.frozen
class Target:
    """A ratio (numerator variant / denominator variant) and the ceiling it should stay under."""

    metric: str
    num: str
    den: str
    limit: float
    kind: str = "ratio"  # "ratio": num/den <= limit; "delta_ms": num - den <= limit (values in ms)


@attrs.frozen
class Measurement:
    name: str
    doc: str
    variants: tuple[str, ...]
    run: Callable[[str, Config], dict[str, float]]
    units: dict[str, str]
    targets: tuple[Target, ...]
    needs_debugger: bool = False


@attrs.frozen
class Config:
    quick: bool
    java: str = "java"
    tiny: bool = False  # the smallest kernels that still measure (tests/test_bench_smoke.py); with quick

    def pick(self, quick_value, full_value):
        return quick_value if self.quick else full_value


class MeasurementFailed(Exception):
    pass


# ---------------------------------------------------------------- debuggees


def compiled_classes() -> Path:
    """bench/java compiled once per content (the test kit's cache)."""
    return debuggees.compile_sources(JAVA_SRC)


def marker(name: str) -> int:
    return debuggees.all_markers(JAVA_SRC)[name]


def agent_path() -> str:
    from jdwpd.daemon.link.launcher import agent_path as path

    return str(path())


# ---------------------------------------------------------------- processes


def reference_agent(*, suspend: bool, port: int = 0) -> str:
    return f"-agentlib:jdwp=transport=dt_socket,server=y,suspend={'y' if suspend else 'n'},address={HOST}:{port}"


def launch_prefix(*, suspend: bool = False, profile: str = "full") -> list[str]:
    """`jdwpd launch` as a user runs it (the console script does the same imports as -m)."""
    cmd = [*jdwpd_argv(), "launch", "--jdwp", f"{HOST}:0", "--profile", profile]
    if suspend:
        cmd.append("--suspend")
    return [*cmd, "--"]


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def run_timed(argv: list[str], *, timeout: float, env=None) -> tuple[float, str, str]:
    """Wall seconds from spawn to exit, stdout, stderr; the process group is killed on timeout."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        proc.communicate()
        raise MeasurementFailed(f"timed out after {timeout}s: {' '.join(argv)}") from None
    finally:
        kill_group(proc.pid)  # whatever the child left behind in its group (a daemon's JVM)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise MeasurementFailed(f"exit {proc.returncode}: {' '.join(argv)}\n{err.decode(errors='replace')[-2000:]}")
    return elapsed, out.decode(errors="replace"), err.decode(errors="replace")


@attrs.define
class ServedDaemon:
    link: str
    secret: str
    lines: list[str]

    def wait_for(self, *texts: str, timeout: float) -> str:
        """The first line holding one of ``texts``."""
        deadline = time.monotonic() + timeout
        while True:
            for line in self.lines:
                if any(t in line for t in texts):
                    return line
            if time.monotonic() > deadline:
                raise MeasurementFailed(f"jdwpd serve never said any of {texts!r}: {self.lines[-5:]}")
            time.sleep(0.01)


@contextlib.contextmanager
def serve_daemon(timeout: float = 30.0) -> Iterator[ServedDaemon]:
    """A running `jdwpd serve` and its stderr lines so far.  Killed by its PID at exit."""
    with tempfile.TemporaryDirectory(prefix="jdwpd-bench-") as tmp:
        link = f"unix:{tmp}/link.sock"
        secret = f"{tmp}/secret"
        cmd = [*jdwpd_argv(), "serve", "--link", link, "--secret-file", secret, "--jdwp", f"{HOST}:0"]
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            line = b""
            # The daemon prints its -agentpath hint once the link socket listens.
            while b"start JVMs with" not in line:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise MeasurementFailed(f"jdwpd serve did not start: {line!r}")
                line = proc.stderr.readline()
            daemon = ServedDaemon(link, secret, [])
            threading.Thread(target=_pump_lines, args=(proc.stderr, daemon.lines), daemon=True).start()
            yield daemon
        finally:
            kill_group(proc.pid)
            proc.wait(10)


def _pump_lines(stream, into: list[str]) -> None:
    for raw in iter(stream.readline, b""):
        into.append(raw.decode(errors="replace"))


NS_PER_OP = re.compile(r"ns_per_op=([0-9.eE+-]+)")
ELAPSED = re.compile(r"elapsed_ns=(\d+)")


def parse_float(pattern: re.Pattern, text: str, what: str) -> float:
    m = pattern.search(text)
    if m is None:
        raise MeasurementFailed(f"no {what} in the debuggee's output: {text[-500:]!r}")
    return float(m.group(1))
