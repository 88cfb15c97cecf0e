"""A session's replies: written at once where they are ready, else in order by a task of the session.

Every write goes through the session's one :class:`~jdwpd.daemon.fast.writer.Writer` (shared with its
events and its fast lane).  A debugger that went away ends the session instead of raising.
What a reply promised (Exit's exit, Dispose's end) runs after the reply is written.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import trio

from protocol.packets import CommandPacket

from ..fast.writer import Wrote

if TYPE_CHECKING:  # pragma: no cover
    from .lifecycle import Session

DETACH_TIMEOUT = 10.0


class Replies:
    def __init__(self, session: Session) -> None:
        self._session = session
        self._after_reply: dict[int, list[Callable[[], Awaitable[None]]]] = {}

    def after_reply(self, packet_id: int, action: Callable[[], Awaitable[None]]) -> None:
        self._after_reply.setdefault(packet_id, []).append(action)

    def promised(self, packet_id: int) -> bool:
        """Something runs after this reply: it must go through answer()."""
        return packet_id in self._after_reply

    async def answer(self, packet: CommandPacket, reply: Any) -> None:
        session = self._session
        await self.send(session.conn.send(reply))
        session.commands_answered += 1
        actions = self._after_reply.pop(packet.id, ())
        if actions:
            # What the reply promised happens even when the debugger leaves at once: its leaving
            # cancels the running commands, and the undo that follows would otherwise let the VM
            # run on.
            with trio.CancelScope(shield=True), trio.move_on_after(DETACH_TIMEOUT):
                for action in actions:
                    await action()

    async def send(self, data: bytes) -> None:
        """Write one packet (or several), after everything queued before it."""
        try:
            await self._session.writer.write(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._session.close_now()
            await trio.lowlevel.checkpoint()  # we are cancelled now

    def answer_soon(self, packet: CommandPacket, reply: Any, done: trio.Event) -> None:
        """Answer from here, in whatever task this is, if nobody writes and the reply fits; else a
        worker of the session sees it through.  done is set once the reply is out."""
        session = self._session
        if packet.id in self._after_reply:
            session.order.run_in_worker(lambda: self._answer_then_done(packet, reply, done))
            return
        data = session.conn.send(reply)
        try:
            wrote = session.writer.write_now(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            session.close_now()
            done.set()
            return
        if wrote is Wrote.ALL:
            session.commands_answered += 1
            done.set()
        else:  # the rest (PART), or all of it (NONE), goes in order from a worker
            session.order.run_in_worker(lambda: self.finish(b"" if wrote is Wrote.PART else data, done))

    async def finish(self, data: bytes, done: trio.Event | None) -> None:
        """Write a reply's bytes (b"": the rest a write_now left first in line) and count it answered."""
        try:
            await self._session.writer.write(data)
            self._session.commands_answered += 1
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._session.close_now()
        finally:
            if done is not None:
                done.set()

    async def _answer_then_done(self, packet: CommandPacket, reply: Any, done: trio.Event) -> None:
        try:
            await self.answer(packet, reply)
        finally:
            done.set()
