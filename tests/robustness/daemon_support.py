"""An in-process daemon over a real JVM: tests drive it over JDWP and look inside (agent counters, /proc)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import attrs
import trio

from jdwpd.daemon.link.agent_link import accept_agent, open_unix_listener
from jdwpd.daemon.link.launcher import agent_option_string, java_command_with_agent, new_secret_file
from jdwpd.daemon.server import serve_jdwp
from jdwpd.daemon.vm import VM
from jdwpd.testing import debuggees
from jdwpd.testing.jvm import java_executable

HERE = Path(__file__).resolve().parent


def robustness_classes() -> Path:
    """tests/robustness/java compiled once per source content (the test kit's cache), not once per test."""
    return debuggees.compile_sources(HERE / "java")


def marker(name: str, source: str = "Ticker.java") -> int:
    for number, line in enumerate((HERE / "java" / source).read_text().splitlines(), 1):
        if f"@marker {name}" in line:
            return number
    raise LookupError(name)


@attrs.define(eq=False)
class Daemon:
    vm: VM
    port: int
    jvm: trio.Process

    async def agent_stats(self) -> dict[str, int]:
        reply = await self.vm.link.request("AGENT_STATS")
        return {c["name"]: c["value"] for c in reply["counters"]}

    def jvm_fds(self) -> int:
        return len(os.listdir(f"/proc/{self.jvm.pid}/fd"))

    def jvm_threads(self) -> int:
        return len(os.listdir(f"/proc/{self.jvm.pid}/task"))


@asynccontextmanager
async def inprocess_daemon(java_args: Sequence[str], *, suspend: bool = False,
                           stdout=subprocess.DEVNULL) -> AsyncIterator[Daemon]:
    workdir = tempfile.mkdtemp(prefix="jdwpd-test-")
    try:
        secret, secret_path = new_secret_file(workdir)
        link_path = os.path.join(workdir, "link.sock")
        link_listener = await open_unix_listener(link_path)
        options = agent_option_string(f"unix:{link_path}", secret_path, suspend=suspend)
        argv = java_command_with_agent([java_executable(), *java_args], options)
        jvm = await trio.lowlevel.open_process(argv, stdout=stdout)
        try:
            with trio.fail_after(30):
                stream = await link_listener.accept()
                link = await accept_agent(stream, secret)
            vm = VM(link)
            async with trio.open_nursery() as nursery:
                await nursery.start(vm.run)
                listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
                await nursery.start(serve_jdwp, listeners, vm)
                yield Daemon(vm, listeners[0].socket.getsockname()[1], jvm)
                nursery.cancel_scope.cancel()
        finally:
            if jvm.returncode is None:
                jvm.kill()
            with trio.move_on_after(10) as cs:
                cs.shield = True
                await jvm.wait()
            await link_listener.aclose()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


async def loaded_class(client, signature: str, timeout: float = 20) -> int:
    """The reference type ID of a class, once the JVM has loaded it (a debugger may attach before)."""
    with trio.fail_after(timeout):
        while True:
            classes = (await client.command("VirtualMachine", "ClassesBySignature", signature=signature)).classes
            if classes:
                return classes[0].type_id
            await trio.sleep(0.02)
