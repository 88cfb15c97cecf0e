"""A session's fast lane: a thread that reads the debugger's socket and answers from the reply memo.

A command the daemon answered before, whose answer cannot have changed (jdwpd/reply_memo.py),
costs the event loop nothing: this thread, blocked in poll() without the GIL, reads it, finds
the reply bytes and writes them.  That is the reference's own shape (one thread reads,
answers, writes) and skips trio's scheduler pass, the session's lanes and the dispatcher,
which together cost several times the answer itself.  Every other packet goes to the
session's reader unchanged, in order, through trio's run_sync_soon.

Ordering: the lane answers only while every command it handed on has been answered, so a
debugger that pipelines (a Resume, then a FrameCount) sees the same order as without the
lane.  It writes only when the session's write gate is free at once; otherwise, and when
anything is odd (a bad header, a VM gone, a session closing), the packet is handed on and
the session's own rules decide.  Backlog: at most MAX_BACKLOG bytes handed on but not yet
read by the session; past that the lane stops reading, as the session's reader would.
"""

from __future__ import annotations

import logging
import os
import select
import socket
import struct
import threading
from typing import Any

import trio

from protocol.packets import DEFAULT_MAX_PACKET_SIZE

from .reply_memo import MEMO_COMMANDS

log = logging.getLogger(__name__)

_HEADER = struct.Struct(">IIBBB")
_REPLY_HEADER = struct.Struct(">IIBH")
_HEADER_SIZE = 11
_REPLY_FLAG = 0x80
MAX_BACKLOG = 1 << 20
READ_SIZE = 65536


class FastLane:
    def __init__(self, sock: socket.socket, session: Any, token: trio.lowlevel.TrioToken, *,
                 forwarded: int) -> None:
        self._sock = sock
        self._session = session
        self._memo = session.vm.memo
        self._token = token
        # Commands handed to the session so far (those its reader had before the lane began
        # included): the lane answers only while the session has answered as many.
        self.forwarded = forwarded
        self.answered = 0
        self._buf = bytearray()
        self._passthrough = False
        self._backlog = 0
        self._room = threading.Condition()
        self._stopping = False
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._run, name=f"jdwpd-lane-{session.number}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    async def stop(self) -> None:
        """The lane reads and writes nothing more once this returns."""
        self._stopping = True
        with self._room:
            self._room.notify_all()
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass
        if self._thread.is_alive():
            await trio.to_thread.run_sync(self._thread.join)
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def consumed(self, n: int) -> None:
        """The session's reader took ``n`` bytes (on trio's thread)."""
        with self._room:
            self._backlog -= n
            if self._backlog <= MAX_BACKLOG:
                self._room.notify_all()

    # ------------------------------------------------------------------ the lane's thread

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self._sock.fileno(), select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        try:
            while not self._stopping:
                poller.poll()
                if self._stopping:
                    return
                try:
                    data = self._sock.recv(READ_SIZE)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    self._hand_on(b"")  # end of stream: the session ends as without the lane
                    return
                self._take(data)
        except trio.RunFinishedError:
            pass
        except Exception:  # the lane must never take the session down with it
            log.exception("fast lane of %r failed; its session loses its debugger", self._session)
            try:
                self._hand_on(b"")
            except trio.RunFinishedError:
                pass

    def _take(self, data: bytes) -> None:
        if self._passthrough:
            self._hand_on(data)
            return
        buf = self._buf
        buf += data
        pos, end_of_data = 0, len(buf)
        hand_from: int | None = None
        while end_of_data - pos >= _HEADER_SIZE:
            length, packet_id, flags, command_set, command = _HEADER.unpack_from(buf, pos)
            if length < _HEADER_SIZE or length > DEFAULT_MAX_PACKET_SIZE or flags not in (0, _REPLY_FLAG):
                self._passthrough = True  # the session's parser says what is wrong, as always
                break
            end = pos + length
            if end > end_of_data:
                break
            if (hand_from is None and flags == 0 and (command_set, command) in MEMO_COMMANDS
                    and self._answer(packet_id, command_set, command, bytes(buf[pos + _HEADER_SIZE:end]))):
                pos = end
                continue
            if hand_from is None:
                hand_from = pos
            if flags == 0:
                self.forwarded += 1
            pos = end
        if self._passthrough:
            self._hand_on(bytes(buf[pos if hand_from is None else hand_from:]))
            buf.clear()
            return
        if hand_from is not None:
            self._hand_on(bytes(buf[hand_from:pos]))
        del buf[:pos]

    def _answer(self, packet_id: int, command_set: int, command: int, data: bytes) -> bool:
        session = self._session
        if (self.forwarded != session.commands_answered or session.closing or self._stopping
                or session.vm.dead):
            return False
        body = self._memo.get((command_set, command, data))
        if body is None:
            return False
        gate = session.write_gate
        if not gate.take_nowait():
            return False
        packet = _REPLY_HEADER.pack(_HEADER_SIZE + len(body), packet_id, _REPLY_FLAG, 0) + body
        try:
            sent = self._sock.send(packet)
        except BlockingIOError:
            sent = 0
        except OSError:
            sent = -1
        if sent <= 0:  # a full socket or a gone peer: the session answers, and sees which
            gate.give_from_thread(self._token)
            return False
        if sent < len(packet):
            self._token.run_sync_soon(session.finish_lane_write, packet[sent:])  # gives the gate
        else:
            gate.give_from_thread(self._token)
        self.answered += 1
        return True

    def _hand_on(self, chunk: bytes) -> None:
        with self._room:
            while self._backlog > MAX_BACKLOG and not self._stopping:
                self._room.wait(0.5)
            self._backlog += len(chunk)
        self._token.run_sync_soon(self._session.lane_input, chunk)
