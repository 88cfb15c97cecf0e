"""One debugger: its connection, its command lanes, its events, its share of the VM.

Ordering.  Commands that change the VM run in arrival order, each after every
command that arrived before it has been answered; queries run concurrently with
each other, after the last change before them.  So a query that waits on the
VM never holds up the reading and answering of later queries (IntelliJ
pipelines; Eclipse gives up after 3 s), while Suspend-then-Frames or
Frames-then-Resume keep their meaning.  Invokes come after the changes before
them but hold up nothing, as in the reference, which answers other commands
(Resume and Dispose included) while an invoke runs.

Commands with nothing ahead of them in their lane (invokes aside) start inline,
in the reader (jdwpd/fast/inline.py): one answered from the caches costs no task and
no Event.  One that needs the VM keeps the place in the lanes it would have had as
a task, and stops at its link request: when the request went out whole it is
parked on the replies, no task waiting, and whoever reads them (the VM's event
pump, mostly) goes on with it (_go_on): right there for the commands that only
compute after a reply (GO_ON_INLINE), else in a worker task; a request that did
not go out whole makes a worker go on with the command at once, and wait.

Repeated questions.  A command whose reply the VM's reply memo holds (jdwpd/fast/memo.py)
is answered by the reader before any decoding, when every command before it has been
answered; after LANE_AFTER_HITS of those in a row the reader hands the socket to the
session's fast lane (jdwpd/fast/lane.py), which gives it back with the first command it
cannot answer.

Leaving.  On Dispose or a closed socket the VM undoes this session's requests,
suspensions and pins (vm.detach); the VM runs on and another debugger may attach.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

import outcome
import trio

from protocol import spec
from protocol.constants import CommandSet, EventKind, SuspendPolicy
from protocol.jdwp import NEED_DATA, ConnectionClosed, JdwpConnection
from protocol.messages import encode_composite
from protocol.object_ids import composite_ids
from protocol.packets import CommandPacket, ReplyPacket
from protocol.wire import ProtocolError

from .dispatch import dispatch
from .fast import inline
from .fast.lane import FastLane
from .fast.memo import MEMO_COMMANDS
from .fast.rawio import RawStream, WriteGate
from .fast.settings import FAST

log = logging.getLogger(__name__)

# The command table's trait columns (protocol/spec*.py) say what each command may overtake.
MUTATING = spec.having("mutating")
INVOKES = spec.having("invokes")
GO_ON_INLINE = spec.having("inline_after_reply")

_session_numbers = itertools.count(1)
DETACH_TIMEOUT = 10.0
WRITE_BATCH = 1024  # composites per write of the event writer


class Session:
    def __init__(self, vm: Any, stream: trio.abc.Stream, conn: JdwpConnection, *, peer: str = "",
                 dialed: bool = False) -> None:
        self.vm = vm
        self.stream = stream
        self.dialed = dialed  # we connected to this debugger (the reference's server=n)
        self._io = RawStream(stream)
        self._io_in = self._io  # what the reader reads: the socket, or the fast lane's pair
        self.conn = conn
        self.peer = peer
        self.number = next(_session_numbers)
        self.saw_vm_death = False
        self.default_stratum: str | None = None
        self._gate = WriteGate()
        self._unsent: list[bytes] = []
        self._event_ids = itertools.count(1)
        self._events_out, self._events_in = trio.open_memory_channel(math.inf)
        self._released = trio.Event()
        self._released.set()
        # After a SUSPEND_ALL composite, the next waits for this debugger's next resume (of the VM, of
        # a thread, or an invoke's of all threads), as the reference's event helper waits: a thread's
        # event already under way when the VM was suspended would otherwise reach a debugger that
        # resumes once per stop, as jdb does.
        self._resumed_all = trio.Event()
        self._resumed_all.set()
        self._barrier = trio.Event()
        self._barrier.set()
        self._since_barrier: list[trio.Event] = []
        self._after_reply: dict[int, list[Callable[[], Awaitable[None]]]] = {}
        self._closing = False
        self._nursery: trio.Nursery | None = None
        self._invoke_nursery: trio.Nursery | None = None
        self._idle_workers: list[trio.lowlevel.Task] = []
        self._reader_done = False
        self.commands_answered = 0  # by the session; its fast lane counts its own
        self.commands_read = 0
        self._lane: FastLane | None = None
        self._lane_io: RawStream | None = None
        self._memo_hits_in_row = 0
        self.events_sent = 0
        self._events_queued = 0
        self._drained = trio.Event()
        self._drained.set()

    def __repr__(self) -> str:
        return f"<Session {self.number} {self.peer}>"

    # ------------------------------------------------------------------ lifecycle

    async def run(self) -> None:
        try:
            # Invokes live in a nursery of their own: they hold up no other command.  When the
            # debugger goes, an invoke under way is not waited for (it may never end): vm.detach
            # tells the agent that its end gives back none of this session's suspensions
            # (INVOKE_DETACH), as the reference's detached invoke suspends nothing again.
            async with trio.open_nursery() as invokes:
                self._invoke_nursery = invokes
                try:
                    async with trio.open_nursery() as nursery:
                        self._nursery = nursery
                        nursery.start_soon(self._event_writer)
                        nursery.start_soon(self.vm.attach, self)
                        await self._read_loop(nursery)
                        self._reader_done = True
                        # EOF or Dispose: commands still running lose their debugger.
                        nursery.cancel_scope.cancel()
                finally:
                    self._reader_done = True
                    invokes.cancel_scope.cancel()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self._drained.set()  # nothing more will be written
            # Undo even when cancelled, but never wait forever on an agent that stopped answering.
            with trio.CancelScope(shield=True), trio.move_on_after(DETACH_TIMEOUT):
                try:
                    if self._lane is not None:
                        await self._lane.stop()
                    await self.vm.detach(self)
                finally:
                    await self.stream.aclose()

    @property
    def closing(self) -> bool:
        return self._closing or self._reader_done

    @property
    def write_gate(self) -> WriteGate:
        return self._gate

    def close_after_reply(self, packet_id: int) -> None:
        """Dispose: the reply goes out, then the session ends."""
        self.after_reply(packet_id, self._close)

    def after_reply(self, packet_id: int, action: Callable[[], Awaitable[None]]) -> None:
        self._after_reply.setdefault(packet_id, []).append(action)

    async def _close(self) -> None:
        self._close_now()

    def _close_now(self) -> None:
        self._closing = True
        self._drained.set()  # nothing more will be written
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()

    # ------------------------------------------------------------------ reading and scheduling

    async def _read_loop(self, nursery: trio.Nursery) -> None:
        while not self._closing:
            try:
                event = self.conn.next_event()
            except ProtocolError as e:
                log.info("%r: dropping the connection: %s", self, e)
                return
            if event is NEED_DATA:
                data = await self._next_data()
                if data is None:
                    return
                self.conn.receive_data(data)
            elif isinstance(event, ConnectionClosed):
                return
            elif isinstance(event, CommandPacket):
                self.commands_read += 1
                key = (event.command_set, event.command)
                if key in MEMO_COMMANDS and self._answer_from_memo(event):
                    continue
                self._memo_hits_in_row = 0
                if key in INVOKES or not self._barrier.is_set():
                    self._schedule(nursery, event)
                elif key in MUTATING:
                    self._since_barrier = [e for e in self._since_barrier if not e.is_set()]
                    if self._since_barrier:
                        self._schedule(nursery, event)
                    else:
                        await self._run_inline(nursery, event, mutating=True)
                else:
                    await self._run_inline(nursery, event, mutating=False)

    # ------------------------------------------------------------------ the fast lane (jdwpd/fast/lane.py)

    async def _next_data(self) -> bytes | None:
        """The debugger's next bytes (b"" at its end; None once it is gone), from the socket or from
        the fast lane: the lane reads the socket after a run of memo answers, until a command it
        cannot answer, which it hands on with the socket (its hop would tax a run of VM commands)."""
        lane = self._lane
        if lane is not None and self._io_in is not self._io and not lane.owns_socket:
            data = self._io_in.try_receive()  # first what the lane handed on, then the socket
            if data is not None:
                return data
            self._io_in = self._io
        elif (self._memo_hits_in_row >= FAST.lane_after_hits and self._io_in is self._io and self._io.raw
              and self.conn.at_packet_boundary and not self._closing):
            if lane is None:
                lane = self._lane = FastLane(self._io.socket, self, trio.lowlevel.current_trio_token(),
                                             session_read=self.commands_read)
                self._lane_io = RawStream(lane.inbound)
                lane.start()
            else:
                lane.reclaim(self.commands_read)
            self._io_in = self._lane_io
            self._memo_hits_in_row = 0
        try:
            return await self._io_in.receive_some(65536)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return None

    def _answer_from_memo(self, packet: CommandPacket) -> bool:
        """Answer from the reply memo here and now, as the fast lane would (jdwpd/fast/memo.py)."""
        vm = self.vm
        memo = vm.memo
        if (not memo.enabled or vm.dead or self.commands_read - 1 != self.commands_answered
                or not self._io.raw or packet.id in self._after_reply):
            return False
        body = memo.get((packet.command_set, packet.command, packet.data))
        if body is None or not self._gate.take_nowait():
            return False
        data = self.conn.send(ReplyPacket(packet.id, 0x80, 0, body))
        try:
            sent = self._io.try_send(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._gate.give()
            self._close_now()
            return True
        self._memo_hits_in_row += 1
        if sent < len(data):  # the rest goes next: the gate stays taken until then
            self._run_in_worker(functools.partial(self._finish_reply, data[sent:], trio.Event()))
            return True
        self._gate.give()
        self.commands_answered += 1
        return True

    def finish_lane_write(self, rest: bytes) -> None:
        """The lane wrote part of a reply and holds the write gate: the rest goes before anything else."""
        try:
            assert self._nursery is not None
            self._nursery.start_soon(self._finish_lane_write, rest)
        except RuntimeError:  # the session is over: nothing more goes to this debugger
            self._gate.give()

    async def _finish_lane_write(self, rest: bytes) -> None:
        try:
            await self._io.send_all(rest)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._close_now()
        finally:
            self._gate.give()

    async def _run_inline(self, nursery: trio.Nursery, packet: CommandPacket, *, mutating: bool) -> None:
        """A command with nothing ahead of it in its lane: begin it here, no task."""
        coro = dispatch(self.vm, self, packet)
        finished, result = inline.start(coro)
        if finished:
            await self._answer(packet, result)
        elif inline.movable(result):
            # It waits on the VM now: later packets are read meanwhile, and it keeps the place
            # in the lanes it would have had as a task.
            done = self._take_place(mutating)
            if isinstance(result, inline.AwaitingReply):
                result.then(lambda: self._go_on(packet, coro, done))  # no task until the reply
            else:
                self._run_in_worker(functools.partial(self._finish_inline, packet, coro, result, done))
        else:
            # It waits on something that registered this task with trio (another task's
            # fetch of the same fact): that is short, and only this task can wait it out.
            await self._answer(packet, await inline.drive(coro, result))

    def _take_place(self, mutating: bool) -> trio.Event:
        done = trio.Event()
        if mutating:
            self._since_barrier = []
            self._barrier = done
        else:
            self._since_barrier = [e for e in self._since_barrier if not e.is_set()]
            self._since_barrier.append(done)
        return done

    def _go_on(self, packet: CommandPacket, coro: Any, done: trio.Event) -> None:
        """A command parked on its link replies, which are in: on with it.

        The commands in GO_ON_INLINE only compute after a reply, or send another request:
        they go on right here, in the task that read the reply, and are answered from here
        (one scheduler pass less).  Others, or one that stops on anything else, go on in a
        worker task: what they wait on may be something only that task could wait out."""
        if self._reader_done or self._closing or self._nursery is None:
            coro.close()  # the debugger left: nobody wants the answer
            done.set()
            return
        if (packet.command_set, packet.command) not in GO_ON_INLINE:
            self._run_in_worker(functools.partial(self._finish_inline, packet, coro, inline.HANDOFF, done))
            return
        finished, result = inline.start(coro)
        if finished:
            self._answer_now(packet, result, done)
        elif isinstance(result, inline.AwaitingReply):
            result.then(lambda: self._go_on(packet, coro, done))
        else:
            if not inline.movable(result):
                # It waits on something that registered this task (another task's fetch of a
                # class fact): undone, and the worker looks again.
                woken = inline.give_up_wait(result)
                if woken is None:
                    raise RuntimeError(f"{packet.command_set}.{packet.command} stopped on {result!r}")
                log.debug("%r: command %s.%s waited after its reply", self, packet.command_set, packet.command)
                result = woken
            self._run_in_worker(functools.partial(self._finish_inline, packet, coro, result, done))

    def _answer_now(self, packet: CommandPacket, reply: Any, done: trio.Event) -> None:
        """Answer without waiting if nobody writes and the reply fits; else a worker sees it through."""
        if packet.id in self._after_reply or not self._io.raw or not self._gate.take_nowait():
            self._run_in_worker(functools.partial(self._answer_then_done, packet, reply, done))
            return
        data = self.conn.send(reply)
        try:
            sent = self._io.try_send(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._gate.give()
            self._close_now()
            done.set()
            return
        if sent < len(data):  # the rest goes next: the gate stays taken until then
            self._run_in_worker(functools.partial(self._finish_reply, data[sent:], done))
            return
        self._gate.give()
        self.commands_answered += 1
        done.set()

    async def _finish_reply(self, rest: bytes, done: trio.Event) -> None:
        try:
            await self._io.send_all(rest)
            self.commands_answered += 1
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._close_now()
        finally:
            self._gate.give()
            done.set()

    async def _answer_then_done(self, packet: CommandPacket, reply: Any, done: trio.Event) -> None:
        try:
            await self._answer(packet, reply)
        finally:
            done.set()

    # A command that goes on after its link reply needs a task; waking an idle one costs a fraction
    # of starting one.  Workers live in the session's nursery, as many as commands ever ran at once.
    def _run_in_worker(self, job: Callable[[], Awaitable[None]]) -> None:
        assert self._nursery is not None
        if self._idle_workers:
            trio.lowlevel.reschedule(self._idle_workers.pop(), outcome.Value(job))
        else:
            self._nursery.start_soon(self._worker, job)

    async def _worker(self, job: Callable[[], Awaitable[None]]) -> None:
        task = trio.lowlevel.current_task()

        def abort(_: Any) -> trio.lowlevel.Abort:
            self._idle_workers.remove(task)
            return trio.lowlevel.Abort.SUCCEEDED

        while True:
            await job()
            self._idle_workers.append(task)
            job = await trio.lowlevel.wait_task_rescheduled(abort)

    async def _finish_inline(self, packet: CommandPacket, coro: Any, stopped_on: Any, done: trio.Event) -> None:
        try:
            await self._answer(packet, await inline.drive(coro, stopped_on))
        finally:
            done.set()

    def _schedule(self, nursery: trio.Nursery, packet: CommandPacket) -> None:
        key = (packet.command_set, packet.command)
        done = trio.Event()
        if key in MUTATING:
            prior = [*self._since_barrier, self._barrier]
            self._since_barrier = []
            self._barrier = done
        elif key in INVOKES:
            prior = [self._barrier]
            assert self._invoke_nursery is not None
            self._invoke_nursery.start_soon(self._run_invoke, packet, prior, done)
            return
        else:
            # Queries: after the last change; later changes wait for them, later queries do not.
            prior = [self._barrier]
            self._since_barrier = [e for e in self._since_barrier if not e.is_set()]
            self._since_barrier.append(done)
        nursery.start_soon(self._run_command, packet, prior, done)

    async def _run_invoke(self, packet: CommandPacket, prior: list[trio.Event], done: trio.Event) -> None:
        try:
            for event in prior:
                await event.wait()
            if self._reader_done:
                return  # the debugger left before its invoke could start: it does not start
            await self._run_command(packet, [], done)
        finally:
            done.set()

    async def _run_command(self, packet: CommandPacket, prior: list[trio.Event], done: trio.Event) -> None:
        try:
            for event in prior:
                await event.wait()
            await self._answer(packet, await dispatch(self.vm, self, packet))
        finally:
            done.set()

    async def _answer(self, packet: CommandPacket, reply: Any) -> None:
        await self._send(self.conn.send(reply))
        self.commands_answered += 1
        actions = self._after_reply.pop(packet.id, ())
        if actions:
            # What the reply promised (Exit's exit, Dispose's end) happens even when the debugger
            # leaves at once: its leaving cancels the running commands, and the undo that
            # follows would otherwise let the VM run on.
            with trio.CancelScope(shield=True), trio.move_on_after(DETACH_TIMEOUT):
                for action in actions:
                    await action()

    # ------------------------------------------------------------------ writing

    async def _send(self, data: bytes) -> None:
        """Write one packet; a debugger that went away ends the session instead of raising.

        Packets that become ready while a write is under way go out together, in one write,
        in the order they became ready; each caller returns once its packet is written."""
        self._unsent.append(data)
        try:
            await self._gate.take()
            try:
                if not self._unsent:
                    return  # the writer before us took ours along
                chunk = self._unsent[0] if len(self._unsent) == 1 else b"".join(self._unsent)
                self._unsent.clear()
                await self._io.send_all(chunk)
            finally:
                self._gate.give()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await self._close()
            await trio.lowlevel.checkpoint()  # we are cancelled now

    async def send_event(self, suspend_policy: int, events: tuple) -> None:
        """Send one composite; never blocks the VM's event pump on a slow debugger.

        With nothing queued before it and nobody writing, it is written here and now (the
        common case: one event, one debugger waiting for it); otherwise, or for what does
        not fit in the socket at once, the event writer task sends it in order."""
        data = encode_composite(int(suspend_policy), list(events), self.vm.id_sizes)
        self.vm.objects.sent(self, composite_ids(events))  # DisposeObjects counts against these
        if self._closing:
            return
        if any(int(e.event_kind) == EventKind.VM_DEATH for e in events):
            self._resumed_all.set()  # the VM is gone: nothing will resume it, everything owed goes out
        holds = int(suspend_policy) == SuspendPolicy.ALL
        self._events_queued += 1
        if self._drained.is_set():
            self._drained = trio.Event()
        if (self._released.is_set() and self._resumed_all.is_set() and self.events_sent + 1 == self._events_queued
                and self._io.raw and not self._reader_done and self._gate.take_nowait()):
            if holds:
                self._resumed_all = trio.Event()
            packet = self._event_packet(data)
            try:
                sent = self._io.try_send(packet)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self._gate.give()
                await self._close()
                return
            if sent == len(packet):
                self._gate.give()
                self._event_written(1)
            else:  # the rest goes next, before anything else: the gate stays taken until then
                assert self._nursery is not None
                self._nursery.start_soon(self._finish_event, packet[sent:])
            return
        try:
            self._events_out.send_nowait((holds, data))
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            return

    def _event_packet(self, body: bytes) -> bytes:
        return self.conn.send(CommandPacket(next(self._event_ids), 0, CommandSet.EVENT, 100, body))

    def _event_written(self, count: int) -> None:
        self.events_sent += count
        if self.events_sent == self._events_queued:
            self._drained.set()

    async def _finish_event(self, rest: bytes) -> None:
        try:
            await self._io.send_all(rest)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await self._close()
            return
        finally:
            self._gate.give()
        self._event_written(1)

    async def _event_writer(self) -> None:
        async for holds, data in self._events_in:
            while not (self._released.is_set() and self._resumed_all.is_set()):
                await (self._resumed_all if self._released.is_set() else self._released).wait()
            batch = [data]
            # composites already queued go out in the same write, up to WRITE_BATCH of them (and up
            # to a SUSPEND_ALL one): a backlog of many thousands (a burst before VM death) is
            # written, and counted as sent, in steps, which is how the VM-death drain sees a slow
            # debugger progress
            while not holds and len(batch) < WRITE_BATCH:
                try:
                    holds, more = self._events_in.receive_nowait()
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
                batch.append(more)
            if holds:
                self._resumed_all = trio.Event()
            await self._send(b"".join(self._event_packet(body) for body in batch))
            self._event_written(len(batch))

    async def drained(self) -> None:
        """Every event queued so far has been written (or the debugger is gone)."""
        await self._drained.wait()

    def hold_events(self) -> None:
        if self._released.is_set():
            self._released = trio.Event()

    def release_events(self) -> None:
        self._released.set()

    def resumed_all(self) -> None:
        """This debugger resumed: the composite after its last SUSPEND_ALL one may go."""
        self._resumed_all.set()

    def statistics(self) -> dict[str, Any]:
        return {"number": self.number, "peer": self.peer, "commands_answered": self.commands_answered,
                "events_sent": self.events_sent, "events_held": not self._released.is_set()}
