"""The one way bytes go out on a socket: a debugger's (replies, events, the fast lane's answers) or
the agent link's (requests).

Whoever has a packet writes it at once, in its own task or thread (:meth:`Writer.write_now`), when
nobody else writes and nothing waits to be written: no task, no scheduler pass (a cached answer cost
four passes through trio's own stream, one now: docs/performance_log.md, "The I/O pass").  Otherwise
the packet waits its turn in a task (:meth:`Writer.write`), and every packet that became ready
meanwhile goes out with it, in one write, in the order they became ready.  When the socket takes
only part of a packet, the rest waits first in line and the caller sees that some task flushes it
(:meth:`Writer.flush`); nothing can slip in between.

Before this module the session had four copies of "take the gate, try to send, finish later"
(memo answers, replies answered where their link reply was read, events, the fast lane's answers)
and the agent link a fifth.
"""

from __future__ import annotations

import enum
import threading

import trio

from .rawio import RawStream


class Wrote(enum.Enum):
    ALL = "all"  # the whole packet is on its way
    PART = "part"  # the rest waits first in line: the caller must see that someone flushes it
    NONE = "none"  # nothing went (someone else writes, or the socket is full): write() it


class WriteGate:
    """The right to write to one stream: taken without a scheduler pass when free, in FIFO
    order otherwise.  Unlike a trio lock it belongs to no task, so a write that one task
    began without waiting can be finished by another.

    A session's fast lane (lane.py) takes it from its own thread, never waiting:
    the flag is flipped under a thread lock, and the lane gives it back through trio when a
    task waits for it (only trio's thread may wake a task)."""

    __slots__ = ("_busy", "_lot", "_lock", "_parked")

    def __init__(self) -> None:
        self._busy = False
        self._lot = trio.lowlevel.ParkingLot()
        self._lock = threading.Lock()
        self._parked = 0  # tasks parked or about to park: the lane must hand over through trio

    def busy(self) -> bool:
        return self._busy

    def take_nowait(self) -> bool:
        with self._lock:
            if self._busy:
                return False
            self._busy = True
            return True

    async def take(self) -> None:
        with self._lock:
            if not self._busy:
                self._busy = True
                return
            self._parked += 1
        try:
            await self._lot.park()  # give() hands the gate over: it stays busy
        finally:
            with self._lock:
                self._parked -= 1

    def give(self) -> None:
        """On trio's thread."""
        with self._lock:
            if len(self._lot) and self._lot.unpark():
                return
            self._busy = False

    def give_from_thread(self, token: trio.lowlevel.TrioToken) -> None:
        """From another thread: free at once unless a task waits, which trio then hands it to."""
        with self._lock:
            if not self._parked:
                self._busy = False
                return
        token.run_sync_soon(self.give)


class Writer:
    """One socket's writes.  Errors are trio's (BrokenResourceError: the peer is gone;
    ClosedResourceError: the socket was closed under us); the owner decides what they end."""

    __slots__ = ("io", "gate", "_queued")

    def __init__(self, stream: trio.abc.Stream, io: RawStream | None = None) -> None:
        self.io = io if io is not None else RawStream(stream)
        self.gate = WriteGate()
        self._queued: list[bytes] = []  # what waits to be written, first in line first

    @property
    def raw(self) -> bool:
        """Whether writes can be tried at once (a plain socket); else every write waits in write()."""
        return self.io.raw

    def write_now(self, data: bytes) -> Wrote:
        """On trio's thread: write without waiting if nobody writes and nothing waits."""
        if self._queued or not self.io.raw or not self.gate.take_nowait():
            return Wrote.NONE
        try:
            sent = self.io.try_send(data)
            if 0 < sent < len(data):
                self._queued.append(data[sent:])  # first in line: nothing was queued, and we hold the gate
        finally:
            self.gate.give()
        return Wrote.ALL if sent == len(data) else Wrote.PART if sent else Wrote.NONE

    def write_from_thread(self, data: bytes, token: trio.lowlevel.TrioToken) -> Wrote:
        """From a thread of our own (a fast lane): as write_now, never waiting, and failing quietly:
        NONE also for a peer that is gone (trio's side then finds out, and says so)."""
        gate = self.gate
        if not gate.take_nowait():
            return Wrote.NONE
        try:
            if self._queued:
                return Wrote.NONE
            try:
                sent = self.io.socket.send(data)
            except OSError:  # BlockingIOError included: a full socket
                return Wrote.NONE
            if sent < len(data):
                # Tasks may be queueing behind us meanwhile (they only append): the rest goes before them.
                self._queued.insert(0, data[sent:])
                return Wrote.PART
            return Wrote.ALL
        finally:
            gate.give_from_thread(token)

    async def write(self, data: bytes) -> None:
        """Write data after everything queued before it; returns once it has gone."""
        self._queued.append(data)
        try:
            await self.gate.take()
        except BaseException:  # cancelled before anyone wrote it: it must not go out later
            self._queued[:] = [d for d in self._queued if d is not data]
            raise
        try:
            queued = self._queued
            if not any(queued):
                queued.clear()
                return  # the writer before us took ours along
            chunk = queued[0] if len(queued) == 1 else b"".join(queued)
            queued.clear()
            await self.io.send_all(chunk)
        finally:
            self.gate.give()

    async def flush(self) -> None:
        """Write what waits (the rest of a packet write_now began); returns once it has gone."""
        await self.write(b"")

    def discard(self) -> None:
        """The peer is gone: what waits will never go."""
        self._queued.clear()
