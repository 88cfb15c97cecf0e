"""`jdwpd serve` adopts many JVMs at once, each on its own JDWP address, listed by `jdwpd list`."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
import trio

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing.client import open_jdwp_client
from jdwpd.testing.jvm import java_executable
from tests.robustness.daemon_support import robustness_classes

pytestmark = pytest.mark.jvm
HERE = Path(__file__).resolve().parent
AGENTPATH = re.compile(r"start JVMs with (-agentpath:\S+)")
READY = re.compile(r"jdwpd: listening for debuggers at (\S+):(\d+) \(VM (\d+), pid (\d+), (\S+)\)")
GONE = re.compile(r"VM (\d+) \(pid (\d+)\) is gone")


class Log:
    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream) -> None:
        for line in stream:
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()

    def wait_all(self, pattern: re.Pattern, count: int, timeout: float = 60) -> list[re.Match]:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                found = [m for line in self.lines if (m := pattern.search(line))]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{count} x {pattern.pattern!r} not within {timeout} s: {self.lines}")
                self.cond.wait(left)


@pytest.fixture
def ticker(tmp_path) -> Path:
    classes = robustness_classes()  # compiled once per source content, not once per test
    return classes


def jdwpd_list(env) -> list[dict]:
    out = subprocess.run([*jdwpd_argv(), "list", "--json"], capture_output=True, text=True, env=env,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def free_port_pair() -> int:
    for _ in range(50):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            base = a.getsockname()[1]
        if base >= 65535:
            continue
        with socket.socket() as b:
            try:
                b.bind(("127.0.0.1", base + 1))
            except OSError:
                continue
        return base
    raise AssertionError("no two free ports in a row")


async def version_and_threads(port: int) -> set[str]:
    async with open_jdwp_client("127.0.0.1", port, timeout=20) as c:
        await c.command("VirtualMachine", "Version")
        names = set()
        for t in (await c.command("VirtualMachine", "AllThreads")).threads:
            names.add((await c.command("ThreadReference", "Name", thread=t.thread)).thread_name)
        return names


def test_three_jvms_at_once_each_on_its_port_listed_and_dropped_when_gone(tmp_path, ticker):
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path / "run")}
    (tmp_path / "run").mkdir(mode=0o700)
    base = free_port_pair()
    serve = subprocess.Popen([*jdwpd_argv(), "serve", "--link", f"unix:{tmp_path / 'link.sock'}",
                              "--secret-file", str(tmp_path / "secret"), "--jdwp", f"127.0.0.1:{base}"],
                             stderr=subprocess.PIPE, text=True, start_new_session=True, env=env)
    log = Log(serve.stderr)
    jvms: list[subprocess.Popen] = []
    try:
        agentpath = log.wait_all(AGENTPATH, 1)[0].group(1)
        assert jdwpd_list(env)[0]["vms"] == []
        for _ in range(3):
            jvms.append(subprocess.Popen([java_executable(), agentpath, "-cp", str(ticker), "Ticker", "1200", "50"],
                                         stdout=subprocess.DEVNULL, cwd=tmp_path, start_new_session=True))
        ready = log.wait_all(READY, 3)
        ports = {int(m.group(2)) for m in ready}
        assert len(ports) == 3 and {base, base + 1} <= ports, ports
        assert {int(m.group(4)) for m in ready} == {j.pid for j in jvms}
        assert {m.group(5) for m in ready} == {"Ticker"}

        [state] = jdwpd_list(env)
        assert state["daemon"]["pid"] == serve.pid
        by_pid = {vm["pid"]: vm for vm in state["vms"]}
        assert set(by_pid) == {j.pid for j in jvms}
        for vm in by_pid.values():
            assert vm["main"] == "Ticker" and vm["ppid"] == os.getpid() and vm["cwd"] == str(tmp_path)
            assert vm["argv"][-3:] == ["Ticker", "1200", "50"]
        table = subprocess.run([*jdwpd_argv(), "list"], capture_output=True, text=True, env=env,
                               timeout=60).stdout
        assert all(str(j.pid) in table for j in jvms) and "Ticker" in table

        async def all_three() -> None:
            async with trio.open_nursery() as nursery:
                for port in ports:
                    nursery.start_soon(check_one, port)

        async def check_one(port: int) -> None:
            assert "main" in await version_and_threads(port)

        trio.run(all_three)

        # the VM behind one address ends: it leaves the list and its address; the others serve on
        victim = jvms[1]
        victim_port = int(by_pid[victim.pid]["jdwp"].rsplit(":", 1)[1])
        victim.kill()
        victim.wait(30)
        log.wait_all(GONE, 1)
        [state] = jdwpd_list(env)
        assert {vm["pid"] for vm in state["vms"]} == {jvms[0].pid, jvms[2].pid}
        with pytest.raises(OSError), socket.create_connection(("127.0.0.1", victim_port), timeout=5) as s:
            s.sendall(b"JDWP-Handshake")
            if s.recv(14) != b"JDWP-Handshake":
                raise OSError("no handshake")
        for vm in state["vms"]:
            assert "main" in trio.run(version_and_threads, int(vm["jdwp"].rsplit(":", 1)[1]))
    finally:
        for p in (*jvms, serve):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)
    assert jdwpd_list(env) == []  # the killed daemon's file is not a daemon that runs


def test_list_without_a_daemon(tmp_path):
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}
    out = subprocess.run([*jdwpd_argv(), "list"], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0 and "no `jdwpd serve`" in out.stdout
