"""A session's reader: packets from the debugger, repeated questions answered before any decoding.

A command whose reply the VM's reply memo holds (jdwpd/daemon/fast/memo.py) is answered here, before
decoding, when every command before it has been answered; after ``lane_after_hits`` of those in a
row (jdwpd/daemon/fast/settings.py) the reader hands the socket to the session's fast lane
(jdwpd/daemon/fast/lane.py), which gives it back with the first command it cannot answer.  Every other
command goes to the session's ordering (ordering.py).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import trio

from protocol.jdwp import NEED_DATA, ConnectionClosed
from protocol.packets import CommandPacket, ReplyPacket
from protocol.wire import ProtocolError

from ..fast.lane import FastLane
from ..fast.memo import MEMO_COMMANDS
from ..fast.rawio import RawStream
from ..fast.settings import FAST
from ..fast.writer import Wrote
from .stop_replies import STOP_COMMANDS, post_resume, reply_body, resume_to_post

if TYPE_CHECKING:  # pragma: no cover
    from .lifecycle import Session

log = logging.getLogger(__name__)


class Reader:
    def __init__(self, session: Session) -> None:
        self._session = session
        self._io = session.writer.io  # the debugger's socket, read and written without trio's passes
        self._io_in = self._io  # what the reader reads: the socket, or the fast lane's pair
        self.lane: FastLane | None = None
        self._lane_io: RawStream | None = None
        self._memo_hits_in_row = 0

    async def run(self) -> None:
        session = self._session
        conn = session.conn
        while not session.close_requested:
            try:
                event = conn.next_event()
            except ProtocolError as e:
                log.info("%r: dropping the connection: %s", session, e)
                return
            if event is NEED_DATA:
                data = await self._next_data()
                if data is None:
                    return
                conn.receive_data(data)
            elif isinstance(event, ConnectionClosed):
                return
            elif isinstance(event, CommandPacket):
                session.commands_read += 1
                key = (event.command_set, event.command)
                if key in MEMO_COMMANDS and self._answer_from_memo(event):
                    continue
                if key in STOP_COMMANDS and await self._answer_from_stop(event):
                    self._memo_hits_in_row = 0
                    continue
                self._memo_hits_in_row = 0
                await session.order.take(event)

    async def _next_data(self) -> bytes | bytearray | None:
        """The debugger's next bytes (b"" at its end; None once it is gone), from the socket or from
        the fast lane: the lane reads the socket after a run of memo answers, until a command it
        cannot answer, which it hands on with the socket (its hop would tax a run of VM commands)."""
        session = self._session
        lane = self.lane
        if lane is not None and self._io_in is not self._io and not lane.owns_socket:
            data = self._io_in.try_receive()  # first what the lane handed on, then the socket
            if data is not None:
                return data
            self._io_in = self._io
        elif (self._memo_hits_in_row >= FAST.lane_after_hits and self._io_in is self._io and self._io.raw
              and session.conn.at_packet_boundary and not session.close_requested):
            if lane is None:
                lane = self.lane = FastLane(self._io.socket, session, trio.lowlevel.current_trio_token(),
                                            session_read=session.commands_read)
                self._lane_io = RawStream(lane.inbound)
                lane.start()
            else:
                lane.reclaim(session.commands_read)
            assert self._lane_io is not None  # made with the lane
            self._io_in = self._lane_io
            self._memo_hits_in_row = 0
        try:
            return await self._io_in.receive_some(65536)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return None

    def _answer_from_memo(self, packet: CommandPacket) -> bool:
        """Answer from the reply memo here and now, as the fast lane would."""
        session = self._session
        vm = session.vm
        memo = vm.memo
        if (not memo.enabled or vm.dead or session.commands_read - 1 != session.commands_answered
                or not self._io.raw or session.replies.promised(packet.id)):
            return False
        body = memo.get((packet.command_set, packet.command, packet.data))
        if body is None:
            return False
        try:
            wrote = session.writer.write_now(session.conn.send(ReplyPacket(packet.id, 0x80, 0, body)))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            session.close_now()
            return True
        if wrote is Wrote.NONE:
            return False  # someone writes: the command goes the ordinary way, and waits its turn
        self._memo_hits_in_row += 1
        if wrote is Wrote.PART:  # the rest goes next, before anything else
            session.order.run_in_worker(lambda: session.replies.finish(b"", None))
        else:
            session.commands_answered += 1
        return True

    async def _answer_from_stop(self, packet: CommandPacket) -> bool:
        """Answer a stopped thread's Frames, GetValues or Resume from its stop's reads ahead
        (stop_replies.py), here and now, when every command before it has been answered."""
        session = self._session
        if (session.vm.dead or session.commands_read - 1 != session.commands_answered or not self._io.raw
                or session.replies.promised(packet.id)):
            return False
        resumed = resume_to_post(session, packet)
        if resumed is not None:
            # The reply first, then the resume: posted first, the resume wakes the agent, whose thread
            # may take this CPU (two cores, three processes) until the VM's next event, and the
            # debugger's reply would wait that long.  Nothing else of this debugger's is read before the
            # resume is posted, and the agent runs requests in order.
            self._write_reply(packet, b"")
            await post_resume(session, resumed)
            return True
        body = reply_body(session, packet)
        if body is None:
            return False
        self._write_reply(packet, body)
        return True

    def _write_reply(self, packet: CommandPacket, body: bytes) -> None:
        session = self._session
        data = session.conn.send(ReplyPacket(packet.id, 0x80, 0, body))
        try:
            wrote = session.writer.write_now(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            session.close_now()
            return
        if wrote is Wrote.ALL:
            session.commands_answered += 1
        else:  # the rest (PART), or all of it (NONE: someone writes), in order from a worker
            rest = b"" if wrote is Wrote.PART else data
            session.order.run_in_worker(lambda: session.replies.finish(rest, None))

    def flush_soon(self) -> None:
        """On trio's thread, for the fast lane: it wrote part of a reply, whose rest waits first in line."""
        nursery = self._session.nursery
        try:
            if nursery is None:
                raise RuntimeError("no session yet")
            nursery.start_soon(self._flush)
        except RuntimeError:  # the session is over: nothing more goes to this debugger
            self._session.writer.discard()

    async def _flush(self) -> None:
        try:
            await self._session.writer.flush()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._session.close_now()
