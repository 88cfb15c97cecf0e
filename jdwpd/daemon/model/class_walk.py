"""Class facts read ahead: a debugger that walks the class list gets the next classes in the same round trip.

Debuggers that index what is loaded (class browsers, a breakpoint by source line resolved
against every class, an IDE's first look at a program) take AllClasses and then ask each
class's methods (and line tables) one class after the other, in the listing's order.  Each
of those asks is a link round trip; reading the next classes of the listing in the same
write makes most of them cache hits, as a file system reads ahead a file read in order.

The listing is the latest AllClasses order (the daemon sees every listing it gives a
debugger).  The walk is recognised from the misses alone: WALK_START misses in a row, each at
most WALK_WINDOW places after the previous one in the listing (or after what was read ahead
for it).  Then each miss brings the classes that follow it, twice as many each time up to
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
        # The latest AllClasses order, as "what came next": a class listed again moves to its
        # new place; a class never listed (known from an event only) is never read ahead.
        self._after: dict[int, int] = {}
        self._last_listed: int | None = None
        self._end: int | None = None  # the last miss, or the last class read ahead for it
        self._run = 0  # misses in a row that follow each other in the listing

    def listed(self, ref: int) -> None:
        """ref comes in a listing right after the class listed before it."""
        if self._last_listed is not None and self._last_listed != ref:
            self._after[self._last_listed] = ref
        self._last_listed = ref

    def listing_ended(self) -> None:
        self._last_listed = None

    def forget(self, ref: int) -> None:
        """ref was unloaded: what follows it is not kept (the next listing links its neighbours)."""
        self._after.pop(ref, None)
        if self._last_listed == ref:
            self._last_listed = None

    def _following(self, ref: int, limit: int) -> list[int]:
        out: list[int] = []
        seen = {ref}
        nxt = self._after.get(ref)
        while nxt is not None and len(out) < limit and nxt not in seen:
            out.append(nxt)
            seen.add(nxt)
            nxt = self._after.get(nxt)
        return out

    def ahead(self, ref: int, wanted: Callable[[int], bool]) -> list[int]:
        """A miss on ref's methods: the classes to read with it (often none)."""
        follows = self._end is not None and ref in self._following(self._end, WALK_WINDOW)
        self._run = self._run + 1 if follows else 1
        self._end = ref
        if self._run < WALK_START:
            return []
        count = min(READ_AHEAD_MAX, 1 << (self._run - WALK_START + 1))
        out: list[int] = []
        for candidate in self._following(ref, count * _SCAN):
            if wanted(candidate):
                out.append(candidate)
                if len(out) == count:
                    break
        if out:
            self._end = out[-1]
        return out
