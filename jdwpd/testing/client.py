"""A raw trio JDWP client for tests: commands by name, events as decoded composites, raw bytes for fuzzing.

    async with open_jdwp_client("127.0.0.1", port) as c:
        version = await c.command("VirtualMachine", "Version")
        code, reply = await c.command_raw("ReferenceType", "Signature", ref_type=12345)
        policy, events = await c.next_event(timeout=10)

The API's connection (jdwpd/api/connection.py) does the work: framing, the handshake, one reader
task filing each reply under its packet id, events, the errors.  This client keeps what nobody
asked for yet (a reply to a packet sent by hand, ``send_packet``/``send_raw`` then ``reply``;
commands from the VM other than composites), raises what tests expect (trio.TooSlowError when a
wait's timeout passes, 30 s unless told; ``JdwpClosedError``; ``JdwpReplyError``), and adds the
steps tests repeat (``wait_for_event``, ``run_to_prepare``, ``break_once``, ``resume_to_exit``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import trio

from jdwpd.api.connection import Connection, run_connection
from jdwpd.api.errors import JdwpError, VMDisconnected
from protocol.constants import ErrorCode, EventKind, ModKind, SuspendPolicy, TypeTag
from protocol.wire import IDSizes

__all__ = ["JdwpClient", "JdwpReplyError", "JdwpClosedError", "open_jdwp_client", "jdwp_client_on",
           "DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 30.0


class JdwpReplyError(JdwpError):
    """The server answered a command with a non-zero error code (``code``)."""

    @property
    def label(self) -> str:
        """The command, ``Set.Command``."""
        return self.command


class JdwpClosedError(VMDisconnected):
    """The connection ended while we were waiting for something on it."""


class JdwpClient(Connection):
    """The API's connection keeping what nobody asked for yet, raising the test kit's errors."""

    timeout_error = trio.TooSlowError
    disconnected_error = JdwpClosedError
    reply_error = JdwpReplyError

    def __init__(self, stream: trio.abc.Stream, *, sizes: IDSizes | None = None) -> None:
        super().__init__(stream, command_timeout=DEFAULT_TIMEOUT, keep_unasked=True)
        if sizes is not None:
            self.sizes = sizes

    async def next_event(self, timeout: float | None = DEFAULT_TIMEOUT) -> tuple[int, tuple]:
        """The next Event.Composite: (suspend_policy, events); ``timeout`` None waits for ever."""
        return await super().next_event(timeout)

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

    async def resume_to_exit(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Resume the VM, and every event set that still arrives, until VMDeath or the connection ends.

        After a test clears its requests, an event posted just before the Clear can still arrive and
        hold the VM again; one Resume is then not enough for the program to end.  A VM that runs may also
        have ended before a Resume: the reference's connection is then gone, jdwpd's daemon (which outlives
        its JVM a moment) answers VM_DEAD; either is the end."""
        with trio.fail_after(timeout):
            try:
                await self.command("VirtualMachine", "Resume")
                while True:
                    policy, events = await self.next_event(timeout)
                    if any(int(e.event_kind) == EventKind.VM_DEATH for e in events):
                        return
                    if policy != SuspendPolicy.NONE:
                        await self.command("VirtualMachine", "Resume")
            except JdwpClosedError:
                return
            except JdwpReplyError as e:
                if e.code != ErrorCode.VM_DEAD:
                    raise

    async def wait_closed(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        with trio.fail_after(timeout):
            await self.closed.wait()


@contextlib.asynccontextmanager
async def open_jdwp_client(host: str, port: int, *, timeout: float = DEFAULT_TIMEOUT,
                           query_id_sizes: bool = True) -> AsyncIterator[JdwpClient]:
    """Connect, handshake, (ask the VM's ID sizes), run the reader; close everything at exit.
    A refused connection is the OSError as it comes."""
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
    async with run_connection(client, timeout=timeout, query_id_sizes=query_id_sizes):
        yield client
