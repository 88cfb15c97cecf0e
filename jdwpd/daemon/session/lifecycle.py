"""One debugger's session: its connection, its tasks, and its end.

A session is four parts over one :class:`~jdwpd.daemon.fast.writer.Writer`: the reader (reading.py), the
command ordering (ordering.py), the replies (writing.py) and the event queue (event_queue.py).
This module starts them and ends them.

Leaving.  On Dispose or a closed socket the VM undoes this session's requests, suspensions and
pins (vm.detach); the VM runs on and another debugger may attach.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from protocol.jdwp import JdwpConnection

from ..fast.writer import Writer
from .event_queue import EventQueue
from .ordering import CommandOrder
from .reading import Reader
from .writing import DETACH_TIMEOUT, Replies

_session_numbers = itertools.count(1)


class Session:
    def __init__(self, vm: Any, stream: trio.abc.Stream, conn: JdwpConnection, *, peer: str = "",
                 dialed: bool = False) -> None:
        self.vm = vm
        self.stream = stream
        self.conn = conn
        self.peer = peer
        self.dialed = dialed  # we connected to this debugger (the reference's server=n)
        self.number = next(_session_numbers)
        self.saw_vm_death = False
        self.commands_read = 0
        self.commands_answered = 0  # by the session; its fast lane counts its own
        self.close_requested = False  # Dispose, or a debugger gone while we wrote
        self.reader_done = False
        self.nursery: trio.Nursery | None = None
        self.invoke_nursery: trio.Nursery | None = None
        self.writer = Writer(stream)
        self.replies = Replies(self)
        self.order = CommandOrder(self)
        self.events = EventQueue(self)
        self.reader = Reader(self)

    def __repr__(self) -> str:
        return f"<Session {self.number} {self.peer}>"

    async def run(self) -> None:
        try:
            # Invokes live in a nursery of their own: they hold up no other command.  When the
            # debugger goes, an invoke under way is not waited for (it may never end): vm.detach
            # tells the agent that its end gives back none of this session's suspensions
            # (INVOKE_DETACH), as the reference's detached invoke suspends nothing again.
            async with trio.open_nursery() as invokes:
                self.invoke_nursery = invokes
                try:
                    async with trio.open_nursery() as nursery:
                        self.nursery = nursery
                        nursery.start_soon(self.events.run)
                        nursery.start_soon(self.vm.attach, self)
                        await self.reader.run()
                        self.reader_done = True
                        # EOF or Dispose: commands still running lose their debugger.
                        nursery.cancel_scope.cancel()
                finally:
                    self.reader_done = True
                    invokes.cancel_scope.cancel()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self.events.nothing_more()
            # Undo even when cancelled, but never wait forever on an agent that stopped answering.
            with trio.CancelScope(shield=True), trio.move_on_after(DETACH_TIMEOUT):
                try:
                    if self.reader.lane is not None:
                        await self.reader.lane.stop()
                    await self.vm.detach(self)
                finally:
                    await self.stream.aclose()

    @property
    def closing(self) -> bool:
        return self.close_requested or self.reader_done

    def close_now(self) -> None:
        self.close_requested = True
        self.events.nothing_more()
        if self.nursery is not None:
            self.nursery.cancel_scope.cancel()

    async def _close(self) -> None:
        self.close_now()

    # ------------------------------------------------------------------ what the handlers and the VM ask of a session

    def close_after_reply(self, packet_id: int) -> None:
        """Dispose: the reply goes out, then the session ends."""
        self.replies.after_reply(packet_id, self._close)

    def after_reply(self, packet_id: int, action: Callable[[], Awaitable[None]]) -> None:
        self.replies.after_reply(packet_id, action)

    async def send_event(self, suspend_policy: int, events: tuple) -> None:
        await self.events.send_event(suspend_policy, events)

    async def drained(self) -> None:
        await self.events.drained()

    @property
    def events_sent(self) -> int:
        return self.events.sent

    def hold_events(self) -> None:
        self.events.hold()

    def release_events(self) -> None:
        self.events.release()

    def resumed_all(self) -> None:
        self.events.resumed_all()

    def flush_soon(self) -> None:
        """The fast lane wrote part of a reply (from its thread): the rest goes next, from a task."""
        self.reader.flush_soon()
