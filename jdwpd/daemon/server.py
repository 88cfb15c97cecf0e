"""Accept debuggers: handshake, then one Session each, several at once on one VM.

The handshake tolerates a debugger that writes it a byte at a time, and a probe
that connects and closes (port scanners, IDE "is it up?" checks) costs a task
and nothing else: the listener never stops accepting.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import trio

from protocol.jdwp import NEED_DATA, ConnectionClosed, HandshakeDone, JdwpConnection, Role
from protocol.wire import ProtocolError

from .session import Session

log = logging.getLogger(__name__)

# A peer that connects and says nothing is dropped after this long; a real
# debugger sends its handshake at once.
HANDSHAKE_TIMEOUT = 30.0


async def handshake(stream: trio.abc.Stream, timeout: float = HANDSHAKE_TIMEOUT) -> JdwpConnection | None:
    """Read the debugger's JDWP-Handshake and answer it; None if the peer was not a debugger."""
    conn = JdwpConnection(Role.SERVER)
    with trio.move_on_after(timeout):
        while True:
            try:
                event = conn.next_event()
            except ProtocolError as e:
                log.info("refusing a peer: %s", e)
                return None
            if isinstance(event, HandshakeDone):
                await stream.send_all(conn.send_handshake())
                return conn
            if isinstance(event, ConnectionClosed):
                return None
            assert event is NEED_DATA
            conn.receive_data(await stream.receive_some(4096))
    return None


async def _serve_one(stream: trio.SocketStream, vm: Any, dialed: bool = False) -> bool:
    """dialed: we connected to this debugger; it speaks first all the same (JDWP's handshake).
    False if the peer was no debugger."""
    try:
        peer = stream.socket.getpeername()
        peer_name = f"{peer[0]}:{peer[1]}"
    except OSError:
        peer_name = "?"
    try:
        conn = await handshake(stream)
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        conn = None
    if conn is None:
        if dialed:
            log.warning("the debugger at %s did not complete the JDWP handshake", peer_name)
        await stream.aclose()
        return False
    log.info("debugger %s %s", "dialed at" if dialed else "attached from", peer_name)
    try:
        await Session(vm, stream, conn, peer=peer_name, dialed=dialed).run()
    except Exception:  # one debugger's failure must not stop the listener
        log.exception("session with %s failed", peer_name)
    log.info("debugger from %s left", peer_name)
    return True


async def serve_dialed(sock: socket.socket, vm: Any) -> bool:
    """Serve the debugger we connected to (the reference's server=n); False if it never shook hands."""
    return await _serve_one(trio.SocketStream(trio.socket.from_stdlib_socket(sock)), vm, dialed=True)


async def serve_jdwp(listeners: Sequence[trio.abc.Listener], vm: Any, *,
                     when_unattended: Callable[[], Awaitable[None]] | None = None,
                     task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """Serve debuggers on every listener until cancelled; when_unattended runs each time the last
    attached debugger has left a live VM."""

    async def handler(stream: trio.SocketStream) -> None:
        if await _serve_one(stream, vm) and when_unattended is not None and not vm.sessions and not vm.dead:
            await when_unattended()

    await trio.serve_listeners(handler, list(listeners), task_status=task_status)
