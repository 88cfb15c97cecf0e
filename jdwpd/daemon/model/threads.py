"""Suspension bookkeeping per debugger session, and frame generations.

The agent holds the real suspend counts (it is what parks and resumes threads).
The daemon keeps, per session, how many of those suspensions that session caused,
so that a debugger that leaves can be undone exactly (design.md: the VM runs on),
and the frame generation of each suspended thread as the agent last told it (the
agent counts it as the reference does: model/frames.py), forgotten whenever the
thread may have run, so that frame IDs die when their thread runs.
"""

from __future__ import annotations

from collections.abc import Hashable

import attrs

Session = Hashable  # anything identifying a debugger session


@attrs.define(eq=False)
class ThreadState:
    thread_id: int
    # The agent's frame generation of the thread while it stays suspended; None once it may have run
    # (the next frame command asks the agent again).
    frame_generation: int | None = None
    # Frame ids of the current generation are out with a debugger.
    frames_out: bool = False
    # session -> suspensions of this thread alone that the session caused
    held_by: dict = attrs.Factory(dict)


@attrs.frozen
class UndoPlan:
    """What to send to the agent to take back every suspension of one session."""

    resume_all: int
    resume_threads: tuple[tuple[int, int], ...]  # (thread id, times)

    @property
    def empty(self) -> bool:
        return self.resume_all == 0 and not self.resume_threads


