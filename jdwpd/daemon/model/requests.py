"""Event requests: ids, owning session, the reference's validation rules, the agent filter.

A request belongs to the session that set it.  It has two ids: the JDWP one,
which the session's debugger sees (each session counts from FIRST_REQUEST_ID,
as the reference does after every attach), and the agent one, unique across
sessions, because the agent's filters are keyed by it and one agent hit may name
requests of several sessions.  The agent does the matching; the daemon keeps what it
needs to route a hit (owner, suspend policy) and to clean up (owner, kind).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import attrs

from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode, EventKind, ModKind
from protocol.link import LinkLocation

# Event kinds the reference accepts in EventRequest.Set; anything else (USER_DEFINED,
# FRAME_POP, CLASS_LOAD, EXCEPTION_CATCH: observed on OpenJDK 17) is INVALID_EVENT_TYPE.
ACCEPTED_KINDS = frozenset({
    EventKind.SINGLE_STEP, EventKind.BREAKPOINT, EventKind.EXCEPTION,
    EventKind.THREAD_START, EventKind.THREAD_DEATH, EventKind.CLASS_PREPARE, EventKind.CLASS_UNLOAD,
    EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION,
    EventKind.METHOD_ENTRY, EventKind.METHOD_EXIT, EventKind.METHOD_EXIT_WITH_RETURN_VALUE,
    EventKind.MONITOR_CONTENDED_ENTER, EventKind.MONITOR_CONTENDED_ENTERED, EventKind.MONITOR_WAIT,
    EventKind.MONITOR_WAITED, EventKind.VM_START, EventKind.VM_DEATH,
})
# VMStart is already past: such a request gets an id and nothing is installed in the agent.
NEVER_REPORTED = frozenset({EventKind.VM_START})
# Kinds the reference knows but refuses to install: it checks their modifiers first (so a
# modifier that does not apply is ILLEGAL_ARGUMENT), then answers INVALID_EVENT_TYPE.
KNOWN_BUT_REFUSED = frozenset({EventKind.FRAME_POP, EventKind.CLASS_LOAD, EventKind.EXCEPTION_CATCH})


def suspension(policy: int) -> int:
    """What a request's suspend policy suspends: the reference accepts any byte, and one that
    is neither EVENT_THREAD nor ALL suspends nothing (the composite still carries it)."""
    return policy if policy in (1, 2) else 0


def is_inert(event_kind: int, modifiers: Iterable[Modifier]) -> bool:
    """Requests the reference accepts and that never fire: a step without a Step modifier or
    with a size or depth it does not know, an InstanceOnly of the null object.  They get an id
    and stay out of the agent."""
    mods = list(modifiers)
    steps = [m for m in mods if m.mod_kind == ModKind.STEP]
    if event_kind == EventKind.SINGLE_STEP and not steps:
        return True
    if any(m.args["size"] not in (0, 1) or m.args["depth"] not in (0, 1, 2) for m in steps):
        return True
    return any(m.mod_kind == ModKind.INSTANCE_ONLY and not m.args["object"] for m in mods)
# Kinds that share one JVMTI event in the reference, hence one per-kind table for Clear.
_CLEAR_ALIAS: dict[int, int] = {EventKind.METHOD_EXIT_WITH_RETURN_VALUE: EventKind.METHOD_EXIT}

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
            # The reference returns INVALID_COUNT where a JVMTI error is expected, and
            # its JVMTI->JDWP map turns that into INTERNAL (observed on OpenJDK 17).
            raise JdwpError(ErrorCode.INTERNAL, "count must be positive")
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
        # The spec restricts it to thread start and end; the JDK 21+ reference refuses it elsewhere.
        illegal = event_kind not in _THREAD_KINDS
    else:
        illegal = True
    if illegal:
        raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, f"modifier {k} does not apply to event {event_kind}")


# The reference's first EventRequest.Set answers 2 (observed on OpenJDK 17), after every attach.
FIRST_REQUEST_ID = 2


def check_request(event_kind: int, modifiers: Iterable[Modifier]) -> None:
    """Whole-request rules, checked after the modifiers as the reference installs the handler."""
    kinds = {m.mod_kind for m in modifiers}
    if event_kind == EventKind.BREAKPOINT and ModKind.LOCATION_ONLY not in kinds:
        raise JdwpError(ErrorCode.INTERNAL, "a breakpoint request needs a LocationOnly modifier")
    if event_kind in _FIELD_KINDS and ModKind.FIELD_ONLY not in kinds:
        raise JdwpError(ErrorCode.INTERNAL, "a watchpoint request needs a FieldOnly modifier")


@attrs.frozen
class EventRequest:
    agent_id: int
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
            "request_id": self.agent_id,
            "event_kind": self.event_kind,
            "suspend_policy": suspension(self.suspend_policy),
            "modifiers": [{"mod_kind": m.mod_kind, "args": dict(m.args)} for m in self.modifiers],
        }


def location_for_link(loc: Any) -> LinkLocation:
    """A JDWP location (wire.Location or anything with its fields) as the link's LOC."""
    # The link's LOC carries the (signed) jlocation as an unsigned 64-bit field.
    return LinkLocation(int(loc.type_tag), int(loc.class_id), int(loc.method_id), int(loc.index) & ((1 << 64) - 1))


