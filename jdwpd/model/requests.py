"""Event requests: ids, owning session, the reference's validation rules, the agent filter.

A request belongs to the session that set it; its id is unique across sessions
because the agent's filters are keyed by it and one agent hit may name requests
of several sessions.  The agent does the matching; the daemon keeps what it
needs to route a hit (owner, suspend policy) and to clean up (owner, kind).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import attrs

from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode, EventKind, ModKind
from protocol.link import LinkLocation

# Event kinds the reference accepts in EventRequest.Set (its jdwp2EventIndex);
# anything else is INVALID_EVENT_TYPE.
ACCEPTED_KINDS = frozenset({
    EventKind.SINGLE_STEP, EventKind.BREAKPOINT, EventKind.FRAME_POP, EventKind.EXCEPTION,
    EventKind.THREAD_START, EventKind.THREAD_DEATH, EventKind.CLASS_PREPARE, EventKind.CLASS_UNLOAD,
    EventKind.CLASS_LOAD, EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION, EventKind.EXCEPTION_CATCH,
    EventKind.METHOD_ENTRY, EventKind.METHOD_EXIT, EventKind.METHOD_EXIT_WITH_RETURN_VALUE,
    EventKind.MONITOR_CONTENDED_ENTER, EventKind.MONITOR_CONTENDED_ENTERED, EventKind.MONITOR_WAIT,
    EventKind.MONITOR_WAITED, EventKind.VM_START, EventKind.VM_DEATH,
})
# Kinds the reference accepts but never reports to a debugger, and VMStart, which is
# already past: they get an id and nothing is installed in the agent.
NEVER_REPORTED = frozenset({EventKind.FRAME_POP, EventKind.CLASS_LOAD, EventKind.EXCEPTION_CATCH,
                            EventKind.VM_START})
# Kinds that share one JVMTI event in the reference, hence one per-kind table for Clear.
_CLEAR_ALIAS = {EventKind.METHOD_EXIT_WITH_RETURN_VALUE: EventKind.METHOD_EXIT}

_LOCATION_KINDS = frozenset({EventKind.BREAKPOINT, EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION,
                             EventKind.SINGLE_STEP, EventKind.EXCEPTION})
_FIELD_KINDS = frozenset({EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION})
_THREAD_KINDS = frozenset({EventKind.THREAD_START, EventKind.THREAD_DEATH})


@attrs.frozen
class Modifier:
    """One JDWP modifier, decoded: mod_kind plus its fields under the agent's names."""

    mod_kind: int
    args: dict = attrs.field(factory=dict, hash=False)


def check_modifier(event_kind: int, mod: Modifier) -> None:
    """The reference's per-modifier rules (its eventFilter_set* checks), in its codes."""
    k = mod.mod_kind
    illegal = False
    if k == ModKind.COUNT:
        if mod.args["count"] <= 0:
            raise JdwpError(ErrorCode.INVALID_COUNT, "count must be positive")
    elif k == ModKind.CONDITIONAL:
        pass
    elif k == ModKind.THREAD_ONLY:
        illegal = event_kind == EventKind.CLASS_UNLOAD
    elif k == ModKind.CLASS_ONLY:
        illegal = event_kind == EventKind.CLASS_UNLOAD or event_kind in _THREAD_KINDS
    elif k in (ModKind.CLASS_MATCH, ModKind.CLASS_EXCLUDE):
        illegal = event_kind in _THREAD_KINDS
    elif k == ModKind.LOCATION_ONLY:
        illegal = event_kind not in _LOCATION_KINDS
    elif k == ModKind.EXCEPTION_ONLY:
        illegal = event_kind != EventKind.EXCEPTION
    elif k == ModKind.FIELD_ONLY:
        illegal = event_kind not in _FIELD_KINDS
    elif k == ModKind.STEP:
        illegal = event_kind != EventKind.SINGLE_STEP
    elif k == ModKind.INSTANCE_ONLY:
        pass
    elif k == ModKind.SOURCE_NAME_MATCH:
        illegal = event_kind != EventKind.CLASS_PREPARE
    elif k == ModKind.PLATFORM_THREADS_ONLY:
        pass
    else:
        illegal = True
    if illegal:
        raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, f"modifier {k} does not apply to event {event_kind}")


@attrs.frozen
class EventRequest:
    request_id: int
    event_kind: int
    suspend_policy: int
    modifiers: tuple = ()
    owner: Hashable = None
    in_agent: bool = True

    @property
    def clear_kind(self) -> int:
        return _CLEAR_ALIAS.get(self.event_kind, self.event_kind)

    def agent_fields(self) -> dict[str, Any]:
        """The SET_REQUEST body: JDWP numbers, modifier fields under the link's names."""
        return {
            "request_id": self.request_id,
            "event_kind": self.event_kind,
            "suspend_policy": self.suspend_policy,
            "modifiers": [{"mod_kind": m.mod_kind, "args": dict(m.args)} for m in self.modifiers],
        }


def location_for_link(loc: Any) -> LinkLocation:
    """A JDWP location (wire.Location or anything with its fields) as the link's LOC."""
    return LinkLocation(int(loc.type_tag), int(loc.class_id), int(loc.method_id), int(loc.index))


class RequestTable:
    """Every live request of every session, by id."""

    def __init__(self, first_id: int = 1) -> None:
        self._next_id = first_id
        self._by_id: dict[int, EventRequest] = {}

    def allocate_id(self) -> int:
        rid = self._next_id
        self._next_id += 1
        return rid

    def add(self, request: EventRequest) -> None:
        self._by_id[request.request_id] = request

    def get(self, request_id: int) -> EventRequest | None:
        return self._by_id.get(request_id)

    def remove(self, request_id: int) -> EventRequest | None:
        return self._by_id.pop(request_id, None)

    def find(self, owner: Hashable, event_kind: int, request_id: int) -> EventRequest | None:
        """The request Clear means: the reference looks the id up in the kind's own table."""
        req = self._by_id.get(request_id)
        if req is None or req.owner is not owner:
            return None
        if req.clear_kind != _CLEAR_ALIAS.get(event_kind, event_kind):
            return None
        return req

    def owned_by(self, owner: Hashable, event_kind: int | None = None) -> list[EventRequest]:
        return [r for r in self._by_id.values()
                if r.owner is owner and (event_kind is None or r.event_kind == event_kind)]

    def of_kind(self, event_kind: int) -> list[EventRequest]:
        return [r for r in self._by_id.values() if r.event_kind == event_kind]

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterable[EventRequest]:
        return iter(list(self._by_id.values()))
