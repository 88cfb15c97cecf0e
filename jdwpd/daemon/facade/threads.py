"""Threads and thread groups: names, status, monitors, suspension counted per session, stop, interrupt.

Suspensions are counted for the session that made them (model/threads.py), so that its departure
undoes them; frame ids of a thread go stale only when it really runs (target/frames.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jdwpd.daemon.facade.agent import ask
from jdwpd.daemon.facade.values import tagged, to_link
from jdwpd.errors import AgentError, AgentLinkClosed, JdwpError
from protocol.constants import ErrorCode
from protocol.link import CapBit
from protocol.wire import TaggedObjectID, Value

if TYPE_CHECKING:  # pragma: no cover
    from jdwpd.daemon.facade.start_hold import StartHold
    from jdwpd.daemon.model.threads import ThreadTable

# JVMTI thread state bits (jvmti.xml) the JDWP status is derived from.
_ALIVE, _TERMINATED, _RUNNABLE = 0x1, 0x2, 0x4
_WAITING, _SLEEPING, _BLOCKED_ON_MONITOR = 0x80, 0x40, 0x400
_SUSPENDED = 0x100000


def jdwp_thread_status(state: int, at_event: bool) -> int:
    """JDWP ThreadStatus as the reference derives it from the JVMTI state (-1: not started or unknown)."""
    if not state & _ALIVE:
        return 0 if state & _TERMINATED else -1  # ZOMBIE
    if at_event:
        return 1  # a thread inside an event callback counts as RUNNING in the reference
    if state & _SLEEPING:
        return 2
    if state & _BLOCKED_ON_MONITOR:
        return 3
    if state & _WAITING:
        return 4
    return 1 if state & _RUNNABLE else -1


def jdwp_suspend_status(state: int, suspend_count: int) -> int:
    """SUSPEND_STATUS_SUSPENDED for a thread suspended by a debugger (the agent's count; a thread
    parked at an event is not JVMTI-suspended) or by anyone through JVMTI."""
    return int(suspend_count > 0 or bool(state & _SUSPENDED))


def debugger_resumed(session: Any) -> None:
    """The debugger resumed (the VM, a thread, or by an invoke): as the reference's event helper, its
    session lets the events after a SUSPEND_ALL set go (jdwpd/daemon/session/).  A script has no gate."""
    resumed = getattr(session, "resumed_all", None)
    if resumed is not None:
        resumed()


class ThreadOperations:
    """The façade's thread operations (a mixin of jdwpd.daemon.vm.VM)."""

    link: Any
    threads: ThreadTable
    start_hold: StartHold
    has: Callable[[CapBit], bool]

    # ------------------------------------------------------------ queries

    async def all_threads(self) -> list[int]:
        return [t["thread"] for t in (await ask(self.link, "ALL_THREADS"))["threads"]]

    async def thread_name(self, thread: int) -> str:
        return (await ask(self.link, "THREAD_INFO", thread=thread))["name"]

    async def thread_group(self, thread: int) -> int:
        return (await ask(self.link, "THREAD_INFO", thread=thread))["group"]

    async def thread_is_virtual(self, thread: int) -> bool:
        return bool((await ask(self.link, "THREAD_INFO", thread=thread))["virtual"])

    async def thread_status(self, thread: int) -> tuple[int, int]:
        """(JDWP ThreadStatus, SuspendStatus)."""
        s = await ask(self.link, "THREAD_STATUS", thread=thread)
        # An ended thread is never SUSPENDED, whatever a debugger's count of it (the reference takes that
        # flag from JVMTI alone).
        count = s["suspend_count"] if s["state"] & _ALIVE else 0
        return jdwp_thread_status(s["state"], s["at_event"]), jdwp_suspend_status(s["state"], count)

    async def suspend_count(self, thread: int) -> int:
        return (await ask(self.link, "THREAD_STATUS", thread=thread))["suspend_count"]

    async def _require_suspended(self, thread: int) -> None:
        """The reference checks the suspend count before the monitor queries."""
        if await self.suspend_count(thread) == 0:
            raise JdwpError(ErrorCode.THREAD_NOT_SUSPENDED)

    async def owned_monitors(self, thread: int) -> list[TaggedObjectID]:
        await self._require_suspended(thread)
        r = await ask(self.link, "THREAD_OWNED_MONITORS", thread=thread)
        return [tagged(m["object"]) for m in r["monitors"]]

    async def owned_monitors_with_depth(self, thread: int) -> list[tuple[TaggedObjectID, int]]:
        """(monitor, depth of the frame that entered it)."""
        if not thread:
            raise JdwpError(ErrorCode.INVALID_THREAD, "null thread")
        await self._require_suspended(thread)
        if not self.has(CapBit.GET_OWNED_MONITOR_STACK_DEPTH_INFO):
            raise JdwpError(ErrorCode.NOT_IMPLEMENTED, "this VM's capability profile has no monitor depths")
        r = await ask(self.link, "THREAD_OWNED_MONITORS", thread=thread)
        return [(tagged(m["object"]), m["depth"]) for m in r["monitors"]]

    async def contended_monitor(self, thread: int) -> TaggedObjectID:
        if not thread:
            raise JdwpError(ErrorCode.INVALID_THREAD, "null thread")
        await self._require_suspended(thread)
        return tagged((await ask(self.link, "THREAD_CONTENDED_MONITOR", thread=thread))["object"])

    async def top_thread_groups(self) -> list[int]:
        return [g["group"] for g in (await ask(self.link, "TOP_THREAD_GROUPS"))["groups"]]

    async def thread_group_name(self, group: int) -> str:
        return (await ask(self.link, "GROUP_INFO", group=group))["name"]

    async def thread_group_parent(self, group: int) -> int:
        return (await ask(self.link, "GROUP_INFO", group=group))["parent"]

    async def thread_group_children(self, group: int) -> tuple[list[int], list[int]]:
        """(threads, groups) directly in a group."""
        r = await ask(self.link, "GROUP_CHILDREN", group=group)
        return [t["thread"] for t in r["threads"]], [g["group"] for g in r["groups"]]

    # ------------------------------------------------------------ changes

    async def stop_thread(self, thread: int, throwable: int) -> None:
        await ask(self.link, "THREAD_STOP", thread=thread, throwable=throwable)

    async def interrupt_thread(self, thread: int) -> None:
        await ask(self.link, "THREAD_INTERRUPT", thread=thread)

    async def force_early_return(self, thread: int, value: Value) -> None:
        await ask(self.link, "THREAD_FORCE_EARLY_RETURN", thread=thread, value=to_link(value))

    # ------------------------------------------------------------ suspension, per session

    async def suspend_all(self, session: Any) -> None:
        await self.link.request("SUSPEND_ALL")
        self.threads.suspended_all(session)

    # _RESUMED_BY_LINK_END: a resume whose link ends before its reply has happened all the same: the
    # link ends when the VM dies (often because of that very resume: a thread released from its
    # ThreadDeath lets DestroyJavaVM post VMDeath before the reply is out) or when the agent resets,
    # which resumes every thread.  The reference answers such a resume with success too.
    async def resume_all(self, session: Any) -> None:
        # Frame ids stay valid for a thread that stays suspended (the reference moves a
        # thread's generation on only when it really runs).  Counts are read before the
        # resume: afterwards a thread that ran may already sit at its next event.  Only
        # threads whose frame ids are out with a debugger are worth the question.
        # The questions and the resume go in one write: one round trip in all.
        await self.start_hold.before_resume(session)
        asked = self.threads.with_frames_out()
        # The resume that gives back the start's suspend-all releases the start in the same write, after
        # it: a second round trip would often find the link gone (a program that ends once resumed takes
        # its VM down within milliseconds), and this resume, done, would then answer VM_DEAD.
        releases_start = self.start_hold.held_for(session) and self.threads.all_claims(session) <= 1
        if not asked and not releases_start:
            # Nothing to learn from the agent: RESUME_ALL cannot fail, and runs before anything
            # sent after it; nobody waits for its reply (a link round trip less per step).
            try:
                await self.link.post("RESUME_ALL")
            except AgentLinkClosed:
                return  # see _RESUMED_BY_LINK_END
            self.threads.resumed_all(session)
            return
        try:
            *counts, resumed = await self.link.request_many(
                [*(("THREAD_STATUS", {"thread": t}) for t in asked), ("RESUME_ALL", {}),
                 *([("RELEASE_START", {})] if releases_start else [])])
        except AgentLinkClosed:
            return  # see _RESUMED_BY_LINK_END
        if releases_start:
            counts, resumed = counts[:-1], counts[-1]
        if isinstance(resumed, AgentError):
            raise resumed
        still = [t for t, c in zip(asked, counts, strict=True)
                 if not isinstance(c, AgentError) and c["suspend_count"] > 1]
        self.threads.resumed_all(session, frozenset(still))
        if releases_start:
            self.start_hold.released()

    async def _suspend_count(self, thread: int) -> int:
        try:
            return (await self.link.request("THREAD_STATUS", thread=thread))["suspend_count"]
        except AgentError:
            return 0

    async def suspend_thread(self, session: Any, thread: int) -> None:
        await self.link.request("THREAD_SUSPEND", thread=thread)
        self.threads.suspended(session, thread)

    def posts_resume(self, session: Any, thread: int) -> bool:
        """Whether this debugger's resume of the thread lets it run and cannot fail, so that nobody
        need wait for the agent's reply (a link round trip less per hit)."""
        if not self.threads.held_alone_by(session, thread):
            return False
        if not self.threads.has_frames_out(thread):
            # This debugger suspended this very thread (an event's or its own Suspend), so it is
            # a live thread; the agent runs it before anything sent after it.
            return True
        # Frames are out: only a count of one read at this stop (read ahead, or by the agent at the
        # event), nothing sent since that may change it, says the frames go with this resume.
        at_stop = getattr(self.link, "stop_count", None)
        if at_stop is not None and at_stop(thread) == 1:
            return True
        ahead = getattr(self.link, "ahead_answer", None)
        known = ahead("THREAD_STATUS", thread=thread) if ahead is not None else None
        return known is not None and known["suspend_count"] == 1

    async def post_resume(self, session: Any, thread: int) -> None:
        """``resume_thread`` where ``posts_resume`` said it waits for no reply (the session's reader
        answers the debugger first: session/stop_replies.py)."""
        note = getattr(self.link, "trace_note", None)  # the remote near side's link keeps no trace
        if note is not None:
            note("after its reply:")
        try:
            await self.link.post("THREAD_RESUME", thread=thread)
        except AgentLinkClosed:
            return  # see _RESUMED_BY_LINK_END
        self.threads.resumed(session, thread, now_running=True)

    async def resume_thread(self, session: Any, thread: int) -> None:
        # Frames stay valid while the thread stays suspended (nested suspensions); the
        # count is read first, as in resume_all, and only when frame ids are out (a round
        # trip less on the hit-resume path of a debugger that did not look at the stack), and
        # then in the same write as the resume.
        try:
            if self.posts_resume(session, thread):
                await self.link.post("THREAD_RESUME", thread=thread)
                before = 1
            elif self.threads.has_frames_out(thread):
                status, resumed = await self.link.request_many(
                    [("THREAD_STATUS", {"thread": thread}), ("THREAD_RESUME", {"thread": thread})])
                if isinstance(resumed, AgentError):
                    raise resumed
                before = 0 if isinstance(status, AgentError) else status["suspend_count"]
            else:
                await self.link.request("THREAD_RESUME", thread=thread)
                before = 1
        except AgentLinkClosed:
            return  # see _RESUMED_BY_LINK_END
        self.threads.resumed(session, thread, now_running=before == 1)