class RequestTable:
    """Every live request of every session, by agent id."""

    def __init__(self) -> None:
        self._next_agent_id = 1
        self._next_jdwp_id: dict[Hashable, int] = {}
        self._by_id: dict[int, EventRequest] = {}

    def allocate_agent_id(self) -> int:
        rid = self._next_agent_id
        self._next_agent_id += 1
        return rid

    def allocate_request_id(self, owner: Hashable) -> int:
        rid = self._next_jdwp_id.get(owner, FIRST_REQUEST_ID)
        self._next_jdwp_id[owner] = rid + 1
        return rid

    def new_request(self, owner: Hashable, event_kind: int, suspend_policy: int, modifiers: tuple = (),
                    in_agent: bool = True) -> EventRequest:
        """A request with fresh ids (not yet in the table: add it once the agent took it)."""
        return EventRequest(self.allocate_agent_id(), self.allocate_request_id(owner), int(event_kind),
                            int(suspend_policy), tuple(modifiers), owner, in_agent)

    def add(self, request: EventRequest) -> None:
        self._by_id[request.agent_id] = request

    def get(self, agent_id: int) -> EventRequest | None:
        return self._by_id.get(agent_id)

    def remove(self, agent_id: int) -> EventRequest | None:
        return self._by_id.pop(agent_id, None)

    def forget_owner(self, owner: Hashable) -> list[EventRequest]:
        """Drop an owner's requests and its id counter; return what was dropped."""
        gone = [r for r in self._by_id.values() if r.owner is owner]
        for r in gone:
            del self._by_id[r.agent_id]
        self._next_jdwp_id.pop(owner, None)
        return gone

    def find(self, owner: Hashable, event_kind: int, request_id: int) -> EventRequest | None:
        """The request Clear means: the reference looks the id up in the kind's own table."""
        kind = _CLEAR_ALIAS.get(event_kind, event_kind)
        for req in self._by_id.values():
            if req.owner is owner and req.request_id == request_id and req.clear_kind == kind:
                return req
        return None

    def owned_by(self, owner: Hashable, event_kind: int | None = None) -> list[EventRequest]:
        return [r for r in self._by_id.values()
                if r.owner is owner and (event_kind is None or r.event_kind == event_kind)]

    def of_kind(self, event_kind: int) -> list[EventRequest]:
        return [r for r in self._by_id.values() if r.event_kind == event_kind]

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterable[EventRequest]:
        return iter(list(self._by_id.values()))
