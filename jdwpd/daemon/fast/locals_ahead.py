"""Locals read ahead: at a stop, the locals of every frame in one link round trip.

JDI reads locals frame by frame, one StackFrame.GetValues (and so one link round trip)
each.  The slots a debugger reads at a code location are the ones it read there last time
(the variables visible there), so at the first GetValues of a stop the daemon also asks,
in the same write, for the locals of every other frame whose location it has seen read;
the later GetValues of that stop are answered from those replies.  They hold while the
thread stays suspended: a frame generation (model/threads.py) ends when the thread runs,
and a SetValues forgets what was read ahead for its thread.
"""

from __future__ import annotations

from typing import Any

import attrs

Slots = tuple[tuple[int, int], ...]  # (slot, tag) pairs, in the order asked
LOCATIONS_KEPT = 4096


@attrs.define
class _Stop:
    generation: int
    locations: list[tuple[int, int]]  # (method, index) by depth, from the stop's Frames
    read: dict[tuple[int, Slots], Any] | None = None  # (depth, slots) -> reply fields or AgentError


class LocalsAhead:
    def __init__(self) -> None:
        self._read_at: dict[tuple[int, int], Slots] = {}
        self._stops: dict[int, _Stop] = {}

    def saw_frames(self, thread: int, generation: int, frames: list[dict]) -> None:
        """The whole stack of a stop, as THREAD_FRAMES gave it (start 0)."""
        self._stops[thread] = _Stop(generation, [(f["method"], f["index"]) for f in frames])

    def _stop(self, thread: int, generation: int | None) -> _Stop | None:
        # a generation of None (none known since the thread last ran: model/threads.py) matches no stop
        stop = self._stops.get(thread)
        return stop if stop is not None and stop.generation == generation else None

    def has_stop(self, thread: int, generation: int | None) -> bool:
        """The stop's whole stack was seen (the first GetValues then reads the other frames' too)."""
        return self._stop(thread, generation) is not None

    def answer(self, thread: int, generation: int | None, depth: int, slots: Slots) -> Any:
        """What was read ahead for exactly these slots of this frame, or None."""
        stop = self._stop(thread, generation)
        if stop is None or stop.read is None:
            return None
        return stop.read.pop((depth, slots), None)

    def plan(self, thread: int, generation: int | None, depth: int, slots: Slots) -> list[tuple[int, Slots]]:
        """What to read now: this frame's slots first, then (once per stop) the other frames'."""
        reads = [(depth, slots)]
        stop = self._stop(thread, generation)
        if stop is None:
            return reads
        if depth < len(stop.locations):
            self._remember(stop.locations[depth], slots)
        if stop.read is not None:
            return reads
        stop.read = {}
        for d, location in enumerate(stop.locations):
            known = self._read_at.get(location)
            if d != depth and known:
                reads.append((d, known))
        return reads

    def keep(self, thread: int, generation: int | None, reads: list[tuple[int, Slots]], results: list[Any]) -> None:
        stop = self._stop(thread, generation)
        if stop is not None and stop.read is not None:
            stop.read.update(zip(reads, results, strict=True))

    def forget(self, thread: int) -> None:
        """The thread's locals changed (SetValues): nothing read ahead holds."""
        stop = self._stops.get(thread)
        if stop is not None:
            stop.read = {}

    def _remember(self, location: tuple[int, int], slots: Slots) -> None:
        if len(self._read_at) >= LOCATIONS_KEPT and location not in self._read_at:
            self._read_at.clear()
        self._read_at[location] = slots
