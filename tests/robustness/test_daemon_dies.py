"""The daemon killed while the JVM sits at a breakpoint: the JVM runs on, and a restarted daemon re-adopts it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
import trio

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing.client import open_jdwp_client
from jdwpd.testing.jvm import java_executable
from protocol.constants import EventKind, ModKind, SuspendPolicy, TypeTag
from protocol.wire import Location
from tests.robustness.daemon_support import robustness_classes

pytestmark = pytest.mark.jvm
HERE = Path(__file__).resolve().parent
READY = re.compile(r"listening for debuggers at (\S+):(\d+)")
AGENTPATH = re.compile(r"start JVMs with (-agentpath:\S+)")


def marker(name: str) -> int:
    for number, line in enumerate((HERE / "java" / "Ticker.java").read_text().splitlines(), 1):
        if f"@marker {name}" in line:
            return number
    raise LookupError(name)


class Lines:
    """A process's output lines, collected by a thread, waited for with timeouts."""

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream) -> None:
        for line in stream:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()

    def wait_for(self, pattern: re.Pattern, timeout: float, start: int = 0) -> re.Match:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for line in self.lines[start:]:
                    if m := pattern.search(line):
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {pattern.pattern!r} within {timeout} s in {self.lines[-20:]}")
                self.cond.wait(left)


def start_serve(tmp_path: Path) -> tuple[subprocess.Popen, Lines]:
    proc = subprocess.Popen([*jdwpd_argv(), "serve", "--link", f"unix:{tmp_path / 'link.sock'}",
                             "--secret-file", str(tmp_path / "secret"), "--jdwp", "127.0.0.1:0"],
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    return proc, Lines(proc.stderr)


async def hit_breakpoint(port: int, line: int, while_stopped) -> None:
    """Attach, stop every thread at the tick line, run ``while_stopped`` still attached."""
    async with open_jdwp_client("127.0.0.1", port, timeout=20) as c:
        sig = "LTicker;"
        classes = (await c.command("VirtualMachine", "ClassesBySignature", signature=sig)).classes
        ref = classes[0].type_id
        tick = next(m for m in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared
                    if m.name == "tick")
        table = await c.command("Method", "LineTable", ref_type=ref, method_id=tick.method_id)
        index = min(r.line_code_index for r in table.lines if r.line_number == line)
        await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.ALL,
                        modifiers=[{"mod_kind": ModKind.LOCATION_ONLY,
                                    "loc": Location(TypeTag.CLASS, ref, tick.method_id, index)}])
        await c.wait_for_event(EventKind.BREAKPOINT, 20)
        await trio.to_thread.run_sync(while_stopped)


def test_daemon_killed_at_a_breakpoint_then_restarted_readopts(tmp_path):
    classes = robustness_classes()  # compiled once per source content, not once per test
    line = marker("tick")
    serve, serve_out = start_serve(tmp_path)
    jvm = None
    try:
        agentpath = serve_out.wait_for(AGENTPATH, 30).group(1)
        jvm = subprocess.Popen([java_executable(), agentpath, "-cp", str(classes), "Ticker", "60", "50"],
                               stdout=subprocess.PIPE, text=True, start_new_session=True)
        jvm_out = Lines(jvm.stdout)
        port = int(serve_out.wait_for(READY, 30).group(2))
        jvm_out.wait_for(re.compile(r"tick 2"), 30)

        # every thread stopped at the breakpoint; the debugger stays attached while the daemon is killed
        resumed_after = []

        def kill_daemon_while_stopped() -> None:
            before = len(jvm_out.lines)
            time.sleep(0.3)
            assert len(jvm_out.lines) == before, "the JVM ran on although every thread was suspended"
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(10)
            killed = time.monotonic()
            jvm_out.wait_for(re.compile(r"tick \d+"), 5, start=before)
            resumed_after.append(time.monotonic() - killed)

        trio.run(hit_breakpoint, port, line, kill_daemon_while_stopped)
        print(f"the JVM ran again {resumed_after[0] * 1000:.0f} ms after the daemon was killed")
        assert resumed_after and resumed_after[0] < 1.0, "the agent took over a second to let the JVM go"

        # a new daemon with the same link and secret re-adopts the running JVM
        serve, serve_out = start_serve(tmp_path)
        serve_out.wait_for(re.compile(r"adopted the JVM with pid \d+"), 10)
        port = int(serve_out.wait_for(READY, 10).group(2))
        def kill_again() -> None:  # and again: the program must still end normally
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(10)

        trio.run(hit_breakpoint, port, line, kill_again)
        assert jvm.wait(60) == 0
        assert jvm_out.lines[-1] == "done"
    finally:
        for p in (serve, jvm):
            if p is not None and p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)


def test_serve_adopts_one_jvm_after_another(tmp_path):
    classes = robustness_classes()  # compiled once per source content, not once per test
    serve, serve_out = start_serve(tmp_path)
    try:
        agentpath = serve_out.wait_for(AGENTPATH, 30).group(1)
        for n in range(3):
            jvm = subprocess.run([java_executable(), agentpath, "-cp", str(classes), "Ticker", "3", "10"],
                                 capture_output=True, text=True, timeout=60)
            assert jvm.returncode == 0 and jvm.stdout.endswith("done\n"), jvm.stderr
            deadline = time.monotonic() + 10
            while len([line for line in serve_out.lines if "adopted" in line]) < n + 1:
                assert time.monotonic() < deadline, serve_out.lines
                time.sleep(0.05)
        port = int(serve_out.wait_for(READY, 10).group(2))
        assert serve.poll() is None, "serve ended with its first JVM"
        assert len(re.findall(r"listening for debuggers at 127\.0\.0\.1:" + str(port),
                              "\n".join(serve_out.lines))) == 3  # one address for every JVM in turn
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(10)
