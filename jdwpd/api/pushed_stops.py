"""Stops that jdwpd pushed with their events: a script's first questions at a stop answered here.

At every hit the API asks the stopped thread for its top frame (``ThreadReference.Frames``) and, to
render a template or test a condition, the frame's locals (``StackFrame.GetValues``): two round
trips while the thread is held.  A jdwpd server that offers ``PUSHED_STOPS`` sends, after
``Jdwpd.PushStops(true)``, the answers with the event (a JdwpdStop: protocol/pushed_stop.py): the
thread's stack and its top frame's locals of primitive types, read at the stop.  The connection
answers those commands from them, byte for byte what the server would say; a GetValues that also
asks for other slots asks the server for those alone.

What was pushed holds while the thread stays held: it is dropped when this connection sends a
command that may change it (one that is ``mutating``, ``invokes`` or ``changes_state`` in
protocol/spec.py: a resume, an invoke, SetValues, PopFrames ...), and replaced or dropped when an
event of that thread comes.
"""

from __future__ import annotations

from typing import Any

from protocol import spec
from protocol.constants import EventKind
from protocol.pushed_stop import PushedStop, PushedStopError, decode_stop, split_values, values_reply

__all__ = ["PushedStops"]

_FRAMES = spec.by_name("ThreadReference", "Frames")
_FRAME_COUNT = spec.by_name("ThreadReference", "FrameCount")
_GET_VALUES = spec.by_name("StackFrame", "GetValues")
_ANSWERED = frozenset((_FRAMES, _FRAME_COUNT, _GET_VALUES))
# Commands that leave a held thread's frames and locals as they are.
_KEEPS = frozenset(key for key, cs in spec.COMMANDS.items() if not (cs.mutating or cs.invokes or cs.changes_state))


class PushedStops:
    """The pushed stops of one connection, by thread; ``answered`` counts the commands they saved."""

    def __init__(self) -> None:
        self._stops: dict[int, PushedStop] = {}
        self.answered = 0

    def file(self, events: tuple) -> tuple:
        """A composite's events without its JdwpdStops, which are kept; any other event of a
        thread drops what was kept for it (it ran, or stopped anew)."""
        if not self._stops and not any(int(e.event_kind) == EventKind.JDWPD_STOP for e in events):
            return events
        out = []
        pushed = []
        for e in events:
            thread = getattr(e, "thread", None)
            if int(e.event_kind) == EventKind.JDWPD_STOP:
                pushed.append(e)
                continue
            if thread is not None:
                self._stops.pop(thread, None)
            out.append(e)
        for e in pushed:
            try:
                self._stops[e.thread] = decode_stop(e.thread, bytes(e.data))
            except PushedStopError:
                self._stops.pop(e.thread, None)  # asked of the server, as without the extension
        return tuple(out)

    def sent(self, set_id: int, cmd_id: int) -> None:
        """A command goes to the server: one that may change a held thread drops every stop."""
        if self._stops and (set_id, cmd_id) not in _KEEPS:
            self._stops.clear()

    def answer(self, cs: spec.CommandSpec, fields: Any) -> bytes | None:
        """The reply body of a FrameCount or Frames answered from a pushed stop, or None."""
        if not self._stops or cs not in _ANSWERED or cs is _GET_VALUES:
            return None
        stop = self._stops.get(_field(fields, "thread"))
        if stop is None:
            return None
        if cs is _FRAME_COUNT:
            body: bytes | None = stop.frame_count_reply()
        else:
            body = stop.frames_reply(_field(fields, "start_frame"), _field(fields, "length"))
        if body is not None:
            self.answered += 1
        return body

    def values(self, fields: Any) -> tuple[list[bytes | None], list[tuple[int, int]]] | None:
        """A GetValues in two parts: the values pushed (None at the places of the others) and the
        (slot, sigbyte) pairs still to ask, in order; None if nothing pushed answers any of it."""
        if not self._stops:
            return None
        stop = self._stops.get(_field(fields, "thread"))
        if stop is None:
            return None
        slots = [_slot(s) for s in _field(fields, "slots")]
        known = stop.known_values(_field(fields, "frame"), slots)
        if known is None or all(v is None for v in known):
            return None
        self.answered += 1
        return known, [s for s, v in zip(slots, known, strict=True) if v is None]

    @staticmethod
    def merge(known: list[bytes | None], asked_reply: bytes) -> bytes:
        """The whole GetValues reply body: the pushed values with the server's answers in their places."""
        answers = iter(split_values(asked_reply) if asked_reply else ())
        return values_reply([v if v is not None else next(answers) for v in known])


def _field(fields: Any, name: str) -> Any:
    return fields[name] if isinstance(fields, dict) else getattr(fields, name)


def _slot(s: Any) -> tuple[int, int]:
    if isinstance(s, tuple):
        return int(s[0]), int(s[1])
    if isinstance(s, dict):
        return int(s["slot"]), int(s["sigbyte"])
    return int(s.slot), int(s.sigbyte)
