"""The fetch machinery of the class cache: one slot per fact, shared fetches, epochs for invalidation.

The first task that needs a fact starts the fetch; others that need it while the fetch is under
way wait on its trio.Event and read the stored result.  A fetch that fails with a status that is
a fact about the class (ABSENT_INFORMATION, NATIVE_METHOD) is remembered as such; other failures
are not.  Forgetting a scope (a class, or ("method", id)) bumps its epoch, so that a fetch that
began before stores nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import trio

from jdwpd.errors import AgentError
from protocol.constants import ErrorCode

# Statuses that describe the class itself, not the moment: safe to remember.  JVMTI says
# NATIVE_METHOD with its own number (104), JDWP with 511; ABSENT_INFORMATION is 101 in both.
JVMTI_NATIVE_METHOD = 104
STABLE_FAILURES = frozenset({int(ErrorCode.ABSENT_INFORMATION), int(ErrorCode.NATIVE_METHOD), JVMTI_NATIVE_METHOD})


@attrs.frozen
class Failure:
    """A remembered stable failure (ABSENT_INFORMATION and the like)."""

    status: int
    request: str


@attrs.define(eq=False)
class _Slot:
    """One fact: either present (value), failed stably, or being fetched (pending)."""

    value: Any = None
    present: bool = False
    pending: trio.Event | None = None


class FactStore:
    """Facts by (scope, key).  ``link`` needs only ``await link.request(name, **fields) -> dict``."""

    def __init__(self, link: Any) -> None:
        self._link = link
        # (scope, key) -> slot; scope is a reference type id or ("method", id)
        self._slots: dict[tuple, _Slot] = {}
        # scope -> the slot keys filed under it, so that forgetting a class is cheap
        self._by_scope: dict[Any, set] = {}
        # bumped by forget/redefined: a fetch that started before must not store its result
        self._epoch: dict[Any, int] = {}
        self.round_trips = 0  # agent requests made on behalf of the cache: tests count them

    async def _request(self, name: str, **fields: Any) -> dict:
        self.round_trips += 1
        return await self._link.request(name, **fields)

    async def _fact(self, scope: Any, key: Any, fetch: Callable[[], Awaitable[Any]]) -> Any:
        full = (scope, key)
        while True:
            slot = self._slots.get(full)
            if slot is None:
                break
            if slot.present:
                if isinstance(slot.value, Failure):
                    raise AgentError(slot.value.status, slot.value.request)
                return slot.value
            if slot.pending is None:  # a fetch failed transiently: try again ourselves
                break
            await slot.pending.wait()
        epoch = self._epoch.get(scope, 0)
        event = trio.Event()
        slot = _Slot(pending=event)
        self._slots[full] = slot
        self._by_scope.setdefault(scope, set()).add(full)
        try:
            try:
                value = await fetch()
            except AgentError as e:
                if e.status in STABLE_FAILURES and self._epoch.get(scope, 0) == epoch:
                    slot.value, slot.present = Failure(e.status, e.request), True
                raise
            if self._epoch.get(scope, 0) == epoch:
                slot.value, slot.present = value, True
            return value
        finally:
            slot.pending = None
            if not slot.present and self._slots.get(full) is slot:
                del self._slots[full]
            event.set()

    def _drop_scope(self, scope: Any) -> None:
        self._epoch[scope] = self._epoch.get(scope, 0) + 1
        for full in self._by_scope.pop(scope, ()):
            slot = self._slots.pop(full, None)
            if slot is not None and slot.pending is not None:
                slot.pending.set()  # waiters retry and fetch afresh

    def _put(self, scope: Any, key: Any, value: Any) -> None:
        """Store a fact learned on the way, unless it is known or being fetched already."""
        full = (scope, key)
        if full in self._slots:
            return
        self._slots[full] = _Slot(value=value, present=True)
        self._by_scope.setdefault(scope, set()).add(full)

    def kept(self, scope: Any, key: Any) -> Any:
        """A value filed with keep() (None if there is none, or it was dropped with its scope)."""
        slot = self._slots.get((scope, key))
        return slot.value if slot is not None and slot.present else None

    def keep(self, scope: Any, key: Any, value: Any, *, derived_from: Any) -> None:
        """File a value derived from the fact (scope, derived_from), such as its reply bytes: dropped with
        the fact's scope, and not filed at all if the fact has gone since it was read."""
        fact = self._slots.get((scope, derived_from))
        if fact is not None and fact.present and not isinstance(fact.value, Failure):
            self._put(scope, key, value)
