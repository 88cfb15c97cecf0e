"""EventRequest command set (15): requests belong to the session that sets them.

Validation follows the reference's order: the event kind first (before any
modifier is looked at), then each modifier in turn, its ids first, then whether
it applies to the kind; ids are allocated only for requests that are installed.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context
from jdwpd.daemon.commands.jdwpd_ext import conditional_modifiers
from jdwpd.daemon.commands.thread_reference import VIRTUAL_THREADS_SINCE
from jdwpd.daemon.facade.agent import raise_agent
from jdwpd.daemon.model.requests import (
    ACCEPTED_KINDS,
    KNOWN_BUT_REFUSED,
    NEVER_REPORTED,
    Modifier,
    check_modifier,
    check_request,
    is_inert,
    location_for_link,
)
from jdwpd.errors import AgentError, JdwpError
from protocol.constants import ErrorCode, EventKind, ModKind
from protocol.link import CapBit, ObjectKind
from protocol.wire import encode_mutf8

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from protocol.messages import EventRequest

log = logging.getLogger(__name__)

SET_NAME = "EventRequest"


async def _thread(ctx: Context, thread: int) -> int:
    if thread:
        await ctx.vm.check_kind(thread, ObjectKind.THREAD, ErrorCode.INVALID_THREAD)
    return thread


async def _class(ctx: Context, ref: int) -> int:
    if ref:
        await ctx.vm.check_type(ref)
    return ref


async def _object(ctx: Context, obj: int) -> int:
    if obj:
        await ctx.vm.object_kind(obj)
    return obj


async def to_modifier(ctx: Context, m: Any) -> Modifier:
    """A decoded JDWP modifier as the agent's filter modifier, its ids checked on the way."""
    k = m.mod_kind
    if k == ModKind.COUNT:
        args = {"count": m.count}
    elif k == ModKind.CONDITIONAL:
        args = {"expr_id": m.expr_id, "program": b""}
    elif k == ModKind.THREAD_ONLY:
        args = {"thread": await _thread(ctx, m.thread)}
    elif k == ModKind.CLASS_ONLY:
        args = {"ref": await _class(ctx, m.clazz)}
    elif k in (ModKind.CLASS_MATCH, ModKind.CLASS_EXCLUDE):
        args = {"pattern": encode_mutf8(m.class_pattern)}  # the agent compares JVM (modified UTF-8) names
    elif k == ModKind.LOCATION_ONLY:
        await _class(ctx, m.loc.class_id)
        args = {"location": location_for_link(m.loc)}
    elif k == ModKind.EXCEPTION_ONLY:
        args = {"ref": await _class(ctx, m.exception_or_null), "caught": bool(m.caught),
                "uncaught": bool(m.uncaught)}
    elif k == ModKind.FIELD_ONLY:
        args = {"ref": await _class(ctx, m.declaring), "field": m.field_id}
    elif k == ModKind.STEP:
        if not m.thread:
            raise JdwpError(ErrorCode.INVALID_THREAD, "a step needs a thread")
        args = {"thread": await _thread(ctx, m.thread), "size": m.size, "depth": m.depth}
    elif k == ModKind.INSTANCE_ONLY:
        args = {"object": await _object(ctx, m.instance)}
    elif k == ModKind.SOURCE_NAME_MATCH:
        args = {"pattern": encode_mutf8(m.source_name_pattern)}
    elif k == ModKind.PLATFORM_THREADS_ONLY and ctx.vm.jvmti_version()[0] >= VIRTUAL_THREADS_SINCE:
        args = {}
    else:
        raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, f"unknown modifier kind {k}")
    return Modifier(int(k), args)


