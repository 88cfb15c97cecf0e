"""A raw trio JDWP client for tests: commands by name, events as decoded composites, raw bytes for fuzzing.

    async with open_jdwp_client("127.0.0.1", port) as c:
        version = await c.command("VirtualMachine", "Version")
        code, reply = await c.command_raw("ReferenceType", "Signature", ref_type=12345)
        policy, events = await c.next_event(timeout=10)

Many commands may be in flight at once: one reader task files each reply under
its packet id.  Every wait has a timeout (trio.TooSlowError when it passes).
The codecs are protocol/'s (JdwpConnection for framing and the handshake,
messages for bodies), so this client exercises them from the debugger's side.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import traceback
from collections.abc import AsyncIterator
from typing import Any

import trio

from protocol import messages, spec
from protocol.constants import ErrorCode, EventKind, ModKind, SuspendPolicy, TypeTag
from protocol.jdwp import NEED_DATA, ConnectionClosed, HandshakeDone, JdwpConnection, Role
from protocol.packets import CommandPacket, ReplyPacket
from protocol.wire import IDSizes

__all__ = ["JdwpClient", "JdwpReplyError", "JdwpClosedError", "open_jdwp_client", "DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 30.0
EVENT_SET, COMPOSITE_CMD = 64, 100


class JdwpReplyError(Exception):
    """The server answered a command with a non-zero error code."""

    def __init__(self, code: int, label: str) -> None:
        try:
            name = ErrorCode(code).name
        except ValueError:
            name = f"error {code}"
        super().__init__(f"{label}: {name} ({code})")
        self.code = code
        self.label = label


class JdwpClosedError(Exception):
    """The connection ended while we were waiting for something on it."""


class JdwpClient:
    def __init__(self, stream: trio.abc.Stream, *, sizes: IDSizes | None = None) -> None:
        self.stream = stream
        self.sizes = sizes or IDSizes()
        self.conn = JdwpConnection(Role.CLIENT)
        self._ids = itertools.count(1)
        self._replies: dict[int, ReplyPacket] = {}
        self._reply_arrived = trio.Condition()
        self._event_send, self._event_recv = trio.open_memory_channel(math.inf)
        self.other_commands: list[CommandPacket] = []  # commands from the VM that are not composites
        self.closed = trio.Event()
        self.close_reason: BaseException | None = None
        self._send_lock = trio.Lock()

    # ---------------------------------------------------------------- reader

    async def _handshake(self, timeout: float) -> None:
        with trio.fail_after(timeout):
            await self.stream.send_all(self.conn.send_handshake())
            while True:
                ev = self.conn.next_event()
                if isinstance(ev, HandshakeDone):
                    return
                if isinstance(ev, ConnectionClosed):
                    raise JdwpClosedError("connection closed during the handshake")
                data = await self.stream.receive_some(65536)
                self.conn.receive_data(data)

    async def _reader(self) -> None:
        try:
            while True:
                ev = self.conn.next_event()
                if ev is NEED_DATA:
                    data = await self.stream.receive_some(65536)
                    self.conn.receive_data(data)
                    continue
                if isinstance(ev, ConnectionClosed):
                    return
                if isinstance(ev, ReplyPacket):
                    async with self._reply_arrived:
                        self._replies[ev.id] = ev
                        self._reply_arrived.notify_all()
                elif isinstance(ev, CommandPacket):
                    if (ev.command_set, ev.command) == (EVENT_SET, COMPOSITE_CMD):
                        self._event_send.send_nowait(messages.decode_composite(ev.data, self.sizes))
                    else:
                        self.other_commands.append(ev)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
            self.close_reason = e
        except Exception as e:  # a protocol error from the server is a finding: keep it for the test
            self.close_reason = e
        finally:
            self.closed.set()
            self._event_send.close()
            async with self._reply_arrived:
                self._reply_arrived.notify_all()

    # ---------------------------------------------------------------- commands

    async def send_packet(self, set_id: int, cmd_id: int, data: bytes = b"", packet_id: int | None = None) -> int:
        """Send one command packet; return its id (see ``reply``)."""
        pid = next(self._ids) if packet_id is None else packet_id
        async with self._send_lock:
            await self.stream.send_all(self.conn.send(CommandPacket(pid, 0, set_id, cmd_id, data)))
        return pid

    async def send_raw(self, data: bytes) -> None:
        """Bytes as they are, past every codec (fuzzing, malformed packets)."""
        async with self._send_lock:
            await self.stream.send_all(data)

    def next_id(self) -> int:
        return next(self._ids)

    async def reply(self, packet_id: int, timeout: float = DEFAULT_TIMEOUT) -> ReplyPacket:
        """The reply packet to ``packet_id``."""
        with trio.fail_after(timeout):
            async with self._reply_arrived:
                while packet_id not in self._replies:
                    if self.closed.is_set():
                        raise JdwpClosedError(f"connection closed before the reply to packet {packet_id}: "
                                              f"{self.describe_close()}")
                    await self._reply_arrived.wait()
                return self._replies.pop(packet_id)

    async def command_raw(self, set_name: str, cmd_name: str, fields: Any = None, /, *,
                          timeout: float = DEFAULT_TIMEOUT, **kw: Any) -> tuple[int, Any]:
        """(error code, decoded reply or None).  Fields as keywords, or one Mapping/tuple/instance.

        The leading parameters are positional-only, so a JDWP field may be called ``fields``.
        """
        cs = spec.by_name(set_name, cmd_name)
        if kw:
            if fields is not None:
                raise TypeError("pass fields either positionally or as keywords")
            fields = kw
        data = messages.encode_command(cs, fields if fields is not None else {}, self.sizes)
        pid = await self.send_packet(cs.set_id, cs.cmd_id, data)
        reply = await self.reply(pid, timeout)
        if reply.error_code:
            return reply.error_code, None
        return 0, messages.decode_reply(cs, reply.data, self.sizes)

    async def command(self, set_name: str, cmd_name: str, fields: Any = None, /, *,
                      timeout: float = DEFAULT_TIMEOUT, **kw: Any) -> Any:
        """The decoded reply; ``JdwpReplyError(code)`` on an error reply."""
        code, reply = await self.command_raw(set_name, cmd_name, fields, timeout=timeout, **kw)
        if code:
            raise JdwpReplyError(code, f"{set_name}.{cmd_name}")
        return reply

    # ---------------------------------------------------------------- events

    async def next_event(self, timeout: float = DEFAULT_TIMEOUT) -> tuple[int, tuple]:
        """The next Event.Composite: (suspend_policy, events)."""
        with trio.fail_after(timeout):
            try:
                return await self._event_recv.receive()
            except trio.EndOfChannel:
                reason = self.describe_close()
                raise JdwpClosedError(f"connection closed while waiting for an event: {reason}") from None

    def pending_events(self) -> list[tuple[int, tuple]]:
        """Composites already received and not yet taken, without waiting."""
        out = []
        while True:
            try:
                out.append(self._event_recv.receive_nowait())
            except (trio.WouldBlock, trio.EndOfChannel):
                return out

    async def wait_for_event(self, kind: int, timeout: float = DEFAULT_TIMEOUT) -> tuple[int, tuple]:
        """Skip composites until one holds an event of ``kind``; return that composite."""
        with trio.fail_after(timeout):
            while True:
                policy, events = await self.next_event(timeout)
                if any(int(e.event_kind) == int(kind) for e in events):
                    return policy, events

    async def run_to_prepare(self, pattern: str, timeout: float = DEFAULT_TIMEOUT) -> Any:
        """From VMStart: resume until a class matching ``pattern`` is prepared (the VM held there,
        the request cleared); its ClassPrepare event."""
        kind = EventKind.CLASS_PREPARE
        prepare = await self.command("EventRequest", "Set", event_kind=kind, suspend_policy=SuspendPolicy.ALL,
                                     modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": pattern}])
        await self.command("VirtualMachine", "Resume")
        _, events = await self.wait_for_event(kind, timeout)
        await self.command("EventRequest", "Clear", event_kind=kind, request_id=prepare.request_id)
        return next(e for e in events if int(e.event_kind) == kind)

    async def line_location(self, class_id: int, method: str, line: int) -> dict:
        """The first code index of ``line`` in the class's ``method``, as a breakpoint's location."""
        methods = (await self.command("ReferenceType", "Methods", ref_type=class_id)).declared
        method_id = next(m for m in methods if m.name == method).method_id
        table = await self.command("Method", "LineTable", ref_type=class_id, method_id=method_id)
        index = min(r.line_code_index for r in table.lines if r.line_number == line)
        return {"type_tag": TypeTag.CLASS, "class_id": class_id, "method_id": method_id, "index": index}

    async def break_once(self, class_id: int, method: str, line: int) -> Any:
        """A SUSPEND_ALL breakpoint at ``line`` of the class's ``method`` that fires once (Count 1)."""
        loc = await self.line_location(class_id, method, line)
        return await self.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                  suspend_policy=SuspendPolicy.ALL,
                                  modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc},
                                             {"mod_kind": ModKind.COUNT, "count": 1}])

    def describe_close(self) -> str:
        if self.close_reason is None:
            return "the server closed it"
        return "".join(traceback.format_exception(self.close_reason))

    async def wait_closed(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        with trio.fail_after(timeout):
            await self.closed.wait()

    async def aclose(self) -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await self.stream.aclose()


@contextlib.asynccontextmanager
async def open_jdwp_client(host: str, port: int, *, timeout: float = DEFAULT_TIMEOUT,
                           query_id_sizes: bool = True) -> AsyncIterator[JdwpClient]:
    """Connect, handshake, (ask the VM's ID sizes), run the reader; close everything at exit."""
    with trio.fail_after(timeout):
        stream = await trio.open_tcp_stream(host, port)
    async with jdwp_client_on(stream, timeout=timeout, query_id_sizes=query_id_sizes) as client:
        yield client


@contextlib.asynccontextmanager
async def jdwp_client_on(stream: trio.abc.Stream, *, timeout: float = DEFAULT_TIMEOUT,
                         query_id_sizes: bool = True) -> AsyncIterator[JdwpClient]:
    """A client on a connected stream, also one a VM connected to (the reference's server=n): the
    debugger speaks first either way."""
    client = JdwpClient(stream)
    try:
        await client._handshake(timeout)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client._reader)
            if query_id_sizes:
                r = await client.command("VirtualMachine", "IDSizes", timeout=timeout)
                client.sizes = IDSizes(r.field_idsize, r.method_idsize, r.object_idsize,
                                       r.reference_type_idsize, r.frame_idsize)
            try:
                yield client
            finally:
                nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await client.aclose()
