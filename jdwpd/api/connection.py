"""One JDWP connection, client side: the handshake, one reader task, replies by packet id, events.

    async with open_connection("127.0.0.1", 5005) as conn:
        version = await conn.command("VirtualMachine", "Version")
        policy, events = await conn.next_event(timeout=10)

Built on ``protocol/`` (``JdwpConnection(Role.CLIENT)`` for framing, ``messages`` for bodies), so
it speaks to any JDWP server.  Every wait has a timeout (``Timeout``); when the socket or the VM
goes away every pending and later wait raises ``VMDisconnected``.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import AsyncIterator
from typing import Any

import attrs
import trio

from protocol import messages, spec
from protocol.jdwp import NEED_DATA, ConnectionClosed, HandshakeDone, JdwpConnection, Role
from protocol.packets import CommandPacket, ReplyPacket
from protocol.wire import IDSizes

from .errors import HINTS, JdwpError, Timeout, VMDisconnected

__all__ = ["Connection", "open_connection", "DEFAULT_COMMAND_TIMEOUT"]

#: How long a single command may wait for its reply unless told otherwise.
DEFAULT_COMMAND_TIMEOUT = 30.0
_EVENT_SET, _COMPOSITE = 64, 100


@attrs.define(eq=False)
class _Pending:
    done: trio.Event = attrs.field(factory=trio.Event)
    reply: ReplyPacket | None = None


class Connection:
    """A JDWP client connection.  Made by ``open_connection``; its reader runs in that nursery."""

    def __init__(self, stream: trio.abc.Stream, *, command_timeout: float = DEFAULT_COMMAND_TIMEOUT) -> None:
        self.stream = stream
        self.sizes = IDSizes()
        self.command_timeout = command_timeout
        self._conn = JdwpConnection(Role.CLIENT)
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._send_lock = trio.Lock()
        self._events_send, self._events_recv = trio.open_memory_channel[tuple[int, tuple]](math.inf)
        self.closed = trio.Event()
        #: Why the connection ended (an exception), or None while it is open or after a clean EOF.
        self.close_reason: BaseException | None = None

    # ------------------------------------------------------------------ lifecycle

    async def _handshake(self, timeout: float) -> None:
        try:
            with trio.fail_after(timeout):
                await self.stream.send_all(self._conn.send_handshake())
                while True:
                    ev = self._conn.next_event()
                    if isinstance(ev, HandshakeDone):
                        return
                    if isinstance(ev, ConnectionClosed):
                        raise VMDisconnected("the JDWP server closed the connection during the handshake")
                    self._conn.receive_data(await self.stream.receive_some(65536))
        except trio.TooSlowError:
            raise Timeout(f"no JDWP handshake within {timeout}s: is that a JDWP port?") from None
        except (trio.BrokenResourceError, OSError) as e:
            raise VMDisconnected(f"the connection broke during the handshake: {e}") from None

    async def _reader(self) -> None:
        try:
            while True:
                ev = self._conn.next_event()
                if ev is NEED_DATA:
                    self._conn.receive_data(await self.stream.receive_some(65536))
                elif isinstance(ev, ConnectionClosed):
                    return
                elif isinstance(ev, ReplyPacket):
                    pending = self._pending.pop(ev.id, None)
                    if pending is not None:  # a reply nobody waits for any more (a cancelled wait)
                        pending.reply = ev
                        pending.done.set()
                elif isinstance(ev, CommandPacket) and (ev.command_set, ev.command) == (_EVENT_SET, _COMPOSITE):
                    self._events_send.send_nowait(messages.decode_composite(ev.data, self.sizes))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as e:
            self.close_reason = e
        except Exception as e:  # a protocol error: the connection is unusable, say why
            self.close_reason = e
        finally:
            self._shut()

    def _shut(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        self._events_send.close()
        for pending in self._pending.values():
            pending.done.set()
        self._pending.clear()

    def _disconnected(self, what: str) -> VMDisconnected:
        why = f" ({self.close_reason})" if self.close_reason else ""
        return VMDisconnected(f"the VM disconnected{why} while waiting for {what}")

    # ------------------------------------------------------------------ commands

    async def command(self, set_name: str, cmd_name: str, fields: Any = None, /, *,
                      timeout: float | None = None, **kw: Any) -> Any:
        """Send a command and return its decoded reply (fields as keywords in snake_case).

        Raises ``JdwpError`` for an error reply, ``Timeout`` after ``timeout`` seconds (default:
        the connection's ``command_timeout``), ``VMDisconnected`` if the connection ends first.
        """
        cs = spec.by_name(set_name, cmd_name)
        data = messages.encode_command(cs, kw if fields is None else fields, self.sizes)
        reply = await self.request(cs.set_id, cs.cmd_id, data, cs.label, timeout)
        if reply.error_code:
            raise JdwpError(reply.error_code, cs.label, HINTS.get(reply.error_code, ""))
        return messages.decode_reply(cs, reply.data, self.sizes)

    async def request(self, set_id: int, cmd_id: int, data: bytes, label: str,
                      timeout: float | None = None) -> ReplyPacket:
        """The raw form of ``command``: send bytes, return the reply packet (error codes included)."""
        if self.closed.is_set():
            raise self._disconnected(label)
        packet_id = next(self._ids)
        pending = self._pending[packet_id] = _Pending()
        limit = self.command_timeout if timeout is None else timeout
        try:
            with trio.fail_after(limit):
                async with self._send_lock:
                    await self.stream.send_all(self._conn.send(CommandPacket(packet_id, 0, set_id, cmd_id, data)))
                await pending.done.wait()
        except trio.TooSlowError:
            raise Timeout(f"{label}: no reply within {limit}s") from None
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            self._shut()
            raise self._disconnected(label) from None
        finally:
            self._pending.pop(packet_id, None)
        if pending.reply is None:
            raise self._disconnected(label)
        return pending.reply

    # ------------------------------------------------------------------ events

    async def next_event(self, timeout: float | None = None) -> tuple[int, tuple]:
        """The next Event.Composite as (suspend_policy, events); ``timeout`` None waits for ever."""
        try:
            with trio.fail_after(math.inf if timeout is None else timeout):
                return await self._events_recv.receive()
        except trio.TooSlowError:
            raise Timeout(f"no event within {timeout}s") from None
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise self._disconnected("an event") from None

    async def aclose(self) -> None:
        self._shut()
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self.stream.aclose()


@contextlib.asynccontextmanager
async def open_connection(host: str, port: int, *, timeout: float = 30.0,
                          command_timeout: float = DEFAULT_COMMAND_TIMEOUT) -> AsyncIterator[Connection]:
    """Connect, handshake, learn the VM's ID sizes and run the reader until the block ends."""
    try:
        with trio.fail_after(timeout):
            stream = await trio.open_tcp_stream(host, port)
    except trio.TooSlowError:
        raise Timeout(f"could not connect to {host}:{port} within {timeout}s") from None
    except OSError as e:
        raise VMDisconnected(f"could not connect to {host}:{port}: {e.strerror or e}") from None
    conn = Connection(stream, command_timeout=command_timeout)
    try:
        await conn._handshake(timeout)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conn._reader)
            r = await conn.command("VirtualMachine", "IDSizes", timeout=timeout)
            conn.sizes = IDSizes(r.field_idsize, r.method_idsize, r.object_idsize, r.reference_type_idsize,
                                 r.frame_idsize)
            try:
                yield conn
            finally:
                nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await conn.aclose()
