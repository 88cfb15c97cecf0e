"""Invokes under way, per session: what a debugger that leaves mid-call must detach in the agent.

An invoke lifts suspensions for its call (its thread's whole count, and one VM-wide level unless
single-threaded) and the agent gives them back when the call ends; unless single-threaded its end
suspends every thread, whatever held them before, which the session's claims then count
(ThreadTable.invoke_suspended_all).  A debugger that leaves meanwhile must not have them given back:
its own share is undone now, the rest when the call ends (INVOKE_DETACH), as the reference's
detached invoke suspends nothing again.
"""

from __future__ import annotations

from collections.abc import Hashable

import attrs

from protocol.constants import InvokeOptions


@attrs.frozen
class Detach:
    """One INVOKE_DETACH: the session's claims on the invoking thread, and whether the call lifted a
    VM-wide level (not single-threaded) that must stay lifted.  Never suspending again is the safe
    side: a second call lifts nothing more than the first did, yet would suspend every thread at its
    end, for a debugger that is gone."""

    thread: int
    drop_count: int
    drop_all: bool


class InvokeTable:
    def __init__(self) -> None:
        self._by_session: dict[Hashable, dict[int, int]] = {}

    def started(self, session: Hashable, thread: int, options: int) -> None:
        self._by_session.setdefault(session, {})[thread] = options

    def answered(self, session: Hashable, thread: int) -> None:
        """The agent answered the invoke: it gave back what it lifted, nothing left to detach."""
        running = self._by_session.get(session)
        if running is not None:
            running.pop(thread, None)
            if not running:
                del self._by_session[session]

    def take(self, session: Hashable, claims: dict[int, int]) -> list[Detach]:
        """Forget the session's invokes; the detaches to send (``claims``: the session's claim on each
        invoking thread, read before its undo plan was taken)."""
        return [Detach(thread, claims.get(thread, 0), not options & InvokeOptions.INVOKE_SINGLE_THREADED)
                for thread, options in self._by_session.pop(session, {}).items()]

    def any_running(self) -> bool:
        """Some session's invoke is not answered yet: a thread runs user code."""
        return bool(self._by_session)

    def threads_of(self, session: Hashable) -> list[int]:
        return list(self._by_session.get(session, {}))
