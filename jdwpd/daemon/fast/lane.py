"""A session's fast lane: a thread that reads the debugger's socket and answers from the reply memo.

A command the daemon answered before, whose answer cannot have changed (jdwpd/daemon/fast/memo.py),
need not cost the event loop anything: this thread, blocked in poll() without the GIL, reads
it, finds the reply bytes and writes them.  That is the reference's own shape (one thread
reads, answers, writes) and skips trio's scheduler pass, the session's lanes and the
dispatcher, which together cost more than the answer itself.

Who reads.  The session's reader starts the lane after two memo answers in a row and hands it
the socket (at a packet boundary).  At the first packet the lane cannot answer, it gives that
packet and every byte after it to the reader, through a socket pair the reader is waiting on,
and the socket with them: the reader drains the pair, then reads the socket itself until memo
answers come in a row again.  So a run of commands that need the VM pays no extra thread hop
(measured: 30-50 us per command when every command crossed the lane).

Ordering: the lane answers only while every command the session read has been answered, so a
debugger that pipelines (a Resume, then a FrameCount) sees the same order as without the
lane.  It writes only when the session's writer is free at once (writer.py); otherwise, and when
anything is odd (a bad header, a VM gone, a session closing), it gives the socket back and the
session's own rules decide.
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

from . import spin
from .memo import MEMO_COMMANDS
from .settings import FAST
from .writer import Wrote

log = logging.getLogger(__name__)

_HEADER = struct.Struct(">IIBBB")
_REPLY_HEADER = struct.Struct(">IIBH")
_HEADER_SIZE = 11
_REPLY_FLAG = 0x80
READ_SIZE = 65536


class FastLane:
    def __init__(self, sock: socket.socket, session: Any, token: trio.lowlevel.TrioToken, *,
                 session_read: int) -> None:
        self._sock = sock
        self._session = session
        self._memo = session.vm.memo
        self._writer = session.writer
        self._token = token
        # Commands the session's reader had read when it gave the lane the socket: the lane answers
        # only while the session has answered as many (nothing of its own still waits).
        self.session_read = session_read
        self.answered = 0
        self._buf = bytearray()
        self._owns = True  # the lane reads the debugger's socket (else the session does)
        self._stopping = False
        self._out, inbound = socket.socketpair()
        self._out.setblocking(True)  # a full pair holds the lane back: that is the backlog's bound
        # What the session reads instead of the debugger's socket.
        self.inbound = trio.SocketStream(trio.socket.from_stdlib_socket(inbound))
        self._wake_r, self._wake_w = os.pipe()
        self._spin_ns = FAST.spin_us * 1000
        self._thread = threading.Thread(target=self._run, name=f"jdwpd-lane-{session.number}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    async def stop(self) -> None:
        """The lane reads and writes nothing more once this returns."""
        self._stopping = True
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass
        await self.inbound.aclose()  # a lane blocked on a full pair fails out of its write
        if self._thread.is_alive():
            await trio.to_thread.run_sync(self._thread.join)
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self._out.close()

    # ------------------------------------------------------------------ who reads the socket

    @property
    def owns_socket(self) -> bool:
        return self._owns

    def reclaim(self, commands_read: int) -> None:
        """The session gives the socket back, at a packet boundary (on trio's thread, the lane idle)."""
        self.session_read = commands_read
        self._owns = True
        try:
            os.write(self._wake_w, b"r")
        except OSError:
            pass

    # ------------------------------------------------------------------ the lane's thread

    def _run(self) -> None:
        reading = select.poll()
        reading.register(self._sock.fileno(), select.POLLIN)
        reading.register(self._wake_r, select.POLLIN)
        idle = select.poll()
        idle.register(self._wake_r, select.POLLIN)
        try:
            while not self._stopping:
                if self._owns:  # the next command of a burst is due at once (jdwpd/daemon/fast/spin.py)
                    spin.until_readable(self._sock.fileno(), self._spin_ns)
                ready = (reading if self._owns else idle).poll()
                if self._stopping:
                    return
                if any(fd == self._wake_r for fd, _ in ready):
                    os.read(self._wake_r, 64)
                if not self._owns:
                    continue
                try:
                    data = self._sock.recv(READ_SIZE)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    return  # end of stream: the session's reader hears it (below)
                self._take(data)
        except (OSError, trio.RunFinishedError):
            pass  # the session is gone (its end of the pair closed)
        except Exception:  # the lane must never take the session down with it
            log.exception("fast lane of %r failed; its session loses its debugger", self._session)
        finally:
            try:
                self._out.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def _take(self, data: bytes) -> None:
        """Answer what the memo has, up to the first packet it cannot answer; from there on the
        bytes go to the session, and so does the socket (the session reads it until answers
        come from the memo again: a run of commands that need the VM then pays no hop here)."""
        buf = self._buf
        if not buf and len(data) >= _HEADER_SIZE:
            # The common case, one whole command in one read: no buffer, one copy.
            length, packet_id, flags, command_set, command = _HEADER.unpack_from(data)
            if (length == len(data) and flags == 0 and (command_set, command) in MEMO_COMMANDS
                    and self._answer(packet_id, command_set, command, data[_HEADER_SIZE:])):
                return
        buf += data
        pos, end_of_data = 0, len(buf)
        while end_of_data - pos >= _HEADER_SIZE:
            length, packet_id, flags, command_set, command = _HEADER.unpack_from(buf, pos)
            if length < _HEADER_SIZE or length > DEFAULT_MAX_PACKET_SIZE or flags not in (0, _REPLY_FLAG):
                break  # the session's parser says what is wrong, as always
            end = pos + length
            if end > end_of_data:
                return self._keep(pos)
            if not (flags == 0 and (command_set, command) in MEMO_COMMANDS
                    and self._answer(packet_id, command_set, command, bytes(buf[pos + _HEADER_SIZE:end]))):
                break
            pos = end
        else:
            return self._keep(pos)
        self._owns = False  # before the bytes go: the session, woken by them, must see it
        self._out.sendall(bytes(buf[pos:]))
        buf.clear()

    def _keep(self, pos: int) -> None:
        del self._buf[:pos]

    def _answer(self, packet_id: int, command_set: int, command: int, data: bytes) -> bool:
        session = self._session
        if self.session_read != session.commands_answered or self._stopping or session.closing or session.vm.dead:
            return False
        body = self._memo.get((command_set, command, data))
        if body is None:
            return False
        packet = _REPLY_HEADER.pack(_HEADER_SIZE + len(body), packet_id, _REPLY_FLAG, 0) + body
        wrote = self._writer.write_from_thread(packet, self._token)
        if wrote is Wrote.NONE:  # someone writes, a full socket or a gone peer: the session answers, and sees which
            return False
        if wrote is Wrote.PART:  # the rest waits first in line: a task of the session writes it
            self._token.run_sync_soon(session.flush_soon)
        self.answered += 1
        return True