async def set_request(ctx: Context, cmd: EventRequest.Set.Command) -> Any:
    vm = ctx.vm
    kind = cmd.event_kind
    if kind not in ACCEPTED_KINDS and kind not in KNOWN_BUT_REFUSED:
        raise JdwpError(ErrorCode.INVALID_EVENT_TYPE, f"event kind {kind}")
    if kind == EventKind.VM_START:
        # The VM has started already: the reference hands out an id and installs nothing.
        return {"request_id": vm.requests.allocate_request_id(ctx.session)}
    mods = []
    for m in cmd.modifiers:
        mod = await to_modifier(ctx, m)
        check_modifier(kind, mod)
        mods.append(mod)
    if kind in KNOWN_BUT_REFUSED:
        raise JdwpError(ErrorCode.INVALID_EVENT_TYPE, f"the reference installs no {EventKind(kind).name} request")
    check_request(kind, mods)
    # The reference accepts Conditional (reserved "for the future") and filters nothing by it; a
    # session that enabled jdwpd's extension names its conditions and budgets with it.
    mods = conditional_modifiers(ctx, mods)
    inert = is_inert(kind, mods) or _unreportable_uncaught(ctx, kind, mods)
    if kind == EventKind.SINGLE_STEP and not inert:
        await _replace_own_step(ctx, mods)
    cannot_fail = not inert and _agent_cannot_refuse(ctx, kind, mods)
    req = vm.requests.new_request(ctx.session, kind, cmd.suspend_policy, tuple(mods),
                                  in_agent=kind not in NEVER_REPORTED and not inert)
    try:
        await vm.add_request(req, cannot_fail=cannot_fail)
    except AgentError as e:
        raise_agent(e)
    return {"request_id": req.request_id}


def _unreportable_uncaught(ctx: Context, kind: int, mods: list[Modifier]) -> bool:
    """An uncaught-only EXCEPTION request in a VM whose agent holds no exception events (attached at
    run time, where HotSpot grants them only at start, or profile nothrow/inspect) is accepted and
    never fires.  jdb and Eclipse make one by themselves when they attach (jdb's "catch uncaught
    java.lang.Throwable"); refusing it (NOT_IMPLEMENTED, JDI's UnsupportedOperationException) ends
    jdb at once.  A request that asks for caught exceptions is the user's own and is refused
    precisely; this one is accepted, and the daemon's log says that it will not fire."""
    if kind != EventKind.EXCEPTION or ctx.vm.has(CapBit.EXCEPTION_EVENTS):
        return False
    only = [m for m in mods if m.mod_kind == ModKind.EXCEPTION_ONLY]
    if not only or any(m.args.get("caught") for m in only):
        return False
    log.warning("jdwpd: this VM cannot report exceptions (HotSpot grants exception events only to agents "
                "loaded at start-up; profiles nothrow and inspect leave them out): a debugger's request for "
                "uncaught exceptions is accepted and will not fire")
    return True


# Modifiers the agent takes without looking anything up (no object or class to resolve).
_UNFAILING_MODS = frozenset({ModKind.COUNT, ModKind.CLASS_MATCH, ModKind.CLASS_EXCLUDE, ModKind.SOURCE_NAME_MATCH})
# Kinds whose installing in the agent needs no capability and cannot fail (a JVMTI event enabled VM-wide).
_UNFAILING_KINDS = frozenset({EventKind.CLASS_PREPARE, EventKind.THREAD_START, EventKind.THREAD_DEATH,
                              EventKind.VM_DEATH})


def _agent_cannot_refuse(ctx: Context, kind: int, mods: list[Modifier]) -> bool:
    """Whether the agent is sure to take this request, so that it can go out without waiting for
    the agent's reply.  The agent refuses a request for a capability it lacks, an id it cannot
    resolve, a thread that is not alive, or a second step of a thread (DUPLICATE)."""
    if kind == EventKind.SINGLE_STEP:
        return _step_cannot_fail(ctx, mods)
    vm = ctx.vm
    if kind == EventKind.EXCEPTION:
        if not vm.has(CapBit.EXCEPTION_EVENTS):
            return False
    elif kind not in _UNFAILING_KINDS:
        return False
    if not all(m.mod_kind in _UNFAILING_MODS or (m.mod_kind == ModKind.EXCEPTION_ONLY and not m.args["ref"])
               for m in mods):
        return False
    # Only while nothing runs: an event of a running thread must not slip between the reply that
    # says the request is set and the agent's setting it.  Whatever lets a thread run goes to the
    # agent after this request.
    return vm.threads.world_frozen() and not vm.invokes.any_running()


