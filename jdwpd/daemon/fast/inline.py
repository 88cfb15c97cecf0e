"""Running a command handler inline, in the task that read its packet, until it needs the VM.

Most queries are answered from the daemon's caches without waiting for anything, and a
trio task plus an Event per command cost more than such an answer.  So the session's
reader calls :func:`start`, which runs the handler's coroutine synchronously: if it
finishes, the answer is there with no task at all; if it reaches a link request (the
link calls :func:`handoff_point` first) or a bare schedule point, it stops there, having
registered nothing with trio, and :func:`drive` continues it in a task of its own, from
the very point it stopped.  A coroutine that blocks on anything else (an Event another
task will set) has registered the reader with trio: the reader must drive that one
itself, with :func:`drive` too.

What a handler may not do before its first link request: enter a cancel scope, a nursery
or a lock, which belong to the task that entered them.  None does (checked by
tests/model/test_inline.py).
"""

from __future__ import annotations

import types
from collections.abc import Callable, Coroutine, Generator
from typing import Any, NoReturn

import outcome
import trio

from ..trio_private import CancelShieldedCheckpoint, WaitTaskRescheduled


class _Handoff:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<inline handoff>"


class AwaitingReply:
    """What a coroutine stops on when its link request went out whole: it needs nothing but
    the reply, so no task need wait for it (``then`` says when to go on)."""

    __slots__ = ("then",)

    def __init__(self, then: Callable[[Callable[[], None]], None]) -> None:
        self.then = then  # then(callback): callback() once the reply is in (or the link gone)


class _Woken:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<inline woken>"


HANDOFF = _Handoff()
WOKEN = _Woken()  # a wait given up (give_up_wait): the coroutine goes on as if woken
_armed = False


@types.coroutine
def _yield_handoff(what: Any) -> Generator[Any, Any, None]:
    yield what


async def handoff_point(awaiting: AwaitingReply | None = None) -> None:
    """Where a coroutine run by :func:`start` stops before it waits on I/O (a no-op otherwise)."""
    if _armed:
        await _yield_handoff(awaiting or HANDOFF)


def start(coro: Coroutine[Any, Any, Any]) -> tuple[bool, Any]:
    """Run coro synchronously (from its start, or on from where it stopped on a handoff):
    (True, its result), or (False, what it stopped on)."""
    global _armed
    was, _armed = _armed, True
    try:
        yielded = coro.send(None)
    except StopIteration as e:
        return True, e.value
    finally:
        _armed = was
    return False, yielded


def movable(yielded: Any) -> bool:
    """Whether a coroutine stopped on this may go on in another task."""
    return yielded is HANDOFF or yielded is CancelShieldedCheckpoint or isinstance(yielded, AwaitingReply)


def give_up_wait(yielded: Any) -> Any:
    """Undo a wait that registered the current task with trio (an Event's), so
    that the coroutine can go on in another task: :func:`drive` resumes it as if woken, and the
    waiting code must look again (the class cache's wait for another task's fetch does).  None
    if the wait cannot be undone."""
    # Only an Event's wait: its abort just takes the task off the event's list, and the caller
    # asks the event again.  Not a lock's park (the woken task would think it owned the lock),
    # nor a sleep's or a socket's wait (a cancel scope or a registration of the task's own).
    if isinstance(yielded, WaitTaskRescheduled) and \
            getattr(yielded.abort_func, "__qualname__", "") in _UNDOABLE_WAITS:
        if yielded.abort_func(_no_cancel) is trio.lowlevel.Abort.SUCCEEDED:
            return WOKEN
    return None


_UNDOABLE_WAITS = frozenset({"Event.wait.<locals>.abort_fn"})  # trio 0.22's Event keeps its own task set


def _no_cancel() -> NoReturn:
    # An abort function is handed a way to raise Cancelled; an Event's never uses it.
    raise AssertionError("an Event's abort cancels nothing")


@types.coroutine
def drive(coro: Coroutine[Any, Any, Any], yielded: Any) -> Generator[Any, Any, Any]:
    """Go on with a coroutine that :func:`start` left stopped on ``yielded``, in the current task."""
    while True:
        error: BaseException | None = None
        sent: Any = None
        if yielded is HANDOFF or isinstance(yielded, AwaitingReply):
            pass
        elif yielded is WOKEN:
            sent = outcome.Value(None)
        else:
            try:
                sent = yield yielded
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as e:  # cancellation and the like: the coroutine handles it
                error = e
        try:
            yielded = coro.throw(error) if error is not None else coro.send(sent)
        except StopIteration as e:
            return e.value
        finally:
            error = None
