"""Class facts read ahead: a debugger that walks the class list gets the next classes in the same round trip.

Debuggers that index what is loaded (class browsers, a breakpoint by source line resolved
against every class, an IDE's first look at a program) take AllClasses and then ask each
class's methods (and line tables) one class after the other, in the listing's order.  Each
of those asks is a link round trip; reading the next classes of the listing in the same
write makes most of them cache hits, as a file system reads ahead a file read in order.

The walk is recognised from the misses alone: WALK_START misses in a row, each at most
WALK_WINDOW places after the previous one in the listing (or after what was read ahead for
it).  Then each miss brings the classes that follow it, twice as many each time up to
READ_AHEAD_MAX.  A miss elsewhere ends the walk, so a debugger that asks here and there
costs the VM nothing more.  What is read ahead is work for the agent's thread only
(GetClassMethods, GetLineNumberTable: no safepoint, no application thread stopped).
"""

from __future__ import annotations

from collections.abc import Callable

READ_AHEAD_MAX = 32
WALK_WINDOW = 4
WALK_START = 3
_SCAN = 2  # look at most READ_AHEAD * _SCAN places on for classes not known yet


class ClassWalk:
    def __init__(self) -> None:
        self._listing: list[int] = []  # reference types in the order first learned (AllClasses order)
        self._at: dict[int, int] = {}
        self._end = -1  # listing place of the last miss, or of the last class read ahead for it
        self._run = 0  # misses in a row that follow each other in the listing

    def listed(self, ref: int) -> None:
        if ref not in self._at:
            self._at[ref] = len(self._listing)
            self._listing.append(ref)

    def ahead(self, ref: int, wanted: Callable[[int], bool]) -> list[int]:
        """A miss on ref's methods: the classes to read with it (often none)."""
        place = self._at.get(ref)
        if place is None:
            self._run = 0
            return []
        self._run = self._run + 1 if self._end < place <= self._end + WALK_WINDOW else 1
        self._end = place
        if self._run < WALK_START:
            return []
        count = min(READ_AHEAD_MAX, 1 << (self._run - WALK_START + 1))
        out: list[int] = []
        for candidate in self._listing[place + 1:place + 1 + count * _SCAN]:
            if wanted(candidate):
                out.append(candidate)
                if len(out) == count:
                    break
        if out:
            self._end = self._at[out[-1]]
        return out
