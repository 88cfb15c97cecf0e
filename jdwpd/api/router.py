"""The API's event router: the one place where the script's requests meet the VM's events.

One task (``pump``) reads the VM's events and hands each to the handler of the request that asked
for it; each handler runs its events in order in a task of its own, so that a slow condition holds
up no other request.  Requests set and clear their JDWP requests here (``set_request``,
``clear_request``), make their hits here (``make_hit``) and run the script's hit handlers here
(``spawn_handler``).  The router keeps the stops that hold a thread (``holders_of`` names them),
counts the handlers at work, so that the end of a session lets the handling of the VM's last hits
finish (``handlers_settled``), and knows the VM's start and death.  ``api.VM`` owns one; requests
reach it as ``vm.router``, ``jdwpd ci`` runs its tasks in it (``start_soon``).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import trio

from protocol.constants import EventKind, JdwpdFeature, SuspendPolicy

from .debuggee import Debuggee
from .errors import JdwpError, VMDisconnected
from .hits import EventHandler, ExceptionHit, Hit, Stop, WatchHit

if TYPE_CHECKING:
    from .connection import Connection
    from .threads import Thread

__all__ = ["EventRouter", "RoutedVM", "FailureHandler"]

#: What a request does when one of its handlers raised: it ends that request alone (its waits raise
#: ``RequestError`` with the reason); without one, the error ends the script's VM context.
FailureHandler = Callable[[str], Awaitable[None]]


class RoutedVM(Debuggee, Protocol):
    """The VM as requests see it: the model and its router."""

    router: EventRouter


@attrs.define(eq=False)
class EventRouter:
    """Routes the events of one VM to the requests of one script (``vm.router``)."""

    #: How long a dying VM waits at its death for the handlers of the events it sent before.
    DEATH_HOLD_SECONDS = 10.0

    vm: Debuggee = attrs.field(repr=False)
    nursery: trio.Nursery = attrs.field(repr=False)
    #: Set when VMStart arrived; ``held_at_start``: the VM waits there for ``vm.resume()``.
    started: trio.Event = attrs.field(factory=trio.Event, init=False)
    held_at_start: bool = attrs.field(default=False, init=False)
    #: Set when VMDeath arrived or the connection ended.
    dead: trio.Event = attrs.field(factory=trio.Event, init=False)
    #: The script left (``vm.dispose()``): the server clears its requests, no Clear is sent.
    closed: bool = attrs.field(default=False, init=False)
    # request id -> the channel of its handler's worker
    _routes: dict[int, trio.MemorySendChannel] = attrs.field(factory=dict, init=False, repr=False)
    # handler -> its worker's channel (a request's handler handles the events of all its JDWP requests)
    _workers: dict[EventHandler, trio.MemorySendChannel] = attrs.field(factory=dict, init=False, repr=False)
    # the stops that hold a thread (or the VM) until released
    _held: set[Stop] = attrs.field(factory=set, init=False, repr=False)
    # the script's requests (vm.requests()) -> what ends their waits when the VM ends
    _sources: dict[Any, Callable[[], None]] = attrs.field(factory=dict, init=False, repr=False)
    _handlers_running: int = attrs.field(default=0, init=False, repr=False)
    _handlers_idle: trio.Event = attrs.field(init=False, repr=False)
    _push_asked: bool = attrs.field(default=False, init=False, repr=False)
    _installing: int = attrs.field(default=0, init=False, repr=False)
    _installed: trio.Event = attrs.field(factory=trio.Event, init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        self._handlers_idle = trio.Event()
        self._handlers_idle.set()

    @property
    def conn(self) -> Connection:
        return self.vm.conn

    # ------------------------------------------------------------------ the event pump

    async def pump(self) -> None:
        """Read and route the VM's events until it is gone (a task of the VM's session)."""
        try:
            while True:
                policy, events = await self.conn.next_event()
                await self._route(policy, events)
        except VMDisconnected:
            pass
        finally:
            self.dead.set()
            for send in list(self._workers.values()):
                send.close()
            for end_waits in list(self._sources.values()):
                end_waits()

    async def _route(self, policy: int, events: tuple) -> None:
        thread_id = next((e.thread for e in events if getattr(e, "thread", 0)), 0)
        thread = await self.vm.thread(thread_id) if thread_id else None
        routed = []
        for e in events:
            kind = int(e.event_kind)
            if kind == EventKind.VM_START:
                self.held_at_start = policy != SuspendPolicy.NONE
                self.started.set()
            elif kind == EventKind.VM_DEATH:
                if policy != SuspendPolicy.NONE:
                    self.nursery.start_soon(self._let_die)
                    return
                self.dead.set()
            elif e.request_id in self._routes:
                routed.append(e)
        stop = Stop(self, policy, thread, len(routed))
        if not routed:
            # VMStart holds the VM for the script's resume(); any other event is one of a request
            # cleared meanwhile (or of none of ours): let its thread go.
            if policy != SuspendPolicy.NONE and not any(int(e.event_kind) == EventKind.VM_START for e in events):
                stop.shares = 1
                self.nursery.start_soon(stop.release)
            return
        if policy != SuspendPolicy.NONE:
            self._held.add(stop)
        for e in routed:
            self._work_begins()  # ends when its request's worker has handled it
            try:
                self._routes[e.request_id].send_nowait((e, stop))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                # its request's handler is gone (cleared, spent) while this event was on its way
                self._work_ends()
                self.nursery.start_soon(stop.release)

    async def _worker(self, handler: EventHandler, recv: trio.MemoryReceiveChannel,
                      on_failure: FailureHandler | None) -> None:
        async with recv:
            async for event, stop in recv:
                try:
                    await handler(event, stop)
                except VMDisconnected:
                    raise
                except Exception as e:
                    # What a request found only at an event (a field its class does not have, a
                    # template that cannot be rendered ...) ends that request, never the session.
                    with trio.CancelScope(shield=True):
                        if stop.holds:
                            await stop.release(force=True)
                        if on_failure is None:
                            raise
                        await on_failure(f"{type(e).__name__}: {e}")
                finally:
                    self._work_ends()

    # ------------------------------------------------------------------ JDWP requests

    async def set_request(self, kind: int, policy: int, modifiers: list[dict], handler: EventHandler, *,
                          on_failure: FailureHandler | None = None) -> int:
        """Set a JDWP event request whose events ``handler`` takes, in order, in its own task
        (one task per handler, whatever the number of its requests); its request id."""
        if not self._push_asked:
            await self.push_stops()
        send = self._workers.get(handler)
        if send is None:
            send, recv = trio.open_memory_channel(math.inf)
            self._workers[handler] = send
            self.nursery.start_soon(self._worker, handler, recv, on_failure)
        r = await self.conn.command("EventRequest", "Set", event_kind=kind, suspend_policy=policy,
                                    modifiers=modifiers)
        self._routes[r.request_id] = send
        return r.request_id

    async def push_stops(self) -> None:
        """Where jdwpd offers it, have its stops come with their stack and top locals
        (jdwpd/api/pushed_stops.py), which a hit asks for at once.  Asked once: when the session
        opens, so that a script's first request costs no more round trips than its own (a resume
        sent beside it would overtake it), or else before the first request."""
        if self._push_asked:
            return
        self._push_asked = True
        if not await self.vm.has_extension(JdwpdFeature.PUSHED_STOPS):
            return
        try:
            self.conn.push_stops()
        except ValueError:
            return  # IDs of other sizes: asked of the server
        try:
            await self.conn.command("Jdwpd", "PushStops", enabled=True)
        except JdwpError:
            self.conn.pushed_stops = None

    def request_spent(self, request_id: int) -> None:
        """A request the server ended itself (its Count ran out with this event): no Clear to send."""
        self._routes.pop(request_id, None)

    async def clear_request(self, kind: int, request_id: int) -> None:
        self._routes.pop(request_id, None)
        if self.closed or self.dead.is_set():
            return
        try:
            await self.conn.command("EventRequest", "Clear", event_kind=kind, request_id=request_id)
        except (VMDisconnected, JdwpError):
            pass  # gone with the VM, or expired (a Count): nothing left to clear

    # ------------------------------------------------------------------ the script's requests

    @contextlib.contextmanager
    def installing(self) -> Iterator[None]:
        """Around the setting of a script's request: ``installs_settled`` waits for it."""
        if self._installing == 0 and self._installed.is_set():
            self._installed = trio.Event()
        self._installing += 1
        try:
            yield
        finally:
            self._installing -= 1
            if self._installing == 0:
                self._installed.set()

    async def installs_settled(self) -> None:
        """Until no request is being set: a resume beside ``vm.snapshot(...)`` or a ``vm.breakpoint``
        in another task does not overtake its request (the VM held at its start would run past)."""
        if self._installing:
            await self._installed.wait()

    def add_source(self, source: Any, end_waits: Callable[[], None]) -> None:
        """Count ``source`` (a Breakpoint ...) among the script's requests; ``end_waits`` runs
        when the VM ends (its waits then raise)."""
        self._sources[source] = end_waits

    def drop_source(self, source: Any) -> None:
        self._sources.pop(source, None)

    def sources(self) -> list[Any]:
        return list(self._sources)

    # ------------------------------------------------------------------ hits and stops

    async def make_hit(self, source: Any, event: Any, stop: Stop) -> Hit:
        """The hit of ``source`` (the request, for its repr) that ``event`` is, sharing ``stop``."""
        vm = self.vm
        thread = stop.thread or await vm.thread(event.thread)
        location = await vm.types.location_from_wire(event.location)
        stop.holders.append(f"{source} at {location}")
        frame = None
        if stop.policy != SuspendPolicy.NONE:
            frames = await thread.frames(0, 1)
            frame = frames[0] if frames else None
        kind = int(event.event_kind)
        if kind == EventKind.EXCEPTION:
            thrown = await vm.values.from_wire((event.exception.tag, event.exception.object_id), thread)
            catch = event.catch_location
            catch_loc = await vm.types.location_from_wire(catch) if catch.class_id else None
            return ExceptionHit(vm, source, thread, location, frame, stop, thrown=thrown, catch_location=catch_loc)
        if kind in (EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION):
            t = await vm.types.type(event.type_id, event.ref_type_tag)
            field = next(f for f in await t.fields() if f.id == event.field_id)
            obj = None
            if event.object.object_id:
                obj = await vm.values.from_wire((event.object.tag, event.object.object_id), thread)
            value = await obj.get(field.name) if obj is not None else await field.read_static()
            new = await vm.values.from_wire(event.value_to_be, thread) if hasattr(event, "value_to_be") else None
            return WatchHit(vm, source, thread, location, frame, stop, field=field, object=obj, value=value,
                            new_value=new, is_modification=kind == EventKind.FIELD_MODIFICATION)
        return Hit(vm, source, thread, location, frame, stop)

    def stop_released(self, stop: Stop) -> None:
        self._held.discard(stop)

    def all_resumed(self) -> None:
        """The whole VM is resumed (``vm.resume()``): every stop counts as released."""
        for stop in list(self._held):
            stop.resumed = True
        self._held.clear()
        self.held_at_start = False

    def holders_of(self, thread: Thread) -> list[str]:
        """What holds ``thread`` now: the requests whose hits on it are not resumed."""
        return [h for stop in self._held if stop.holds and stop.thread == thread for h in stop.holders]

    def why_no_hits(self) -> str:
        """A hint for a wait that timed out: what of the VM's state kept hits away."""
        if self.held_at_start:
            return " (the VM is still held at its start: call `await vm.resume()` first)"
        return ""

    # ------------------------------------------------------------------ tasks

    def start_soon(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Run ``fn(*args)`` in a task of the VM's session (cancelled when the session ends)."""
        self.nursery.start_soon(fn, *args)

    def spawn_handler(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Run a user's hit handler in a task of its own, counted (as the events on their way to a
        request's worker are), so that the end of a VM's session can let the handling of its last
        hits finish: their data arrived before the VM's death."""
        self._work_begins()

        async def run() -> None:
            try:
                await fn(*args)
            finally:
                self._work_ends()

        self.nursery.start_soon(run)

    def close_at_death(self, send: trio.MemorySendChannel) -> trio.CancelScope:
        """Close ``send`` when the VM dies (its receiver's wait ends with EndOfChannel); cancel the
        returned scope once the wait is over."""
        scope = trio.CancelScope()

        async def watch() -> None:
            with scope:
                await self.dead.wait()
                send.close()

        self.nursery.start_soon(watch)
        return scope

    def _work_begins(self) -> None:
        self._handlers_running += 1
        if self._handlers_idle.is_set():
            self._handlers_idle = trio.Event()

    def _work_ends(self) -> None:
        self._handlers_running -= 1
        if self._handlers_running == 0:
            self._handlers_idle.set()

    async def handlers_settled(self) -> None:
        """Wait until no handler is at work (none of its events waits for one either)."""
        await self._handlers_idle.wait()

    # ------------------------------------------------------------------ the VM's end

    def close(self) -> None:
        """The script leaves (``vm.dispose()``): the server clears its requests."""
        self.closed = True

    async def hold_death(self) -> None:
        """Ask the VM to wait at its death until this session lets it go (a VMDeath request that
        suspends all, as JDI's VMDeathRequest documents for the purpose): a short-lived JVM's last
        events (an in-VM snapshot of its last second, say) are still handled with the VM there to
        answer what their handlers ask (class and line facts), not lost to VM_DEAD."""
        try:
            await self.conn.command("EventRequest", "Set", event_kind=EventKind.VM_DEATH,
                                    suspend_policy=SuspendPolicy.ALL, modifiers=[])
        except (JdwpError, VMDisconnected):
            pass  # a server that refuses it: deaths are not held

    async def _let_die(self) -> None:
        with trio.move_on_after(self.DEATH_HOLD_SECONDS):
            await self.handlers_settled()
            for source in self.sources():  # what only the VM can still say (a logpoint's lines it dropped)
                at_death = getattr(source, "at_vm_death", None)
                if at_death is not None:
                    await at_death()
        try:
            await self.conn.command("VirtualMachine", "Resume")
        except (JdwpError, VMDisconnected):
            pass
        self.dead.set()
