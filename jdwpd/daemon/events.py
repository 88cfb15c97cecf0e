"""Agent EVENT bodies -> one JDWP composite per owning session.

The agent matched the hits and already applied the strongest suspend policy
among them (one suspension, whoever asked).  Here each hit goes to the session
that owns its request; a session's composite carries the strongest policy among
ITS requests.  The agent's one suspension is attributed to one session that asked
for that policy; every other session that asked for a suspension gets its own
extra suspension (so that each debugger's resume undoes only its own), and a
suspension nobody still wants (request cleared or session gone meanwhile) is
given back at once.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import attrs

from protocol.constants import EventKind, SuspendPolicy, TypeTag
from protocol.link import LinkLocation
from protocol.messages import EventMessage, Events
from protocol.wire import Location

from .facade.values import tagged, to_jdwp
from .model.requests import RequestTable, suspension


def jdwp_location(loc: LinkLocation) -> Location:
    if loc.ref == 0:
        # No class (an uncaught exception's catch location): the reference writes a
        # class tag, a null class, a null method and index 0.
        return Location(int(TypeTag.CLASS), 0, 0, 0)
    # The link's LOC carries the index unsigned; a jlocation is signed (-1: native method).
    index = loc.index - (1 << 64) if loc.index >= 1 << 63 else loc.index
    return Location(loc.ref_kind, loc.ref, loc.method, index)


def event_of_hit(kind: int, request_id: int, thread: int, data: dict) -> EventMessage:
    """One Events.* instance from a hit's payload (protocol/link.py HIT_FIELDS).  Its objects and
    values are made as the façade makes any (facade/values.py); a value here is one the reference
    writes by its declared type."""
    if kind in (EventKind.SINGLE_STEP, EventKind.BREAKPOINT, EventKind.METHOD_ENTRY, EventKind.METHOD_EXIT):
        located: dict[int, Callable[[int, int, Location], EventMessage]] = {
            EventKind.SINGLE_STEP: Events.SingleStep, EventKind.BREAKPOINT: Events.Breakpoint,
            EventKind.METHOD_ENTRY: Events.MethodEntry, EventKind.METHOD_EXIT: Events.MethodExit}
        return located[kind](request_id, thread, jdwp_location(data["location"]))  # their fields, in order
    if kind == EventKind.METHOD_EXIT_WITH_RETURN_VALUE:
        return Events.MethodExitWithReturnValue(request_id=request_id, thread=thread,
                                                location=jdwp_location(data["location"]),
                                                value=to_jdwp(data["value"], by_declared_type=True))
    if kind in (EventKind.MONITOR_CONTENDED_ENTER, EventKind.MONITOR_CONTENDED_ENTERED):
        monitor = Events.MonitorContendedEnter if kind == EventKind.MONITOR_CONTENDED_ENTER \
            else Events.MonitorContendedEntered
        return monitor(request_id=request_id, thread=thread, object=tagged(data["object"]),
                   location=jdwp_location(data["location"]))
    if kind == EventKind.MONITOR_WAIT:
        return Events.MonitorWait(request_id=request_id, thread=thread, object=tagged(data["object"]),
                                  location=jdwp_location(data["location"]), timeout=data["timeout"])
    if kind == EventKind.MONITOR_WAITED:
        return Events.MonitorWaited(request_id=request_id, thread=thread, object=tagged(data["object"]),
                                    location=jdwp_location(data["location"]), timed_out=data["timed_out"])
    if kind == EventKind.EXCEPTION:
        return Events.Exception(request_id=request_id, thread=thread, location=jdwp_location(data["location"]),
                                exception=tagged(data["exception"]),
                                catch_location=jdwp_location(data["catch_location"]))
    if kind == EventKind.THREAD_START:
        return Events.ThreadStart(request_id=request_id, thread=thread)
    if kind == EventKind.THREAD_DEATH:
        return Events.ThreadDeath(request_id=request_id, thread=thread)
    if kind == EventKind.CLASS_PREPARE:
        return Events.ClassPrepare(request_id=request_id, thread=thread, ref_type_tag=data["ref_kind"],
                                   type_id=data["ref"], signature=data["signature"], status=data["status"])
    if kind == EventKind.CLASS_UNLOAD:
        return Events.ClassUnload(request_id=request_id, signature=data["signature"])
    if kind in (EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION):
        common = dict(request_id=request_id, thread=thread, location=jdwp_location(data["location"]),
                      ref_type_tag=data["ref_kind"], type_id=data["ref"], field_id=data["field"],
                      object=tagged(data["object"]))
        if kind == EventKind.FIELD_ACCESS:
            return Events.FieldAccess(**common)
        return Events.FieldModification(**common, value_to_be=to_jdwp(data["value"], by_declared_type=True))
    if kind == EventKind.VM_START:
        return Events.VMStart(request_id=request_id, thread=thread)
    if kind == EventKind.VM_DEATH:
        return Events.VMDeath(request_id=request_id)
    if kind == EventKind.JDWPD_DISABLED:  # jdwpd's extension: only its sessions make such requests
        return Events.JdwpdDisabled(request_id=request_id, reason=data["reason"])
    if kind == EventKind.JDWPD_CONDITION_ERROR:
        return Events.JdwpdConditionError(request_id=request_id, thread=thread,
                                          location=jdwp_location(data["location"]), reason=data["reason"])
    if kind == EventKind.JDWPD_CAPTURE:
        return Events.JdwpdCapture(request_id=request_id, thread=thread, location=jdwp_location(data["location"]),
                                   source_kind=data["source_kind"], data=data["data"])
    raise ValueError(f"no JDWP event for agent hit kind {kind}")


@attrs.frozen
class Composite:
    """What one session receives for one agent EVENT."""

    session: Hashable
    suspend_policy: int
    events: tuple


@attrs.frozen
class Suspension:
    """A suspension to record (attributed) or to perform for a session (extra)."""

    session: Hashable | None  # None: nobody wants it: give it back
    policy: int
    thread: int


@attrs.frozen
class Routing:
    composites: tuple[Composite, ...]
    attributed: Suspension | None  # the agent's own suspension, now owned by this session
    extra: tuple[Suspension, ...]  # suspensions to add for other sessions
    orphaned: Suspension | None  # the agent's suspension, wanted by nobody


def route(body: dict, requests: RequestTable) -> Routing:
    """Split one agent EVENT into per-session composites and suspension bookkeeping."""
    thread = body["thread"]
    applied = body["suspend_policy"]
    per_session: dict[Hashable, list] = {}
    policy_of: dict[Hashable, int] = {}  # what the composite says
    suspends: dict[Hashable, int] = {}  # what the session's requests suspend
    order: list[Hashable] = []
    hits = []
    for hit in body["hits"]:
        req = requests.get(hit["request_id"])
        if req is not None:  # else: cleared while the event was on its way
            hits.append((req, hit))
    death = any(hit["event_kind"] == EventKind.VM_DEATH for _, hit in hits)
    if death:
        # The reference lists VMDeath events newest request first (observed on OpenJDK 17).
        hits.sort(key=lambda rh: -rh[0].agent_id)
    for req, hit in hits:
        owner = req.owner
        # An unload suspends nothing and its composite says NONE, as the reference's does, whatever
        # its request asked (the agent suspended nothing for it).
        # So do the extension's JdwpdDisabled and JdwpdConditionError: the request's own event, if
        # any, came with it and suspended what it asked.
        policy = SuspendPolicy.NONE if hit["event_kind"] in (
            EventKind.CLASS_UNLOAD, EventKind.JDWPD_DISABLED, EventKind.JDWPD_CONDITION_ERROR) else req.suspend_policy
        if owner not in per_session:
            per_session[owner] = []
            policy_of[owner] = suspends[owner] = SuspendPolicy.NONE
            order.append(owner)
        per_session[owner].append(event_of_hit(hit["event_kind"], req.request_id, thread, hit["data"]))
        policy_of[owner] = max(policy_of[owner], policy)
        asked = suspension(policy)
        # VMDeath has no thread of its own: whatever suspends, suspends every thread (the agent's ALL).
        suspends[owner] = max(suspends[owner], SuspendPolicy.ALL if death and asked else asked)
    composites = tuple(Composite(s, int(policy_of[s]), tuple(per_session[s])) for s in order)

    attributed = orphaned = None
    extra = []
    if applied != SuspendPolicy.NONE:
        owner = next((s for s in order if suspends[s] == applied), None)
        if owner is not None:
            attributed = Suspension(owner, applied, thread)
        else:
            orphaned = Suspension(None, applied, thread)
    for s in order:
        if suspends[s] != SuspendPolicy.NONE and (attributed is None or s is not attributed.session):
            extra.append(Suspension(s, int(suspends[s]), thread))
    return Routing(composites, attributed, tuple(extra), orphaned)
