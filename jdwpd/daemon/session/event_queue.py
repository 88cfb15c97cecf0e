"""A session's events: composites in the order the VM made them, held while the debugger asks.

Two holds, as in the reference: HoldEvents until ReleaseEvents, and after a SUSPEND_ALL composite
the next waits for this debugger's next resume (of the VM, of a thread, or an invoke's of all
threads), as the reference's event helper waits: a thread's event already under way when the VM
was suspended would otherwise reach a debugger that resumes once per stop, as jdb does.  VMDeath
is never held.

The VM's event pump calls :meth:`EventQueue.send_event`; with nothing queued or held before it and
nobody writing, the composite is written right there (the common case: one event, one debugger
waiting for it); otherwise, and for what does not fit in the socket at once, the queue's writer
task sends it in order.  A slow debugger never blocks the pump.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import trio

from protocol.constants import CommandSet, EventKind, SuspendPolicy
from protocol.messages import encode_composite
from protocol.object_ids import composite_ids
from protocol.packets import CommandPacket

from ..fast.writer import Wrote

if TYPE_CHECKING:  # pragma: no cover
    from .lifecycle import Session

WRITE_BATCH = 1024  # composites per write of the event writer


class EventQueue:
    def __init__(self, session: Session) -> None:
        self._session = session
        self._ids = itertools.count(1)
        self._out, self._in = trio.open_memory_channel(math.inf)
        self._released = trio.Event()
        self._released.set()
        self._resumed_all = trio.Event()
        self._resumed_all.set()
        self.sent = 0
        self._queued = 0
        self._drained = trio.Event()
        self._drained.set()

    async def send_event(self, suspend_policy: int, events: tuple) -> None:
        session = self._session
        data = encode_composite(int(suspend_policy), list(events), session.vm.id_sizes)
        session.vm.objects.sent(session, composite_ids(events))  # DisposeObjects counts against these
        if session.close_requested:
            return
        if any(int(e.event_kind) == EventKind.VM_DEATH for e in events):
            self._resumed_all.set()  # the VM is gone: nothing will resume it, everything owed goes out
        holds = int(suspend_policy) == SuspendPolicy.ALL
        self._queued += 1
        if self._drained.is_set():
            self._drained = trio.Event()
        packet = self._packet(data)  # numbered in queue order, which is the order they go out in
        if (self._released.is_set() and self._resumed_all.is_set() and self.sent + 1 == self._queued
                and not session.reader_done):
            try:
                wrote = session.writer.write_now(packet)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                session.close_now()
                return
            if wrote is not Wrote.NONE:
                if holds:
                    self._resumed_all = trio.Event()
                if wrote is Wrote.ALL:
                    self._written(1)
                else:  # the rest waits first in line: a task of the session sees it go
                    assert session.nursery is not None
                    session.nursery.start_soon(self._finish)
                return
        try:
            self._out.send_nowait((holds, packet))
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            return

    def _packet(self, body: bytes) -> bytes:
        return self._session.conn.send(CommandPacket(next(self._ids), 0, CommandSet.EVENT, 100, body))

    def _written(self, count: int) -> None:
        self.sent += count
        if self.sent == self._queued:
            self._drained.set()

    async def _finish(self) -> None:
        try:
            await self._session.writer.flush()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._session.close_now()
            return
        self._written(1)

    async def run(self) -> None:
        """The queue's writer: what could not be written at once goes from here, in order."""
        async for holds, packet in self._in:
            while not (self._released.is_set() and self._resumed_all.is_set()):
                await (self._resumed_all if self._released.is_set() else self._released).wait()
            batch = [packet]
            # Composites already queued go out in the same write, up to WRITE_BATCH of them (and up
            # to a SUSPEND_ALL one): a backlog of many thousands (a burst before VM death) is
            # written, and counted as sent, in steps, which is how the VM-death drain sees a slow
            # debugger progress.
            while not holds and len(batch) < WRITE_BATCH:
                try:
                    holds, more = self._in.receive_nowait()
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
                batch.append(more)
            if holds:
                self._resumed_all = trio.Event()
            await self._session.replies.send(batch[0] if len(batch) == 1 else b"".join(batch))
            self._written(len(batch))

    async def drained(self) -> None:
        """Every event queued so far has been written (or the debugger is gone)."""
        await self._drained.wait()

    def nothing_more(self) -> None:
        """The session ends: nothing more will be written."""
        self._drained.set()

    def hold(self) -> None:
        if self._released.is_set():
            self._released = trio.Event()

    def release(self) -> None:
        self._released.set()

    def resumed_all(self) -> None:
        """This debugger resumed: the composite after its last SUSPEND_ALL one may go."""
        self._resumed_all.set()
