"""The remote link's test kit: the far and near sides as real processes, and a TCP relay between them
that records every byte and can delay each direction or cut the link.

Every process runs in its own process group and is killed by group when its context ends
(jdwpd/testing/jvm.py's helpers); the relay is a trio task of the test's own.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
from pathlib import Path

import attrs
import trio

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import debuggees, jvm

REPO = Path(__file__).resolve().parents[2]
TARGET_SRC = REPO / "bench" / "remote_java" / "target"
CLIENT_SRC = REPO / "bench" / "remote_java" / "client"
FAR_READY = re.compile(r"jdwpd: waiting for the near side at ([0-9.]+):(\d+)")
NEAR_READY = re.compile(r"jdwpd: listening for debuggers at ([0-9.]+):(\d+)")
# RemoteTarget's string local: built at run time, so its text is in no class file that could cross
SECRET_TEXT = b"secret-plain-text"


def target_classes() -> Path:
    return debuggees.compile_sources(TARGET_SRC)


def client_classes() -> Path:
    return debuggees.compile_sources(CLIENT_SRC)


def far_command(secret_file: os.PathLike | str, *, port: int = 0, suspend: bool = True,
                args: tuple[str, ...] = ()) -> list[str]:
    cmd = [*jdwpd_argv(), "launch", "--remote", f"127.0.0.1:{port}", "--secret-file", str(secret_file)]
    if suspend:
        cmd.append("--suspend")
    return [*cmd, "--", jvm.java_executable(), "-cp", str(target_classes()), "RemoteTarget", *args]


def near_command(far: str, secret_file: os.PathLike | str, *, retry: float = 0.2) -> list[str]:
    return [*jdwpd_argv(), "connect", far, "--secret-file", str(secret_file), "--jdwp", "127.0.0.1:0",
            "--retry", str(retry)]


def open_far(secret_file, **kw):
    """``async with open_far(path) as far:`` -> Debuggee; far.port is the far side's TLS port."""
    return jvm.open_command("jdwpd", far_command(secret_file, **kw), timeout=60, ready=FAR_READY)


def open_near(far: str, secret_file, **kw):
    """``async with open_near("127.0.0.1:PORT", path) as near:`` -> near.port is its JDWP port."""
    return jvm.open_command("jdwpd", near_command(far, secret_file, **kw), timeout=60, ready=NEAR_READY)


def write_secret(path: Path) -> Path:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(os.urandom(32).hex() + "\n")
    return path


# ---------------------------------------------------------------- the relay

@attrs.define
class Relay:
    """127.0.0.1:port -> target; ``up`` (client to target) and ``down`` bytes recorded; ``delay``
    seconds added to each direction (latency, not bandwidth: chunks keep their order and spacing)."""

    target: tuple[str, int]
    delay: float = 0.0
    up: bytearray = attrs.Factory(bytearray)
    down: bytearray = attrs.Factory(bytearray)
    port: int = 0
    refusing: bool = False
    connections: int = 0
    _scopes: list[trio.CancelScope] = attrs.Factory(list)

    def cut(self, *, refuse: bool = True) -> None:
        """Drop every connection now; with ``refuse``, close new ones at once until ``heal``."""
        self.refusing = refuse
        for scope in self._scopes:
            scope.cancel()

    def heal(self) -> None:
        self.refusing = False

    async def _pipe(self, src: trio.SocketStream, dst: trio.SocketStream, record: bytearray) -> None:
        send, receive = trio.open_memory_channel(float("inf"))

        async def reader() -> None:
            async with send:
                while data := await src.receive_some(65536):
                    record.extend(data)
                    await send.send((trio.current_time() + self.delay, data))

        async def writer() -> None:
            async with receive:
                async for due, data in receive:
                    await trio.sleep_until(due)
                    await dst.send_all(data)
                await dst.send_eof()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(reader)
            nursery.start_soon(writer)

    async def _serve(self, client: trio.SocketStream) -> None:
        if self.refusing:
            await client.aclose()
            return
        self.connections += 1
        scope = trio.CancelScope()
        self._scopes.append(scope)
        with scope:
            try:
                server = await trio.open_tcp_stream(*self.target)
            except OSError:
                await client.aclose()
                return
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._pipe, client, server, self.up)
                    nursery.start_soon(self._pipe, server, client, self.down)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
        self._scopes.remove(scope)
        for s in (client, server):
            with contextlib.suppress(Exception):
                s.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            await trio.aclose_forcefully(s)


@contextlib.asynccontextmanager
async def open_relay(target: tuple[str, int], delay: float = 0.0):
    relay = Relay(target, delay)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    relay.port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, relay._serve, listeners)
        try:
            yield relay
        finally:
            nursery.cancel_scope.cancel()
