"""The VM's start hold: the agent holds the VM at its start until the debugger owed the start event
resumes it (the reference's suspend=y; onthrow=/onuncaught=, whose start is the exception that woke
the agent; a debugger dialed at start, the reference's server=n).

One state machine, in the manner of h11's _state.py: the state and its transitions are here, the VM
(vm.py: a debugger attaches or leaves, the agent's start event arrives) and its resume
(facade/threads.py) call the transitions and send what they say to the agent.  It is the façade's,
not the model's: a resume waits here for the start event, and nothing in the model may wait
(tests/model/test_inline.py).

    NOT_HELD                      the VM started running (suspend=n): nothing to release
    WAITING --take(s)--> TAKEN    the first debugger to come (the dialed one, if one was dialed)
    TAKEN --released()--> RELEASED  its resume of the whole VM, or its leaving after one, let go
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any

import attrs
import trio

from protocol.constants import EventKind
from protocol.link import HelloFlag

# How long the start waits for the agent's start event (it comes once the main thread has reached VMInit).
START_WAIT = 5.0


class StartState(enum.Enum):
    NOT_HELD = "not held"
    WAITING = "waiting"
    TAKEN = "taken"
    RELEASED = "released"


@attrs.define(eq=False)
class StartHold:
    #: The start event's kind: VMStart, or the exception that woke the agent (onthrow=/onuncaught=).
    kind: int
    #: A debugger dialed at start with suspend=n: the agent holds the start all the same, so that
    #: nothing runs before that debugger is there (the reference connects before VMInit ends); the
    #: VM then runs and the debugger gets VMStart with SUSPEND_NONE, as the reference sends it.
    runs: bool
    #: Only the debugger dialed at start may take it (a debugger that connected meanwhile may not).
    goes_to_dialed: bool
    _state: StartState
    _owner: Any = None
    _thread: int | None = None
    _event: Any = None
    _arrived: trio.Event = attrs.field(factory=trio.Event)

    @classmethod
    def from_hello(cls, flags: int, *, runs: bool = False, goes_to_dialed: bool = False) -> StartHold:
        """The hold the agent's hello announces (HelloFlag.SUSPEND_ON_START, STARTED_BY_EXCEPTION)."""
        held = bool(flags & HelloFlag.SUSPEND_ON_START)
        kind = EventKind.EXCEPTION if flags & HelloFlag.STARTED_BY_EXCEPTION else EventKind.VM_START
        hold = cls(int(kind), runs, goes_to_dialed, StartState.WAITING if held else StartState.NOT_HELD)
        if not held:
            hold._arrived.set()  # nobody waits for a start that holds nothing
        return hold

    @property
    def state(self) -> StartState:
        return self._state

    @property
    def thread(self) -> int | None:
        """The thread the start event came on (None: not yet)."""
        return self._thread

    @property
    def event(self) -> Any:
        """The start event when it is not a plain VMStart (the waking exception), else None."""
        return self._event

    # ------------------------------------------------------------ transitions

    def take(self, session: Any) -> bool:
        """``session`` takes the start if it is owed it: the first debugger to come while the VM is
        held, or the dialed one.  True: it gets the start event, and its resume releases the hold."""
        if self._state is not StartState.WAITING or (self.goes_to_dialed and not session.dialed):
            return False
        self._owner = session
        self._state = StartState.TAKEN
        return True

    def released(self) -> None:
        """The owner's resume or leaving let the VM go (the agent was sent RELEASE_START)."""
        if self._state is StartState.TAKEN:
            self._state = StartState.RELEASED

    def start_hit(self, hits: Iterable[dict]) -> dict | None:
        """The agent's start among an event's hits (request 0, of the start's kind), if it is one the
        hold takes: any VMStart, or the waking exception while the start is held."""
        hit = next((h for h in hits if h["event_kind"] == self.kind and h["request_id"] == 0), None)
        if hit is None or not (self.pending or hit["event_kind"] == EventKind.VM_START):
            return None
        return hit

    def arrived(self, thread: int, event: Any = None) -> None:
        """The agent reported the start on ``thread`` (``event``: a start that is not VMStart)."""
        self._thread = thread
        if event is not None:
            self._event = event
        self._arrived.set()

    # ------------------------------------------------------------ queries

    @property
    def pending(self) -> bool:
        """The agent still holds the start."""
        return self._state in (StartState.WAITING, StartState.TAKEN)

    def held_for(self, session: Any) -> bool:
        """The start is held, taken by ``session``: its resume of the whole VM releases it."""
        return self._state is StartState.TAKEN and self._owner is session

    async def wait_arrival(self) -> None:
        """Until the agent reported the start (at most START_WAIT seconds)."""
        with trio.move_on_after(START_WAIT):
            await self._arrived.wait()

    async def before_resume(self, session: Any) -> None:
        """The agent suspends the VM for its start just before it reports the start event: a resume
        that reached it first would find nothing to resume, and the start suspension would then hold
        the VM for good (a debugger that resumes before its VMStart arrives).  The owner's resume
        waits for the start first."""
        if self.held_for(session) and not self._arrived.is_set():
            await self.wait_arrival()
