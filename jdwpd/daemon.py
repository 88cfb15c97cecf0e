"""The daemon's top level: adopt an agent's link, serve JDWP, end with the JVM."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import trio

from .link.agent_link import accept_agent


class AgentNeverConnected(Exception):
    pass


async def _wait_process(proc: subprocess.Popen, done: trio.Event) -> None:
    # Popen is not trio's: a pidfd becomes readable when the process ends
    fd = os.pidfd_open(proc.pid)
    try:
        await trio.lowlevel.wait_readable(fd)
    finally:
        os.close(fd)
    proc.wait()
    done.set()


async def accept_authenticated(listener: trio.SocketListener, secret: bytes):
    """The first peer that proves the secret; others are refused and forgotten."""
    while True:
        stream = await listener.accept()
        try:
            return await accept_agent(stream, secret)
        except Exception as e:  # a refused peer never disturbs the wait for the real agent
            print(f"jdwpd: refused an agent-link peer: {e}", file=sys.stderr)
            await stream.aclose()


async def _serve(proc: subprocess.Popen, jdwp_sock: socket.socket, link_sock: socket.socket, secret: bytes,
                 allow: list[str], read_only: bool, agent_timeout: float) -> int:
    from .server import serve_jdwp
    from .vm import VM

    jvm_done = trio.Event()
    link_listener = trio.SocketListener(trio.socket.from_stdlib_socket(link_sock))
    jdwp_listener = trio.SocketListener(trio.socket.from_stdlib_socket(jdwp_sock))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_wait_process, proc, jvm_done)
        link = None
        with trio.move_on_after(agent_timeout) as timeout:
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
            if jvm_done.is_set():
                print(f"jdwpd: the JVM exited with code {proc.returncode} before its agent connected",
                      file=sys.stderr)
                return proc.returncode or 1
            assert timeout.cancelled_caught
            print(f"jdwpd: the JVM's agent did not connect within {agent_timeout:g} s", file=sys.stderr)
            return 1
        vm = VM(link, read_only=read_only)
        await nursery.start(vm.run)
        host, port = jdwp_sock.getsockname()[:2]
        await nursery.start(serve_jdwp, [jdwp_listener], vm)
        print(f"jdwpd: listening for debuggers at {host}:{port}", file=sys.stderr, flush=True)
        await jvm_done.wait()
        # let the VM_DEATH events reach the debuggers before the sockets close
        with trio.move_on_after(2):
            await vm.wait_dead()
        nursery.cancel_scope.cancel()
    return proc.returncode


def serve_launched(proc: subprocess.Popen, *, jdwp_sock: socket.socket, link_sock: socket.socket, secret: bytes,
                   allow: list[str], read_only: bool, agent_timeout: float) -> int:
    return trio.run(_serve, proc, jdwp_sock, link_sock, secret, allow, read_only, agent_timeout)
