"""The daemon's top level: adopt an agent's link, serve JDWP for its VM, end with the VM.

Three ways in, one way of serving: `launch` (we start the JVM), `serve` (JVMs
started on their own connect to us; a restarted daemon re-adopts them) and
`attach` (we load the agent into a running JVM).
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import math
import os
import shlex
import signal
import socket
import subprocess
import sys

import attrs
import trio

from .fast import spin, warmup
from .link.agent_link import AgentLink, accept_agent


def say(text: str) -> None:
    print(f"jdwpd: {text}", file=sys.stderr, flush=True)


@attrs.define(eq=False)
class JvmProcess:
    """The JVM a daemon was started for.  popen None: `jdwpd java` exec'd into it, so the JVM is not
    our child and its exit code is its caller's to see (the daemon runs in a child of its own)."""

    pid: int
    pidfd: int  # readable once the JVM has ended; opened while the pid surely named it
    popen: subprocess.Popen | None = None

    @classmethod
    def of(cls, popen: subprocess.Popen) -> JvmProcess:
        return cls(popen.pid, os.pidfd_open(popen.pid), popen)

    def exit_code(self) -> int:
        return exit_status(self.popen.wait()) if self.popen is not None else 0

    def end(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(self.pidfd, signal.SIGTERM)


def abandon_jvm(proc: subprocess.Popen | None, jvm: JvmProcess | None) -> None:
    """What started the JVM is going away (abnormally, if the JVM still runs): the JVM must not
    outlive it unseen.  SIGTERM, then SIGKILL after 5 s; the pidfd closed."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if jvm is not None:
        os.close(jvm.pidfd)


async def _wait_process(jvm: JvmProcess, done: trio.Event) -> None:
    await trio.lowlevel.wait_readable(jvm.pidfd)
    done.set()


async def accept_authenticated(listener: trio.SocketListener, secret: bytes) -> AgentLink:
    """The first peer that proves the secret; others are refused and forgotten."""
    while True:
        stream = await listener.accept()
        try:
            return await accept_agent(stream, secret)
        except Exception as e:  # a refused peer never disturbs the wait for the real agent
            say(f"refused an agent-link peer: {e}")
            await stream.aclose()


class AllowListener(trio.abc.Listener):
    """Accepts only peers whose address is in the allow list; others are closed before the handshake."""

    def __init__(self, inner: trio.SocketListener, allow: list[str]) -> None:
        self.inner = inner
        self.socket = inner.socket
        self.networks = [ipaddress.ip_network(a, strict=False) for a in allow]

    def admits(self, host: str) -> bool:
        address = ipaddress.ip_address(host.split("%", 1)[0])
        if address.version == 6 and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)

    async def accept(self) -> trio.SocketStream:
        while True:
            stream = await self.inner.accept()
            host = stream.socket.getpeername()[0]
            if self.admits(host):
                return stream
            say(f"refused a debugger from {host}: not in --allow")
            await stream.aclose()

    async def aclose(self) -> None:
        await self.inner.aclose()


def parse_allow(allow: list[str]) -> list[str]:
    """Validate --allow entries (addresses or CIDR ranges; ';' separates several, as the reference's allow=)."""
    entries = [part.strip() for item in allow for part in item.split(";") if part.strip()]
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ValueError(f"--allow: '{entry}' is not an address or a network") from None
    return entries


async def serve_vm(link: AgentLink, jdwp_listener: trio.SocketListener | None, *, read_only: bool, allow: list[str],
                   until: trio.Event | None = None, dialed: socket.socket | None = None, start_runs: bool = False,
                   announce: str = "jdwpd", jvm: JvmProcess | None = None,
                   announce_fd: int | None = None) -> None:
    """Serve debuggers for one VM until its link ends (or ``until`` is set): those that attach to
    jdwp_listener, and the one we dialed (the reference's server=n), which gets the start event."""
    from .server import serve_dialed, serve_jdwp
    from .vm import VM

    vm = VM(link, read_only=read_only, start_runs=start_runs, start_goes_to_dialed=dialed is not None)

    async def serve_the_dialed() -> None:
        assert dialed is not None
        where = "{}:{}".format(*dialed.getpeername()[:2])
        if not await serve_dialed(dialed, vm) and jvm is not None:
            # As the reference, whose transport failed: the JVM does not run on without its debugger.
            say(f"the debugger at {where} did not answer the JDWP handshake: ending the JVM")
            jvm.end()

    async with trio.open_nursery() as nursery:
        vm_done = trio.Event()

        async def run_vm(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
            try:
                await vm.run(task_status=task_status)
            finally:
                vm_done.set()

        await nursery.start(run_vm)
        if dialed is not None:
            nursery.start_soon(serve_the_dialed)
        if jdwp_listener is not None:
            listener = AllowListener(jdwp_listener, allow) if allow else jdwp_listener
            relisten = None
            if announce_fd is not None:
                port = jdwp_listener.socket.getsockname()[1]
                line = f"Listening for transport dt_socket at address: {port}\n".encode()

                async def relisten() -> None:
                    # The reference listens anew once its debugger has gone and says so on the JVM's
                    # standard output; scripts wait for that line before they attach again.  Written
                    # from a thread: a full pipe blocks the writer, and it must not block the daemon.
                    await trio.to_thread.run_sync(_write_all, announce_fd, line, abandon_on_cancel=True)

            await nursery.start(functools.partial(serve_jdwp, [listener], vm, when_unattended=relisten))
        nursery.start_soon(warmup.warm, vm)
        if jdwp_listener is not None:
            host, port = jdwp_listener.socket.getsockname()[:2]
            if announce == "jdwpd":
                say(f"listening for debuggers at {host}:{port}")
        if until is None:
            await vm_done.wait()
        else:
            await until.wait()
            # let the debuggers have every event, VM_DEATH last, before the sockets close
            await vm.wait_delivered()
        nursery.cancel_scope.cancel()


def _write_all(fd: int, data: bytes) -> None:
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError:
        pass  # nobody reads the JVM's output any more


def _run_launch_command(command: str, address: str) -> None:
    """--launch: the command, with the transport's name and the address appended as the reference does
    (`launch=`); it runs on its own (a debugger such as jdb), neither waited for nor killed."""
    try:
        subprocess.Popen([*shlex.split(command), "dt_socket", address], start_new_session=True)
    except OSError as e:
        say(f"cannot run the --launch command: {e}")


@attrs.frozen
class Debuggers:
    """Where a launched JVM's debuggers come from: jdwp_sock, bound (listening unless the agent is
    lazy), and dialed, a debugger we connected to (the reference's server=n)."""

    jdwp_sock: socket.socket | None = None
    dialed: socket.socket | None = None
    start_runs: bool = False  # dialed with suspend=n: the debugger gets VMStart, the VM runs
    # How to say where debuggers attach: "jdwpd" (a line on stderr, HOST:PORT to --launch), "reference"
    # (`jdwpd java`: nothing, and the port alone to launch=, as the reference's agent does).
    announce: str = "jdwpd"
    # The JVM's standard output, where "reference" says again that it listens once a debugger has left.
    announce_fd: int | None = None


async def _launched(jvm: JvmProcess, debuggers: Debuggers, link_sock: socket.socket, secret: bytes,
                    allow: list[str], read_only: bool, agent_timeout: float, lazy: bool = False,
                    launch_command: str | None = None) -> int:
    jvm_done = trio.Event()
    jdwp_sock = debuggers.jdwp_sock
    link_listener = trio.SocketListener(trio.socket.from_stdlib_socket(link_sock))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_wait_process, jvm, jvm_done)
        link = None
        # A lazy agent (onthrow/onuncaught) connects when its exception is thrown, if ever.
        with trio.move_on_after(math.inf if lazy else agent_timeout):
            async with trio.open_nursery() as race:
                async def agent() -> None:
                    nonlocal link
                    link = await accept_authenticated(link_listener, secret)
                    race.cancel_scope.cancel()

                async def jvm_died() -> None:
                    await jvm_done.wait()
                    race.cancel_scope.cancel()

                race.start_soon(agent)
                race.start_soon(jvm_died)
        await link_listener.aclose()
        if link is None:
            nursery.cancel_scope.cancel()
            if jvm_done.is_set() and lazy:
                code = jvm.exit_code()
                if debuggers.announce == "jdwpd":
                    say(f"the JVM exited with code {code} before a debugger could attach")
                return code
            if jvm_done.is_set():
                code = jvm.exit_code()
                if debuggers.announce == "jdwpd":
                    say(f"the JVM exited with code {code} before its agent connected")
                return code or 1
            say(f"the JVM's agent did not connect within {agent_timeout:g} s")
            return 1
        # Now, not before the agent's handshake (a short program could end while we import) and
        # not at the first debugger's first command.
        load_command_table()
        jdwp_listener = None
        if jdwp_sock is not None:
            if lazy:
                jdwp_sock.listen(16)
            jdwp_listener = trio.SocketListener(trio.socket.from_stdlib_socket(jdwp_sock))
            if launch_command:
                host, port = jdwp_sock.getsockname()[:2]
                address = str(port) if debuggers.announce == "reference" else f"{host}:{port}"
                _run_launch_command(launch_command, address)
        await serve_vm(link, jdwp_listener, read_only=read_only, allow=allow, until=jvm_done,
                       dialed=debuggers.dialed, start_runs=debuggers.start_runs, announce=debuggers.announce,
                       jvm=jvm, announce_fd=debuggers.announce_fd)
        nursery.cancel_scope.cancel()
    return jvm.exit_code()


def load_command_table() -> None:
    """Import every command module now (30-90 ms), which the first command would otherwise wait for."""
    from .dispatch import table

    table()


def exit_status(returncode: int) -> int:
    """The JVM's exit code, or 128 + N for a JVM killed by signal N, as a shell reports it."""
    return returncode if returncode >= 0 else 128 - returncode


def serve_launched(jvm: JvmProcess, *, debuggers: Debuggers, link_sock: socket.socket, secret: bytes,
                   allow: list[str], read_only: bool, agent_timeout: float, lazy: bool = False,
                   launch_command: str | None = None) -> int:
    return trio.run(_launched, jvm, debuggers, link_sock, secret, allow, read_only, agent_timeout, lazy,
                    launch_command, instruments=spin.instruments())


async def _serve_forever(link_sock: socket.socket, jdwp_sock: socket.socket, secret: bytes, allow: list[str],
                         read_only: bool, once: bool) -> int:
    """`serve` and `attach`: adopt VMs one after another on the same JDWP address."""
    link_listener = trio.SocketListener(trio.socket.from_stdlib_socket(link_sock))
    load_command_table()
    while True:
        link = await accept_authenticated(link_listener, secret)
        pid = (getattr(link, "hello", None) or {}).get("pid")
        say(f"adopted the JVM with pid {pid}")
        # serving ends by cancellation, which closes the listener: each VM gets its own descriptor
        jdwp_listener = trio.SocketListener(trio.socket.from_stdlib_socket(jdwp_sock.dup()))
        await serve_vm(link, jdwp_listener, read_only=read_only, allow=allow)
        say(f"the JVM with pid {pid} is gone")
        if once:
            return 0


def serve_adopted(*, link_sock: socket.socket, jdwp_sock: socket.socket, secret: bytes, allow: list[str],
                  read_only: bool, once: bool) -> int:
    return trio.run(_serve_forever, link_sock, jdwp_sock, secret, allow, read_only, once,
                    instruments=spin.instruments())
