"""A session's command ordering: which command may overtake which, and the task each runs in.

Commands that change the VM (the table's ``mutating`` column) run in arrival order, each after
every command that arrived before it has been answered; queries run concurrently with each other,
after the last change before them.  So a query that waits on the VM never holds up the reading and
answering of later queries (IntelliJ pipelines; Eclipse gives up after 3 s), while
Suspend-then-Frames or Frames-then-Resume keep their meaning.  Invokes (``invokes``) come after the
changes before them but hold up nothing, as in the reference, which answers other commands (Resume
and Dispose included) while an invoke runs.

Where a command runs.  A command with nothing ahead of it in its lane (invokes aside) is served in
the task that read it, the session's reader (jdwpd/daemon/fast/inline.py): one answered from the caches
costs no task and no Event.  Two measured exceptions, each written where it is decided:

- a command that must wait for the VM cannot keep the reader (the packets behind it must be read),
  so it stops at its link request; sent whole, it is parked on the reply with no task waiting, and
  whoever reads the reply (mostly the VM's event pump) goes on with it: right there for the
  commands of the table's ``inline_after_reply`` column, which only compute after a reply, else in
  a worker task of this session (:meth:`CommandOrder._go_on`);
- a command with something ahead of it in its lane starts in a task of its own, which waits.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import outcome
import trio

from protocol import spec
from protocol.packets import CommandPacket

from ..dispatch import dispatch
from ..fast import inline

if TYPE_CHECKING:  # pragma: no cover
    from .lifecycle import Session

log = logging.getLogger(__name__)

# The command table's trait columns (protocol/spec*.py) say what each command may overtake.
MUTATING = spec.having("mutating")
INVOKES = spec.having("invokes")
GO_ON_INLINE = spec.having("inline_after_reply")


class CommandOrder:
    def __init__(self, session: Session) -> None:
        self._session = session
        # The last change (set once it is answered) and the queries since, which the next change waits for.
        self._barrier = trio.Event()
        self._barrier.set()
        self._since_barrier: list[trio.Event] = []
        self._idle_workers: list[trio.lowlevel.Task] = []

    async def take(self, packet: CommandPacket) -> None:
        """A command the reader read: begin it here, or give it a task that waits its turn."""
        key = (packet.command_set, packet.command)
        if key in INVOKES or not self._barrier.is_set():
            self._schedule(packet)
        elif key in MUTATING:
            self._since_barrier = [e for e in self._since_barrier if not e.is_set()]
            if self._since_barrier:
                self._schedule(packet)
            else:
                await self._run_inline(packet, mutating=True)
        else:
            await self._run_inline(packet, mutating=False)

    # ------------------------------------------------------------------ served by the reader

    async def _run_inline(self, packet: CommandPacket, *, mutating: bool) -> None:
        """A command with nothing ahead of it in its lane: begin it here, no task."""
        session = self._session
        coro = dispatch(session.vm, session, packet)
        finished, result = inline.start(coro)
        if finished:
            await session.replies.answer(packet, result)
        elif inline.movable(result):
            # It waits on the VM now: later packets are read meanwhile, and it keeps the place
            # in the lanes it would have had as a task.
            done = self._take_place(mutating)
            if isinstance(result, inline.AwaitingReply):
                result.then(lambda: self._go_on(packet, coro, done))  # no task until the reply
            else:
                self.run_in_worker(lambda: self._finish_inline(packet, coro, result, done))
        else:
            # It waits on something that registered this task with trio (another task's
            # fetch of the same fact): that is short, and only this task can wait it out.
            await session.replies.answer(packet, await inline.drive(coro, result))

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
        """A command parked on its link replies, which are in: on with it, in the task that read them.

        Measured reason (docs/performance_log.md, "The I/O pass", item 2): a VM command then costs two
        scheduler passes (the reader sends the link request; the reply's reader answers) instead of
        three, part of the 30-45% less daemon CPU per VM command of that pass.  Only the commands in
        GO_ON_INLINE go on right here: they only compute after a reply, or send another request.
        Others, or one that stops on anything else, go on in a worker task: what they wait on may be
        something only that task could wait out."""
        session = self._session
        if session.reader_done or session.close_requested or session.nursery is None:
            coro.close()  # the debugger left: nobody wants the answer
            done.set()
            return
        if (packet.command_set, packet.command) not in GO_ON_INLINE:
            self.run_in_worker(lambda: self._finish_inline(packet, coro, inline.HANDOFF, done))
            return
        finished, result = inline.start(coro)
        if finished:
            session.replies.answer_soon(packet, result, done)
        elif isinstance(result, inline.AwaitingReply):
            result.then(lambda: self._go_on(packet, coro, done))
        else:
            if not inline.movable(result):
                # It waits on something that registered this task (another task's fetch of a
                # class fact): undone, and the worker looks again.
                woken = inline.give_up_wait(result)
                if woken is None:
                    raise RuntimeError(f"{packet.command_set}.{packet.command} stopped on {result!r}")
                log.debug("%r: command %s.%s waited after its reply", session, packet.command_set, packet.command)
                result = woken
            self.run_in_worker(lambda: self._finish_inline(packet, coro, result, done))

    async def _finish_inline(self, packet: CommandPacket, coro: Any, stopped_on: Any, done: trio.Event) -> None:
        try:
            await self._session.replies.answer(packet, await inline.drive(coro, stopped_on))
        finally:
            done.set()

    # ------------------------------------------------------------------ workers

    # A command that goes on after its link reply needs a task; waking an idle one costs a fraction
    # of starting one.  Workers live in the session's nursery, as many as commands ever ran at once.
    def run_in_worker(self, job: Callable[[], Awaitable[None]]) -> None:
        nursery = self._session.nursery
        assert nursery is not None
        if self._idle_workers:
            trio.lowlevel.reschedule(self._idle_workers.pop(), outcome.Value(job))
        else:
            nursery.start_soon(self._worker, job)

    async def _worker(self, job: Callable[[], Awaitable[None]]) -> None:
        task = trio.lowlevel.current_task()

        def abort(_: Any) -> trio.lowlevel.Abort:
            self._idle_workers.remove(task)
            return trio.lowlevel.Abort.SUCCEEDED

        while True:
            await job()
            self._idle_workers.append(task)
            job = await trio.lowlevel.wait_task_rescheduled(abort)

    # ------------------------------------------------------------------ a task of its own, waiting its turn

    def _schedule(self, packet: CommandPacket) -> None:
        session = self._session
        key = (packet.command_set, packet.command)
        done = trio.Event()
        if key in MUTATING:
            prior = [*self._since_barrier, self._barrier]
            self._since_barrier = []
            self._barrier = done
        elif key in INVOKES:
            prior = [self._barrier]
            assert session.invoke_nursery is not None
            session.invoke_nursery.start_soon(self._run_invoke, packet, prior, done)
            return
        else:
            # Queries: after the last change; later changes wait for them, later queries do not.
            prior = [self._barrier]
            self._since_barrier = [e for e in self._since_barrier if not e.is_set()]
            self._since_barrier.append(done)
        assert session.nursery is not None
        session.nursery.start_soon(self._run_command, packet, prior, done)

    async def _run_invoke(self, packet: CommandPacket, prior: list[trio.Event], done: trio.Event) -> None:
        try:
            for event in prior:
                await event.wait()
            if self._session.reader_done:
                return  # the debugger left before its invoke could start: it does not start
            await self._run_command(packet, [], done)
        finally:
            done.set()

    async def _run_command(self, packet: CommandPacket, prior: list[trio.Event], done: trio.Event) -> None:
        session = self._session
        try:
            for event in prior:
                await event.wait()
            await session.replies.answer(packet, await dispatch(session.vm, session, packet))
        finally:
            done.set()
