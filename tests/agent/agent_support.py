"""Helpers for the agent tests: a real JVM with our agent, and our AgentLink acting as the daemon."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import attrs
import trio

from jdwpd.daemon.link.agent_link import AgentLink, accept_agent, open_unix_listener
from jdwpd.daemon.link.launcher import agent_option_string, new_secret_file
from jdwpd.testing.debuggees import javac_argv
from protocol import link as L

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
JAVA = HERE / "java"


def compile_flags() -> list[str]:
    """setup.py's flags for agent/*.c, with the JDK's headers (of the javac on PATH) and agent/."""
    javac = shutil.which("javac")
    assert javac is not None, "callers skip without a JDK"
    home = Path(os.path.realpath(javac)).parent.parent
    return ["-std=c99", "-O2", "-g", "-fPIC", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-pthread",
            f"-I{home / 'include'}", f"-I{home / 'include' / 'linux'}", f"-I{ROOT / 'agent'}"]


def compile_agent_objects(out_dir: Path) -> dict[str, Path]:
    """Each agent/*.c compiled alone, as setup.py compiles it: module name -> object file.  Made once a
    session and shared by the agent the tests load (build_agent) and by the checks of what each file
    exports and uses (test_agent_layout), which used to compile every file a second time."""
    flags = compile_flags()
    objects = {}
    for c in sorted((ROOT / "agent").glob("*.c")):
        obj = out_dir / f"{c.stem}.o"
        subprocess.run(["gcc", *flags, "-c", str(c), "-o", str(obj)], check=True, capture_output=True, timeout=120)
        objects[c.stem] = obj
    return objects


def build_agent(out_dir: Path, objects: dict[str, Path]) -> Path:
    """The agent linked from ``objects`` (compile_agent_objects: the sources in the tree)."""
    out = out_dir / "libjdwpd_agent.so"
    cmd = ["gcc", "-shared", "-pthread", "-o", str(out), *(str(objects[m]) for m in sorted(objects)),
           "-lpthread", "-ldl"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return out


def compile_java(out_dir: Path) -> Path:
    subprocess.run([*javac_argv(), "-g", "-d", str(out_dir), *sorted(str(p) for p in JAVA.glob("*.java"))],
                   check=True, capture_output=True, timeout=120)
    return out_dir


def markers(source: Path = JAVA / "Target.java") -> dict[str, int]:
    found = {}
    for n, line in enumerate(source.read_text().splitlines(), 1):
        m = re.search(r"// @(\w+)", line)
        if m:
            found[m.group(1)] = n
    return found


@attrs.define(eq=False)
class Jvm:
    proc: trio.Process
    link: AgentLink | None
    listener: trio.SocketListener
    secret: bytes
    workdir: Path
    _buf: bytearray = attrs.field(factory=bytearray)
    lines: list[str] = attrs.field(factory=list)

    async def send(self, line: str) -> None:
        await self.proc.stdin.send_all(line.encode() + b"\n")

    async def expect(self, prefix: str, timeout: float = 20) -> str:
        """Read stdout lines until one starts with prefix."""
        with trio.fail_after(timeout):
            while True:
                while b"\n" in self._buf:
                    raw, _, rest = bytes(self._buf).partition(b"\n")
                    self._buf[:] = rest
                    line = raw.decode()
                    self.lines.append(line)
                    if line.startswith(prefix):
                        return line
                data = await self.proc.stdout.receive_some(4096)
                if not data:
                    raise EOFError(f"JVM stdout ended while waiting for {prefix!r}; saw {self.lines}")
                self._buf += data

    async def accept(self, secret: bytes | None = None, timeout: float = 20) -> AgentLink:
        """Accept the agent's next connection (a reconnect, or a refused one with the wrong secret)."""
        with trio.fail_after(timeout):
            stream = await self.listener.accept()
            return await accept_agent(stream, secret if secret is not None else self.secret)

    async def request(self, name: str, **fields: Any) -> dict[str, Any]:
        with trio.fail_after(20):
            return await self.link.request(name, **fields)

    async def event(self, timeout: float = 20) -> dict[str, Any]:
        with trio.fail_after(timeout):
            while True:
                msg = await self.link.events.receive()
                if "notice" not in msg and "class_unloaded" not in msg:
                    return msg

    async def class_unloaded(self, timeout: float = 20) -> dict[str, Any]:
        """The next CLASS_UNLOADED message (events and notices before it are skipped)."""
        with trio.fail_after(timeout):
            while True:
                msg = await self.link.events.receive()
                if "class_unloaded" in msg:
                    return msg

    async def wait_exit(self, timeout: float = 20) -> int:
        with trio.fail_after(timeout):
            return await self.proc.wait()

    # conveniences over the executors
    async def class_id(self, signature: str) -> int:
        for c in (await self.request("ALL_CLASSES"))["classes"]:
            if c["signature"] == signature:
                return c["ref"]
        raise KeyError(signature)

    async def method(self, class_ref: int, name: str) -> dict[str, Any]:
        for m in (await self.request("CLASS_METHODS", ref=class_ref))["methods"]:
            if m["name"] == name:
                return m
        raise KeyError(name)

    async def thread_named(self, name: str) -> int:
        for t in (await self.request("ALL_THREADS"))["threads"]:
            if (await self.request("THREAD_INFO", thread=t["thread"]))["name"] == name:
                return t["thread"]
        raise KeyError(name)

    async def location_of_line(self, class_ref: int, method_name: str, line: int) -> L.LinkLocation:
        m = await self.method(class_ref, method_name)
        table = await self.request("METHOD_LINE_TABLE", method=m["method"])
        index = min(e["index"] for e in table["lines"] if e["line"] == line)
        return L.LinkLocation(1, class_ref, m["method"], index)


@asynccontextmanager
async def run_jvm(agent: Path, classes: Path, main: str = "Target", args: tuple[str, ...] = (), *,
                  connect: bool = True, options: dict[str, Any] | None = None,
                  jvm_args: tuple[str, ...] = ()) -> AsyncIterator[Jvm]:
    workdir = Path(tempfile.mkdtemp(prefix="jdwpd-agent-test-"))
    sock = workdir / "link.sock"
    secret, secret_path = new_secret_file(workdir)
    listener = await open_unix_listener(str(sock))
    opts = agent_option_string(sock, secret_path, **(options or {}))
    cmd = ["java", f"-agentpath:{agent}={opts}", *jvm_args, "-cp", str(classes), main, *args]
    proc = await trio.lowlevel.open_process(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    jvm = Jvm(proc, None, listener, secret, workdir)
    try:
        if connect:
            jvm.link = await jvm.accept()
        yield jvm
    finally:
        with trio.CancelScope(shield=True):
            if proc.returncode is None:
                proc.kill()
            with trio.move_on_after(10):
                await proc.wait()
            if jvm.link is not None:
                await jvm.link.aclose()
            await listener.aclose()
            for stream in (proc.stdin, proc.stdout):
                await stream.aclose()
            shutil.rmtree(workdir, ignore_errors=True)


def java_with_agent(agent_so, classes, opts: str, main: str = "Hello") -> subprocess.CompletedProcess:
    """``main`` run to its end under the agent with ``opts`` (no daemon needed to refuse options)."""
    return subprocess.run(["java", f"-agentpath:{agent_so}={opts}", "-cp", str(classes), main],
                          capture_output=True, text=True, timeout=60)


def assert_refused(agent_so, classes, cases: dict[str, str]) -> None:
    """Each option string makes the JVM exit 2 before main, saying why in one line holding the needle."""
    for opts, needle in cases.items():
        result = java_with_agent(agent_so, classes, opts)
        assert result.returncode == 2, (opts, result)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("jdwpd agent: ") and needle in lines[0], (opts, lines)
        assert "hello" not in result.stdout

