"""One JDWP connection, client side: the handshake, one reader task, replies by packet id, events.

    async with open_connection("127.0.0.1", 5005) as conn:
        version = await conn.command("VirtualMachine", "Version")
        policy, events = await conn.next_event(timeout=10)

Built on ``protocol/`` (``JdwpConnection(Role.CLIENT)`` for framing, ``messages`` for bodies), so
it speaks to any JDWP server.  Every wait has a timeout (``Timeout``); when the socket or the VM
goes away every pending and later wait raises ``VMDisconnected``.

It is also the raw client under the test kit (jdwpd/testing/client.py): packets sent as built
(``send_packet``, ``send_raw``) and their replies asked for later (``reply``), which needs a
connection that keeps what nobody waits for yet (``keep_unasked``); the kit raises its own errors
(a subclass names them: ``timeout_error``, ``disconnected_error``, ``reply_error``).
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import attrs
import trio

from protocol import messages, spec
from protocol.jdwp import NEED_DATA, ConnectionClosed, HandshakeDone, JdwpConnection, Role
from protocol.packets import CommandPacket, ReplyPacket
from protocol.wire import IDSizes

from .errors import HINTS, JdwpError, Timeout, VMDisconnected
from .pushed_stops import PushedStops

__all__ = ["Connection", "open_connection", "run_connection", "DEFAULT_COMMAND_TIMEOUT"]

#: How long a single command may wait for its reply unless told otherwise.
DEFAULT_COMMAND_TIMEOUT = 30.0
_EVENT_SET, _COMPOSITE = 64, 100
_GET_VALUES = spec.by_name("StackFrame", "GetValues")


@attrs.define(eq=False)
class _Pending:
    done: trio.Event = attrs.field(factory=trio.Event)
    reply: ReplyPacket | None = None


class Connection:
    """A JDWP client connection.  Made by ``open_connection`` (or ``run_connection`` on a stream);
    its reader runs in that nursery.

    ``keep_unasked``: replies that arrive before anyone waits for them (packets sent by
    ``send_packet`` or ``send_raw``, whose replies ``reply`` takes later) and commands from the VM
    other than Event.Composite (``other_commands``) are kept; otherwise they are dropped (the late
    reply of a cancelled wait).
    """

    #: What the waits raise: a timeout, the end of the connection, an error reply (code, command, hint).
    timeout_error: ClassVar[type[Exception]] = Timeout
    disconnected_error: ClassVar[type[Exception]] = VMDisconnected
    reply_error: ClassVar[type[JdwpError]] = JdwpError

    def __init__(self, stream: trio.abc.Stream, *, command_timeout: float = DEFAULT_COMMAND_TIMEOUT,
                 keep_unasked: bool = False) -> None:
        self.stream = stream
        self.sizes = IDSizes()
        self.command_timeout = command_timeout
        self._conn = JdwpConnection(Role.CLIENT)
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._unasked: dict[int, ReplyPacket] | None = {} if keep_unasked else None
        #: Commands from the VM that are not Event.Composite (kept with ``keep_unasked``).
        self.other_commands: list[CommandPacket] = []
        self._send_lock = trio.Lock()
        self._events_send, self._events_recv = trio.open_memory_channel[tuple[int, tuple]](math.inf)
        self.closed = trio.Event()
        #: Why the connection ended (an exception), or None while it is open or after a clean EOF.
        self.close_reason: BaseException | None = None
        #: Stops a jdwpd server pushes with their events (``push_stops``); None: every command is asked.
        self.pushed_stops: PushedStops | None = None

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
                        raise self.disconnected_error("the JDWP server closed the connection during the handshake")
                    self._conn.receive_data(await self.stream.receive_some(65536))
        except trio.TooSlowError:
            raise self.timeout_error(f"no JDWP handshake within {timeout}s: is that a JDWP port?") from None
        except (trio.BrokenResourceError, OSError) as e:
            raise self.disconnected_error(f"the connection broke during the handshake: {e}") from None

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
                    if pending is not None:
                        pending.reply = ev
                        pending.done.set()
                    elif self._unasked is not None:
                        self._unasked[ev.id] = ev
                elif isinstance(ev, CommandPacket):
                    if (ev.command_set, ev.command) == (_EVENT_SET, _COMPOSITE):
                        policy, events = messages.decode_composite(ev.data, self.sizes)
                        if self.pushed_stops is not None:
                            events = self.pushed_stops.file(events)
                        self._events_send.send_nowait((policy, events))
                    elif self._unasked is not None:
                        self.other_commands.append(ev)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as e:
            self.close_reason = e
        except Exception as e:  # a protocol error: the connection is unusable, say why
            self.close_reason = e
        finally:
            self._shut()

    async def _learn_id_sizes(self, timeout: float) -> None:
        r = await self.command("VirtualMachine", "IDSizes", timeout=timeout)
        self.sizes = IDSizes(r.field_idsize, r.method_idsize, r.object_idsize, r.reference_type_idsize,
                             r.frame_idsize)

    def _shut(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        self._events_send.close()
        for pending in self._pending.values():
            pending.done.set()
        self._pending.clear()

    def _disconnected(self, what: str) -> Exception:
        why = f" ({self.close_reason})" if self.close_reason else ""
        return self.disconnected_error(f"the VM disconnected{why} while waiting for {what}")

    # ------------------------------------------------------------------ commands

    async def command(self, set_name: str, cmd_name: str, fields: Any = None, /, *,
                      timeout: float | None = None, **kw: Any) -> Any:
        """Send a command and return its decoded reply (fields as keywords in snake_case).

        Raises ``JdwpError`` for an error reply, ``Timeout`` after ``timeout`` seconds (default:
        the connection's ``command_timeout``), ``VMDisconnected`` if the connection ends first.
        """
        code, reply = await self.command_raw(set_name, cmd_name, fields, timeout=timeout, **kw)
        if code:
            raise self.reply_error(code, spec.by_name(set_name, cmd_name).label, HINTS.get(code, ""))
        return reply

    async def command_raw(self, set_name: str, cmd_name: str, fields: Any = None, /, *,
                          timeout: float | None = None, **kw: Any) -> tuple[int, Any]:
        """``command`` without raising for an error reply: (error code, decoded reply or None).
        Fields as keywords, or one Mapping, tuple or message instance (positional-only, so a JDWP
        field may be called ``fields``)."""
        cs = spec.by_name(set_name, cmd_name)
        if kw and fields is not None:
            raise TypeError("pass fields either positionally or as keywords")
        if self.pushed_stops is not None and fields is None:
            return await self._from_pushed(self.pushed_stops, cs, kw, timeout)
        data = messages.encode_command(cs, kw if fields is None else fields, self.sizes)
        reply = await self.request(cs.set_id, cs.cmd_id, data, cs.label, timeout)
        if reply.error_code:
            return reply.error_code, None
        return 0, messages.decode_reply(cs, reply.data, self.sizes)

    async def _from_pushed(self, pushed: PushedStops, cs: spec.CommandSpec, fields: dict[str, Any],
                           timeout: float | None) -> tuple[int, Any]:
        """``command_raw`` where a stop the server pushed may answer (jdwpd/api/pushed_stops.py)."""
        body = pushed.answer(cs, fields)
        if body is not None:
            return 0, messages.decode_reply(cs, body, self.sizes)
        split = pushed.values(fields) if cs is _GET_VALUES else None
        if split is None:
            data = messages.encode_command(cs, fields, self.sizes)
            reply = await self.request(cs.set_id, cs.cmd_id, data, cs.label, timeout)
            if reply.error_code:
                return reply.error_code, None
            return 0, messages.decode_reply(cs, reply.data, self.sizes)
        known, rest = split
        asked = b""
        if rest:
            data = messages.encode_command(cs, {**fields, "slots": rest}, self.sizes)
            reply = await self.request(cs.set_id, cs.cmd_id, data, cs.label, timeout)
            if reply.error_code:
                return reply.error_code, None
            asked = reply.data
        return 0, messages.decode_reply(cs, pushed.merge(known, asked), self.sizes)

    def push_stops(self) -> PushedStops:
        """Answer from the stops a jdwpd server pushes (after its ``Jdwpd.PushStops(true)``): the
        caller sends that command once this returns."""
        if self.sizes != IDSizes(8, 8, 8, 8, 8):
            raise ValueError(f"pushed stops carry 8-byte IDs; this VM's are {self.sizes}")
        if self.pushed_stops is None:
            self.pushed_stops = PushedStops()
        return self.pushed_stops

    async def request(self, set_id: int, cmd_id: int, data: bytes, label: str,
                      timeout: float | None = None) -> ReplyPacket:
        """The raw form of ``command``: send bytes, return the reply packet (error codes included)."""
        if self.closed.is_set():
            raise self._disconnected(label)
        if self.pushed_stops is not None:
            self.pushed_stops.sent(set_id, cmd_id)
        packet_id = next(self._ids)
        pending = self._pending[packet_id] = _Pending()
        limit = self.command_timeout if timeout is None else timeout
        try:
            with trio.fail_after(limit):
                await self.send_packet(set_id, cmd_id, data, packet_id)
                await pending.done.wait()
        except trio.TooSlowError:
            raise self.timeout_error(f"{label}: no reply within {limit}s") from None
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            self._shut()
            raise self._disconnected(label) from None
        finally:
            self._pending.pop(packet_id, None)
        if pending.reply is None:
            raise self._disconnected(label)
        return pending.reply

    # ------------------------------------------------------------------ raw packets

    def next_packet_id(self) -> int:
        """A packet id nothing else will use (for packets written by hand and sent by ``send_raw``)."""
        return next(self._ids)

    async def send_packet(self, set_id: int, cmd_id: int, data: bytes = b"", packet_id: int | None = None) -> int:
        """Send one command packet as given, wait for nothing; return its id (its reply: ``reply``).
        The stream's errors come as they are."""
        packet_id = self.next_packet_id() if packet_id is None else packet_id
        await self.send_raw(self._conn.send(CommandPacket(packet_id, 0, set_id, cmd_id, data)))
        return packet_id

    async def send_raw(self, data: bytes) -> None:
        """Bytes as they are, past every codec (malformed packets, several packets in one write)."""
        async with self._send_lock:
            await self.stream.send_all(data)

    async def reply(self, packet_id: int, timeout: float | None = None) -> ReplyPacket:
        """The reply to a packet sent by ``send_packet`` or ``send_raw``, however long ago it came
        (a connection that ``keep_unasked``)."""
        if self._unasked is None:
            raise RuntimeError("reply() needs a connection made with keep_unasked=True")
        kept = self._unasked.pop(packet_id, None)
        if kept is not None:
            return kept
        what = f"the reply to packet {packet_id}"
        if self.closed.is_set():
            raise self._disconnected(what)
        pending = self._pending[packet_id] = _Pending()
        limit = self.command_timeout if timeout is None else timeout
        try:
            with trio.fail_after(limit):
                await pending.done.wait()
        except trio.TooSlowError:
            raise self.timeout_error(f"no reply to packet {packet_id} within {limit}s") from None
        finally:
            self._pending.pop(packet_id, None)
        if pending.reply is None:
            raise self._disconnected(what)
        return pending.reply

    # ------------------------------------------------------------------ events

    async def next_event(self, timeout: float | None = None) -> tuple[int, tuple]:
        """The next Event.Composite as (suspend_policy, events); ``timeout`` None waits for ever."""
        try:
            with trio.fail_after(math.inf if timeout is None else timeout):
                return await self._events_recv.receive()
        except trio.TooSlowError:
            raise self.timeout_error(f"no event within {timeout}s") from None
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise self._disconnected("an event") from None

    def pending_events(self) -> list[tuple[int, tuple]]:
        """The composites already received and not yet taken, without waiting."""
        out = []
        while True:
            try:
                out.append(self._events_recv.receive_nowait())
            except (trio.WouldBlock, trio.EndOfChannel):
                return out

    async def aclose(self) -> None:
        self._shut()
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self.stream.aclose()


@contextlib.asynccontextmanager
async def run_connection(conn: Connection, *, timeout: float = 30.0,
                         query_id_sizes: bool = True) -> AsyncIterator[Connection]:
    """Handshake on ``conn``'s stream (connected either way: a VM that dialled us too, the
    reference's server=n), learn the VM's ID sizes and run the reader until the block ends; the
    stream is closed at the end."""
    try:
        await conn._handshake(timeout)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conn._reader)
            if query_id_sizes:
                await conn._learn_id_sizes(timeout)
            try:
                yield conn
            finally:
                nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await conn.aclose()


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
    async with run_connection(Connection(stream, command_timeout=command_timeout), timeout=timeout) as conn:
        yield conn