def _step_cannot_fail(ctx: Context, mods: list[Modifier]) -> bool:
    """A step fails on a thread that is not alive, on another debugger's step of the same thread
    (DUPLICATE), or on an id the agent cannot resolve.  A thread parked in an event with nothing
    sent since that could let it run is alive, and this debugger's own earlier steps are gone
    already (_replace_own_step)."""
    threads = ctx.vm.threads
    for m in mods:
        if m.mod_kind == ModKind.THREAD_ONLY:
            if not threads.surely_parked(m.args["thread"]):
                return False
        elif m.mod_kind != ModKind.STEP and m.mod_kind not in _UNFAILING_MODS:
            return False
    thread = _step_thread(mods)
    if thread is None or not threads.surely_parked(thread):
        return False
    return not any(req.in_agent and _step_thread(req.modifiers) == thread
                   for req in ctx.vm.requests.of_kind(EventKind.SINGLE_STEP))


def _step_thread(mods: Any) -> int | None:
    return next((m.args["thread"] for m in mods if m.mod_kind == ModKind.STEP), None)


async def _replace_own_step(ctx: Context, mods: list[Modifier]) -> None:
    """A new step of a thread replaces the debugger's earlier one, as in the reference (the old
    request stays, and never fires).  Another debugger's step of the thread stays: the agent
    then answers DUPLICATE."""
    thread = _step_thread(mods)
    for req in ctx.vm.requests.owned_by(ctx.session, EventKind.SINGLE_STEP):
        if req.in_agent and _step_thread(req.modifiers) == thread:
            await ctx.vm.retire_request(req)


async def clear(ctx: Context, cmd: EventRequest.Clear.Command) -> Any:
    if cmd.event_kind not in ACCEPTED_KINDS and cmd.event_kind not in KNOWN_BUT_REFUSED:
        raise JdwpError(ErrorCode.INVALID_EVENT_TYPE, f"event kind {cmd.event_kind}")
    req = ctx.vm.requests.find(ctx.session, cmd.event_kind, cmd.request_id)
    if req is None:
        return None  # an unknown id is no error in the reference
    thread = _step_thread(req.modifiers) if req.event_kind == EventKind.SINGLE_STEP else None
    await ctx.vm.clear_request(req)
    if thread is not None:
        # One step state per thread in the reference: clearing any step request of a thread
        # ends the stepping of every other one (they stay, and never fire).
        for other in ctx.vm.requests.owned_by(ctx.session, EventKind.SINGLE_STEP):
            if other.in_agent and _step_thread(other.modifiers) == thread:
                await ctx.vm.retire_request(other)


async def clear_all_breakpoints(ctx: Context, cmd: EventRequest.ClearAllBreakpoints.Command) -> Any:
    await ctx.vm.clear_requests(ctx.vm.requests.owned_by(ctx.session, EventKind.BREAKPOINT))


async def set_undecodable(ctx: Context, data: bytes, code: int) -> Any:
    """A Set whose modifiers do not decode: the reference judges the kind before reading them."""
    if data and data[0] not in ACCEPTED_KINDS and data[0] not in KNOWN_BUT_REFUSED:
        raise JdwpError(ErrorCode.INVALID_EVENT_TYPE, f"event kind {data[0]}")
    if len(data) >= 6 and data[0] == EventKind.VM_START:
        return {"request_id": ctx.vm.requests.allocate_request_id(ctx.session)}
    raise JdwpError(code, "EventRequest.Set body does not decode")


DECODE_FALLBACKS = {"Set": set_undecodable}

HANDLERS = {
    "Set": set_request,
    "Clear": clear,
    "ClearAllBreakpoints": clear_all_breakpoints,
}