class ThreadTable:
    """Per-thread and per-session suspension claims.

    A session's claim on a thread is its whole-VM suspensions plus its suspensions
    of that thread alone.  Any resume lowers the claims it touches by one, as the
    agent lowers the counts; a leaving session's claims become resumes.
    """

    def __init__(self) -> None:
        self._threads: dict[int, ThreadState] = {}
        self._all_by: dict[Session, int] = {}
        # Threads the agent parked at an event and nothing may have let run since: alive and
        # suspended for sure, which is what lets a step request go out without waiting
        # (jdwpd/daemon/commands/event_request.py).
        self._parked_at_event: set[int] = set()

    def get(self, thread_id: int) -> ThreadState:
        state = self._threads.get(thread_id)
        if state is None:
            state = self._threads[thread_id] = ThreadState(thread_id)
        return state

    def known(self) -> list[int]:
        return list(self._threads)

    def forget(self, thread_id: int) -> None:
        """The thread ended: nobody can resume it any more."""
        self._threads.pop(thread_id, None)
        self._parked_at_event.discard(thread_id)

    def parked_at_event(self, thread_id: int) -> None:
        """The agent reported an event of the thread with a suspend policy: it waits in the event."""
        self._parked_at_event.add(thread_id)

    def may_run(self) -> None:
        """Something went to the agent that may let threads run or end (a resume, an invoke, ...)."""
        self._parked_at_event.clear()

    def surely_parked(self, thread_id: int) -> bool:
        """The thread waits in an event the agent reported, and nothing may have released it."""
        return thread_id in self._parked_at_event

    # --- recording what the agent was asked to do -------------------------------------
    # Invariant: a session's claim on a thread is all_by + held_by and never negative;
    # held_by goes negative when the session resumed one thread out of its whole-VM
    # suspension (the other threads stay in it).
    def suspended(self, session: Session, thread_id: int) -> None:
        held = self.get(thread_id).held_by
        held[session] = held.get(session, 0) + 1

    def resumed(self, session: Session, thread_id: int, *, now_running: bool = True) -> None:
        state = self.get(thread_id)
        all_count = self._all_by.get(session, 0)
        claim = all_count + state.held_by.get(session, 0)
        self._set_claim(state, session, max(claim - 1, 0), all_count)
        if now_running:
            self.invalidate_frames(thread_id)

    def suspended_all(self, session: Session) -> None:
        self._all_by[session] = self._all_by.get(session, 0) + 1

    def resumed_all(self, session: Session, still_suspended: frozenset[int] = frozenset()) -> None:
        """A VM-wide resume; threads in ``still_suspended`` did not run (nested suspensions)."""
        all_count = self._all_by.get(session, 0)
        new_all = max(all_count - 1, 0)
        for state in self._threads.values():
            claim = all_count + state.held_by.get(session, 0)
            self._set_claim(state, session, max(claim - 1, 0), new_all)
            if state.thread_id not in still_suspended:
                self.invalidate_frames(state.thread_id)
        if new_all:
            self._all_by[session] = new_all
        else:
            self._all_by.pop(session, None)

    def invoke_suspended_all(self, session: Session) -> None:
        """An invoke of the session that was not single-threaded ended: every thread is suspended.

        The agent, as the reference, lifts one VM-wide level for the call (and the invoking
        thread's whole count, given back as it was) and suspends every thread at its end, "all
        threads in the target VM are suspended, regardless their state before the invocation"
        (JDI).  For the session that is a resume-all then a suspend-all: its VM-wide count and
        every claim become at least one.  From a stop that held the event thread alone, that is a
        whole-VM suspension it never asked for, which its undo must give back all the same."""
        all_count = self._all_by.get(session, 0)
        new_all = max(all_count, 1)
        for state in self._threads.values():
            claim = max(all_count + state.held_by.get(session, 0), 1)
            self._set_claim(state, session, claim, new_all)
        self._all_by[session] = new_all

    def _set_claim(self, state: ThreadState, session: Session, claim: int, all_count: int) -> None:
        held = claim - all_count
        if held:
            state.held_by[session] = held
        else:
            state.held_by.pop(session, None)

    def invalidate_frames(self, thread_id: int) -> None:
        state = self.get(thread_id)
        state.frame_generation = None
        state.frames_out = False

    def learned_generation(self, thread_id: int, generation: int) -> None:
        """The agent told the generation of a suspended thread: it holds until the thread runs."""
        self.get(thread_id).frame_generation = generation

    def frames_handed_out(self, thread_id: int, generation: int) -> None:
        """Frame ids of the thread, of the agent's ``generation``, go to a debugger: noted as in use."""
        state = self.get(thread_id)
        state.frame_generation = generation
        state.frames_out = True

    def has_frames_out(self, thread_id: int) -> bool:
        state = self._threads.get(thread_id)
        return state is not None and state.frames_out

    def with_frames_out(self) -> list[int]:
        return [s.thread_id for s in self._threads.values() if s.frames_out]

    # --- queries --------------------------------------------------------------------------
    def claims(self, session: Session, thread_id: int) -> int:
        state = self._threads.get(thread_id)
        own = state.held_by.get(session, 0) if state else 0
        return max(own + self._all_by.get(session, 0), 0)

    def all_claims(self, session: Session) -> int:
        return self._all_by.get(session, 0)

    def held_alone_by(self, session: Session, thread_id: int) -> bool:
        """The session suspended this thread by itself (not only within a whole-VM suspension)."""
        state = self._threads.get(thread_id)
        return state is not None and state.held_by.get(session, 0) > 0

    def held(self, thread_id: int) -> bool:
        """Some debugger holds the thread suspended (its own claims or a whole-VM one)."""
        state = self._threads.get(thread_id)
        return sum(self._all_by.values()) + (sum(state.held_by.values()) if state else 0) > 0

    def world_frozen(self) -> bool:
        """Debuggers hold the whole VM suspended, no thread let out of it."""
        whole = sum(self._all_by.values())
        if whole <= 0:
            return False
        return all(whole + sum(s.held_by.values()) > 0 for s in self._threads.values() if s.held_by)

    def generation(self, thread_id: int) -> int | None:
        """The thread's frame generation, if known since it last ran."""
        state = self._threads.get(thread_id)
        return state.frame_generation if state is not None else None

    # --- a session leaves ---------------------------------------------------------------
    def take_undo_plan(self, session: Session) -> UndoPlan:
        """Forget the session's claims and say what resumes give them back."""
        resume_all = self._all_by.pop(session, 0)
        threads = []
        for state in self._threads.values():
            times = state.held_by.pop(session, 0)
            # A negative count (one thread let out of a whole-VM suspension) is dropped:
            # RESUME_ALL already leaves a thread at zero alone.
            if times > 0:
                threads.append((state.thread_id, times))
        return UndoPlan(resume_all, tuple(threads))
