"""Per-session object bookkeeping: DisableCollection pins and DisposeObjects counts.

The agent's object table gives every object one stable id (weakly held) and
counts pins (strong references).  What the daemon adds is ownership: which
session pinned what, so a leaving debugger's pins are dropped, and which ids
a session still holds, so an id no session holds can be released in the agent.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable


class ObjectRefs:
    def __init__(self) -> None:
        self._pins: dict[Hashable, dict[int, int]] = {}
        self._held: dict[Hashable, dict[int, int]] = {}

    # --- DisableCollection / EnableCollection --------------------------------------------
    def pinned(self, session: Hashable, object_id: int) -> None:
        pins = self._pins.setdefault(session, {})
        pins[object_id] = pins.get(object_id, 0) + 1

    def unpinned(self, session: Hashable, object_id: int) -> bool:
        """Record an EnableCollection; False if this session never pinned the object."""
        pins = self._pins.get(session, {})
        n = pins.get(object_id, 0)
        if n == 0:
            return False
        if n == 1:
            del pins[object_id]
        else:
            pins[object_id] = n - 1
        return True

    def pins_of(self, session: Hashable) -> dict[int, int]:
        return dict(self._pins.get(session, {}))

    # --- ids handed to a debugger, and DisposeObjects --------------------------------------
    # As the reference counts: once per time an id is written in a reply or an event (every one,
    # dispatch.py and Session.send_event call sent()); DisposeObjects takes refCnt off.  Counted per
    # session, so that a debugger's disposals never take an id from another that holds it.
    def sent(self, session: Hashable, object_ids: Iterable[int]) -> None:
        held = self._held.get(session)
        if held is None:
            held = self._held[session] = {}
        get = held.get
        for oid in object_ids:
            held[oid] = get(oid, 0) + 1

    def disposed(self, session: Hashable, object_id: int, ref_count: int) -> bool:
        """Record DisposeObjects; True when the count reached 0 and no session holds the id any more."""
        held = self._held.get(session, {})
        n = held.get(object_id, 0)
        if n == 0:
            # Never sent to this session, or disposed already: nothing of its count to take.
            return False
        if n > ref_count:
            held[object_id] = n - ref_count
            return False
        # More disposals than sends (the reference's VM dies of it) count as all of them.
        del held[object_id]
        return not self.held_anywhere(object_id)

    def released(self, object_ids: Iterable[int]) -> None:
        """The agent forgot these ids: their pins went with them (as in the reference, where a disposed
        id's pin goes with its entry), so no EnableCollection or departure undoes them."""
        for pins in self._pins.values():
            for oid in object_ids:
                pins.pop(oid, None)

    def count(self, session: Hashable, object_id: int) -> int:
        return self._held.get(session, {}).get(object_id, 0)

    def held_anywhere(self, object_id: int) -> bool:
        return any(object_id in held for held in self._held.values())

    # --- a session leaves ------------------------------------------------------------------
    def forget_session(self, session: Hashable) -> tuple[dict[int, int], list[int]]:
        """Drop the session; return its pins (to undo) and the ids nobody holds any more."""
        pins = self._pins.pop(session, {})
        held = self._held.pop(session, {})
        orphans = [oid for oid in held if not self.held_anywhere(oid)]
        return pins, orphans
