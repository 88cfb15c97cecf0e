"""A TCP relay for the remote link's tests and bench: records every byte, delays each direction by a
fixed latency (chunks keep their order and spacing: latency, not bandwidth), cuts the link on demand.
"""

from __future__ import annotations

import contextlib
import socket

import attrs
import trio


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
