"""Breakpoints and field watchpoints: what a script asks the VM to stop for, and the hits it gets
back (logpoints: logpoints.py; exception catches: catches.py; method events: method_events.py).

    bp = await vm.breakpoint("Checkout.java:42", condition="order.total > 100")
    async for hit in bp.hits(limit=3, timeout=10):     # or: hit = await bp.wait(timeout=10)
        ...
        await hit.resume()

    @bp.on_hit                                         # or a handler that runs per hit, in its own task;
    async def handle(hit):                             # it may resume, step, set breakpoints, evaluate,
        ...                                            # wait on another breakpoint; the thread is
                                                       # resumed when it returns
"""

from __future__ import annotations

import math
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import trio

from protocol.agent_code import BudgetFlag, Disabled, Reason
from protocol.constants import EventKind, ModKind

from .capture import compile_for_vm, define_budget
from .errors import (
    CapturesDropped,
    JdwpError,
    RequestDisabled,
    RequestError,
    RequestWarning,
    Timeout,
    VMDisconnected,
)
from .hits import Hit, Stop
from .locations import LocationSpec
from .types import Location, ReferenceType

if TYPE_CHECKING:
    from .router import RoutedVM

__all__ = ["EventSource", "Breakpoint", "Watchpoint", "SUSPEND_POLICIES", "add_source", "forget_source"]

SUSPEND_POLICIES = {"none": 0, "thread": 1, "all": 2}
Handler = Callable[[Hit], Awaitable[Any]]

# What Java would have thrown where the agent could not evaluate a condition (protocol Reason).
FAILED_IN_VM = {Reason.NULL: "NullPointerException", Reason.INDEX: "IndexOutOfBoundsException",
                Reason.ARITHMETIC: "ArithmeticException: / by zero",
                Reason.TYPE: "ClassCastException (or a value of another type)",
                Reason.OTHER: "a value the VM could not read"}


@attrs.define(eq=False)
class EventSource:
    """What every request kind shares: the hits' queue, waiting, callbacks, clearing."""

    vm: RoutedVM = attrs.field(repr=False)
    _queue: Any = attrs.field(init=False, repr=False)
    _callbacks: list[Handler] = attrs.field(factory=list, init=False, repr=False)
    _requests: list[tuple[int, int]] = attrs.field(factory=list, init=False, repr=False)  # (kind, id)
    hit_total: int = attrs.field(default=0, init=False)
    cleared: bool = attrs.field(default=False, init=False)
    #: Why the request can serve no more hits (found when its class loaded, or its budget ran
    #: out), else None: its waits raise ``RequestError`` with it once its queued hits are taken.
    error: str | None = attrs.field(default=None, init=False)
    _error_type: type[RequestError] = attrs.field(default=RequestError, init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        self._queue = trio.open_memory_channel[Hit](math.inf)

    async def hits(self, limit: int | None = None, timeout: float | None = None, *,
                   keep: bool = False) -> AsyncIterator[Hit]:
        """Hits as they come (queued ones first), each within ``timeout`` seconds (``Timeout``
        otherwise).  Each hit's thread stays suspended until ``await hit.resume()``.

        ``limit``: a hit cap, as snapshot debuggers have: after that many hits the request is
        cleared (threads it would have held run on), unless ``keep=True``."""
        n = 0
        while limit is None or n < limit:
            yield await self.wait(timeout)
            n += 1
        if not keep:
            await self.clear()

    async def wait(self, timeout: float | None = None) -> Hit:
        """The next hit (the oldest queued one); ``Timeout`` after ``timeout`` seconds."""
        recv = self._queue[1]
        try:
            with trio.fail_after(math.inf if timeout is None else timeout):
                hit = await recv.receive()
        except trio.TooSlowError:
            raise Timeout(f"{self} was not hit within {timeout}s{self.vm.router.why_no_hits()}") from None
        except (trio.EndOfChannel, trio.ClosedResourceError):
            if self.error is not None:
                raise self._error_type(self, self.error, self.hit_total) from None
            raise self._gone() from None
        return hit

    def _gone(self) -> Exception:
        """What a wait raises once the VM is gone and nothing queued is left."""
        return VMDisconnected(f"the VM is gone (no more a hit of {self})")

    async def _fail(self, reason: str, *, disabled: bool = False) -> None:
        """The request can serve no more hits: it leaves the VM, the hits it queued stay to be
        taken, then its waits raise (RequestDisabled for a budget); other requests go on."""
        if self.error is not None or self.cleared:
            return
        self.error = reason
        self._error_type = RequestDisabled if disabled else RequestError
        if self._callbacks:  # no wait of the script's would say it: its handlers are simply not called
            warnings.warn(RequestWarning(f"{self}: {reason} (after {self.hit_total} hit"
                                         f"{'s' if self.hit_total != 1 else ''}); its on_hit handlers get no more"),
                          stacklevel=2)
        for kind, rid in self._requests:
            await self.vm.router.clear_request(kind, rid)
        self._requests.clear()
        self._queue[0].close()

    def on_hit(self, fn: Handler) -> Handler:
        """Run ``await fn(hit)`` for every hit from now on, each in a task of its own (usable as a
        decorator).  The hit's thread stays suspended while ``fn`` runs and is resumed when it
        returns (unless ``fn`` resumed or stepped it).  An exception in ``fn`` ends the script's
        VM context with that exception."""
        self._callbacks.append(fn)
        return fn

    async def _deliver(self, hit: Hit) -> None:
        if self.error is not None:  # failed while this hit was on its way: it holds nothing more
            await hit.resume()
            return
        self.hit_total += 1
        if not self._callbacks:
            self._queue[0].send_nowait(hit)
            return
        for fn in self._callbacks:
            self.vm.router.spawn_handler(self._run_callback, fn, hit)

    async def _run_callback(self, fn: Handler, hit: Hit) -> None:
        try:
            await fn(hit)
        finally:
            with trio.CancelScope(shield=True):
                if not self.vm.router.closed:
                    await hit.last_stop().resume()  # where the handler's steps left the thread

    async def clear(self) -> None:
        """Remove the request(s) from the VM; queued hits are resumed."""
        if self.cleared:
            return
        self.cleared = True
        for kind, rid in self._requests:
            await self.vm.router.clear_request(kind, rid)
        self._requests.clear()
        while True:
            try:
                queued = self._queue[1].receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                break
            await self._release_queued(queued)
        self.vm.router.drop_source(self)

    async def _release_queued(self, queued: Any) -> None:
        """A hit nobody took when the request is cleared: its thread goes on."""
        await queued.resume()

    async def _install(self) -> None:
        """Set the request's JDWP request(s) in the VM (``add_source``): each kind says how."""
        raise NotImplementedError

    async def _set(self, kind: int, policy: int, modifiers: list[dict], handler: Any) -> int:
        rid = await self.vm.router.set_request(kind, policy, modifiers, handler, on_failure=self._fail)
        self._requests.append((kind, rid))
        return rid

    async def _on_event(self, event: Any, stop: Stop) -> None:
        """An event of the request: a hit as it comes (requests that judge their events override it)."""
        if self.cleared:
            await stop.release()
            return
        await self._deliver(await self.vm.router.make_hit(self, event, stop))


Source = TypeVar("Source", bound=EventSource)


async def add_source(source: Source) -> Source:
    """Set ``source`` in the VM (``vm.breakpoint`` and its kin end here) and count it among the
    VM's requests; one that cannot be set leaves nothing behind."""
    source.vm.router.add_source(source, source._queue[0].close)  # its waits end with the VM
    try:
        with source.vm.router.installing():
            await source._install()
    except BaseException:
        with trio.CancelScope(shield=True):
            await forget_source(source)
        raise
    return source


async def forget_source(source: EventSource) -> None:
    """Clear ``source`` (unless the VM or the script is gone, which cleared it) and forget it."""
    router = source.vm.router
    if not router.closed and not router.dead.is_set():
        await source.clear()
    router.drop_source(source)


@attrs.define(eq=False)
class DeferredRequest(EventSource):
    """A request that waits for its class(es) to be prepared: a ClassPrepare request catches
    each matching class as it loads, the thread held only while the request is set."""

    resolved_types: set[int] = attrs.field(factory=set, init=False, repr=False)

    async def _watch_prepares(self, modifiers: list[dict]) -> None:
        await self._set(EventKind.CLASS_PREPARE, 1, modifiers, self._on_prepare)

    async def _on_prepare(self, event: Any, stop: Stop) -> None:
        try:
            if not self.cleared:
                t = await self.vm.types.type(event.type_id, event.ref_type_tag, event.signature)
                await self._found(t)
        finally:
            await stop.release()

    async def _found(self, t: ReferenceType) -> None:
        if t.id not in self.resolved_types:
            self.resolved_types.add(t.id)
            await self._install_in(t)

    async def _install_in(self, t: ReferenceType) -> None:
        raise NotImplementedError

    async def _install_named(self, class_name: str) -> None:
        """Wait for the class as written, a nested one written with dots included
        (``p.Selector.ParseException`` is ``p.Selector$ParseException``): each way it may be named
        is watched, and whichever loads is used."""
        for name in binary_names(class_name):
            await self._watch_prepares([{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": name}])
        for name in binary_names(class_name):
            for t in await self.vm.classes_named(name):
                await self._found(t)


def binary_names(name: str) -> list[str]:
    """The binary names a class written in Java source may have: as written, then with the dots
    after a class's name (one starting with a capital) made ``$``, innermost first.

    >>> binary_names("p.Selector.ParseException")
    ['p.Selector.ParseException', 'p.Selector$ParseException']
    >>> binary_names("a.B.C.D")
    ['a.B.C.D', 'a.B.C$D', 'a.B$C$D']
    """
    parts = name.split(".")
    out = [name]
    for i in range(len(parts) - 1, 0, -1):
        if not parts[i - 1][:1].isupper() or "*" in name:
            break
        out.append(".".join(parts[:i]) + "$" + "$".join(parts[i:]))
    return out


@attrs.define(eq=False)
class Breakpoint(DeferredRequest):
    """A breakpoint at a location as written (``Checkout.java:42``): set in every class it lands
    in, now and as classes load.  ``locations`` lists where; ``problem`` why none yet."""

    spec: LocationSpec = attrs.field(kw_only=True)
    condition: str | None = attrs.field(default=None, kw_only=True)
    suspend: str = attrs.field(default="thread", kw_only=True)
    hit_count: int | None = attrs.field(default=None, kw_only=True)
    allow_invoke: bool = attrs.field(default=False, kw_only=True)
    locations: list[Location] = attrs.field(factory=list, init=False)
    problem: str | None = attrs.field(default=None, init=False)
    #: Where the condition could not be evaluated and why (``"shop.Checkout.checkout(Checkout.java:26):
    #: NullPointerException ..."``): the breakpoint stopped there, as debuggers do, on either path.
    condition_errors: list[str] = attrs.field(factory=list, init=False, repr=False)
    #: Evaluate the condition in the VM when the server can (jdwpd's extension): no stop per hit.
    #: False: always the standard way (stop, evaluate here over JDWP, resume).
    in_vm: bool = attrs.field(default=True, kw_only=True)
    #: The share of one CPU its in-VM condition (or capture) may use; None: no quota, as a
    #: debugger never drops a breakpoint its user set.  Past it the request is disabled.
    cpu_quota: float | None = attrs.field(default=None, kw_only=True)
    #: Why the server disabled the request (its budget: "cpu_quota", ...), else None; its waits
    #: then raise ``RequestDisabled``.
    disabled: str | None = attrs.field(default=None, init=False)
    #: Captures the VM took for its in-VM requests but dropped (a logpoint's lines, a snapshot
    #: point's snapshots), as last counted (``count_dropped``): the daemon could not take them as
    #: fast as the program hit, and the agent's queue to it was full.  A ``RequestWarning`` says so
    #: when the first are counted.
    dropped: int = attrs.field(default=0, init=False)
    _dropped_by: dict[int, int] = attrs.field(factory=dict, init=False, repr=False)
    _passed: int = attrs.field(default=0, init=False, repr=False)
    _in_vm_requests: set[int] = attrs.field(factory=set, init=False, repr=False)
    # Requests whose condition the VM could not compile yet (a class it names was not loaded, or not
    # prepared, when the breakpoint was set): tried again at hits (_retry_now).  request id -> location.
    _retry: dict[int, Location] = attrs.field(factory=dict, init=False, repr=False)
    _retry_hits: dict[int, int] = attrs.field(factory=dict, init=False, repr=False)
    # What the VM said its condition threw at the event that follows, by thread id.
    _failed_at: dict[int, str] = attrs.field(factory=dict, init=False, repr=False)
    # The budget of its in-VM conditions (a session's id), defined at the first.
    _budget_id: int | None = attrs.field(default=None, init=False, repr=False)
    # Where each breakpoint request is set: request id -> (class id, method id, index).
    _request_at: dict[int, tuple[int, int, int]] = attrs.field(factory=dict, init=False, repr=False)

    def __str__(self) -> str:
        return f"breakpoint {self.spec.text}"

    async def _set(self, kind: int, policy: int, modifiers: list[dict], handler: Any) -> int:
        rid = await super()._set(kind, policy, modifiers, handler)
        for mod in modifiers:
            if mod["mod_kind"] == ModKind.LOCATION_ONLY:
                self._request_at[rid] = _wire_key(mod["loc"])
        return rid

    async def _drop_moved(self) -> None:
        """The line has code after all (in a nested or anonymous class loaded after its outer
        class): the locations moved to a next line of an outer method go, with their requests."""
        moved = {_wire_key(loc.to_wire()) for loc in self.locations if loc.line != self.spec.line}
        if not moved:
            return
        self.locations = [loc for loc in self.locations if loc.line == self.spec.line]
        for kind, rid in list(self._requests):
            if self._request_at.get(rid) in moved:
                self._requests.remove((kind, rid))
                self._retry.pop(rid, None)
                await self.vm.router.clear_request(kind, rid)

    @property
    def resolved(self) -> bool:
        return bool(self.locations)

    @property
    def in_vm_requests(self) -> int:
        """How many of its requests the VM judges (or captures for) itself (0: every hit is judged
        here, over JDWP)."""
        return len(self._in_vm_requests)

    #: What its captures are called in messages.
    _captures_are = "captures"

    def _capture_requests(self) -> set[int]:
        """Its requests the VM captures for (a logpoint's, a snapshot point's)."""
        return set()

    async def count_dropped(self) -> int:
        """Ask the VM how many of this request's captures it dropped (jdwpd's in-VM logpoints and
        snapshot points; 0 elsewhere), and return ``dropped``."""
        for rid in sorted(self._capture_requests()):
            try:
                stats = await self.vm.conn.command("Jdwpd", "RequestStats", request_id=rid)
            except (JdwpError, VMDisconnected):
                continue  # a request the VM no longer keeps: its last count stands
            self._dropped_by[rid] = max(self._dropped_by.get(rid, 0), stats.dropped_captures)
        total = sum(self._dropped_by.values())
        if total > self.dropped:
            first = self.dropped == 0
            self.dropped = total
            if first:
                warnings.warn(RequestWarning(f"{self}: {self._drops()}; .dropped counts them"), stacklevel=2)
        return self.dropped

    def _drops(self) -> str:
        return (f"the VM dropped {self.dropped} of its {self._captures_are}: the daemon could not take them as "
                f"fast as the program hit, and the queue to it was full")

    async def at_vm_death(self) -> None:
        """The VM is held at its death (router.py): its count of drops is final now."""
        if self._capture_requests():
            await self.count_dropped()

    def _gone(self) -> Exception:
        if self.dropped:
            return CapturesDropped(self, f"the VM is gone, and {self._drops()}", self.hit_total, self.dropped)
        return super()._gone()

    async def clear(self) -> None:
        if not self.cleared and self._capture_requests() and not self.vm.router.dead.is_set():
            await self.count_dropped()  # while the VM still keeps the requests' counts
        await super().clear()

    @property
    def _policy(self) -> int:
        wanted = SUSPEND_POLICIES[self.suspend]
        # A condition, template or capture needs the thread held while it reads the frame.
        return max(wanted, 1) if self._needs_frame else wanted

    @property
    def _needs_frame(self) -> bool:
        return self.condition is not None

    async def _install(self) -> None:
        # The prepare request first: a class loaded between the two steps is seen by one of them.
        await self._watch_prepares(self.spec.prepare_modifiers())
        for t in await self.spec.loaded_candidates(self.vm):
            await self._found(t)

    async def _install_in(self, t: ReferenceType) -> None:
        if not await self.spec.matches(t):
            return
        locations, problem = await self.spec.resolve(t)
        if not locations:
            if not self.locations:
                self.problem = problem
            return
        self.problem = None
        if self.spec.line is not None:
            if any(loc.line != self.spec.line for loc in locations):
                # Moved to a next line: not where the line has code in another class (a nested or
                # anonymous one, or the same class of another loader) already.
                if any(loc.line == self.spec.line for loc in self.locations):
                    return
            else:
                await self._drop_moved()
        for loc in locations:
            if loc in self.locations:
                continue
            self.locations.append(loc)
            mods: list[dict] = [{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc.to_wire()}]
            if await self._capture_in_vm(loc, mods):
                continue
            expr_id = await self._compile_in_vm(loc)
            if expr_id:
                # The condition, then the count of hits where it held, both judged in the VM.
                mods.append({"mod_kind": ModKind.CONDITIONAL, "expr_id": expr_id})
                if self.hit_count:
                    mods.append({"mod_kind": ModKind.COUNT, "count": self.hit_count})
                mods.append(await self._in_vm_budget())
                # The same policy as the standard path: a hit holds its thread as long, with a frame.
                self._in_vm_requests.add(await self._set(EventKind.BREAKPOINT, self._policy, mods, self._on_event))
                continue
            if self.hit_count and self.condition is None:
                mods.insert(0, {"mod_kind": ModKind.COUNT, "count": self.hit_count})
            rid = await self._set(EventKind.BREAKPOINT, self._policy, mods, self._on_event)
            if expr_id is None:
                self._retry[rid] = loc

    async def _capture_in_vm(self, loc: Location, mods: list[dict]) -> bool:
        """Set the request as one the VM captures for (a logpoint's): False when it cannot."""
        return False

    def _retry_now(self, rid: int) -> bool:
        """Whether this standard-path hit tries the VM again: at the 1st, 2nd, 4th, 8th ... hit, so
        that a class that loads late is found soon and a name that never resolves costs a
        compile at only a logarithmic share of the hits."""
        seen = self._retry_hits.get(rid, 0) + 1
        self._retry_hits[rid] = seen
        return seen & (seen - 1) == 0

    async def _move_in_vm(self, rid: int) -> None:
        """At a standard-path hit (its thread held): compile again; if the VM can run the condition
        now, replace the request by one that does.  Until the replacement is set, another thread
        passing there is not stopped (the window is two commands long)."""
        loc = self._retry[rid]
        expr_id = await self._compile_in_vm(loc)
        if expr_id is None and not self.hit_count:
            return  # not yet: tried again at a later hit
        del self._retry[rid]
        if not expr_id or self.hit_count:  # a count already under way stays where it is counted
            return
        await self.vm.router.clear_request(EventKind.BREAKPOINT, rid)
        self._requests.remove((EventKind.BREAKPOINT, rid))
        mods: list[dict] = [{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc.to_wire()},
                            {"mod_kind": ModKind.CONDITIONAL, "expr_id": expr_id}, await self._in_vm_budget()]
        self._in_vm_requests.add(await self._set(EventKind.BREAKPOINT, self._policy, mods, self._on_event))

    async def _in_vm_budget(self) -> dict:
        """The budget modifier of an in-VM condition or capture: no CPU quota unless the script
        gave one (``cpu_quota``), and a condition the VM cannot evaluate stops there as on the
        standard path (STOP_ON_ERROR)."""
        if self._budget_id is None:
            self._budget_id = await define_budget(self.vm, self.cpu_quota,
                                                  BudgetFlag.STOP_ON_ERROR if self.condition is not None else 0)
        return {"mod_kind": ModKind.CONDITIONAL, "expr_id": self._budget_id}

    async def _compile_in_vm(self, loc: Location) -> int | None:
        """The condition compiled for the VM at ``loc`` (its id); 0: no condition, a server without
        the extension, or an expression it cannot run (a method call ...); None: not now (a name
        that does not resolve yet: its class may load later)."""
        if self.condition is None or not self.in_vm or not await self.vm.has_extension():
            return 0
        r = await compile_for_vm(self.vm, "CompileCondition", self.condition, loc)
        return r.expr_id if r.status == 0 else (None if r.status == 1 else 0)

    async def _on_event(self, event: Any, stop: Stop) -> None:
        if self.cleared:
            await stop.release()
            return
        if int(event.event_kind) == EventKind.JDWPD_DISABLED:  # the budget the script gave ran out
            self.disabled = Disabled(event.reason).name.lower()
            await stop.release()
            await self._fail(f"disabled in the VM by its budget ({self.disabled})", disabled=True)
            return
        if int(event.event_kind) == EventKind.JDWPD_CONDITION_ERROR:  # the VM could not evaluate it:
            await stop.release()  # the hit that follows stops (or logs, or captures) for it
            where = await self.vm.types.location_from_wire(event.location)
            what = f"{FAILED_IN_VM.get(event.reason, 'an error')} (in the VM)"
            self.condition_errors.append(f"{where}: {what}")
            self._failed_at[event.thread] = what
            return
        in_vm = event.request_id in self._in_vm_requests  # the VM sent only hits where it held
        if event.request_id in self._retry and stop.policy and self._retry_now(event.request_id):
            await self._move_in_vm(event.request_id)
        hit = await self.vm.router.make_hit(self, event, stop)
        if in_vm:
            hit.condition_error = self._failed_at.pop(event.thread, None)
        if self.condition is not None and not in_vm and not await self._condition_holds(hit):
            await hit.resume()
            return
        if self.condition is not None and self.hit_count and not in_vm:
            self._passed += 1
            if self._passed != self.hit_count:
                await hit.resume()
                return
        if SUSPEND_POLICIES[self.suspend] == 0 and stop.policy:
            await self._consume(hit)
            await hit.resume()
            return
        await self._consume(hit)

    async def _consume(self, hit: Hit) -> None:
        await self._deliver(hit)

    async def _condition_holds(self, hit: Hit) -> bool:
        from jdwpd.expr import EvaluationError

        from .access import ExpressionError, evaluate_in_frame

        assert self.condition is not None
        try:
            value = await evaluate_in_frame(hit.frame, self.condition, allow_invoke=self.allow_invoke)
        except EvaluationError as e:  # what Java would throw: it stops, as in IDEs, saying where and why
            hit.condition_error = e.message
            self.condition_errors.append(f"{hit.location}: {e.message}")
            return True
        except ExpressionError:
            raise
        except Exception as e:  # a JDWP error on the way (an object collected ...): the same
            hit.condition_error = str(e)
            self.condition_errors.append(f"{hit.location}: {e}")
            return True
        return bool(value)


@attrs.define(eq=False)
class Watchpoint(DeferredRequest):
    """Stops when a field is read (``access``) and/or written (``modify``): ``pkg.Class.field``."""

    class_name: str = attrs.field(kw_only=True)
    field_name: str = attrs.field(kw_only=True)
    access: bool = attrs.field(default=False, kw_only=True)
    modify: bool = attrs.field(default=True, kw_only=True)
    suspend: str = attrs.field(default="thread", kw_only=True)

    def __str__(self) -> str:
        return f"watchpoint {self.class_name}.{self.field_name}"

    async def _install(self) -> None:
        await self._install_named(self.class_name)

    async def _install_in(self, t: ReferenceType) -> None:
        f = next((f for f in await t.fields() if f.name == self.field_name), None)
        if f is None:
            names = ", ".join(x.name for x in await t.fields())
            raise AttributeError(f"{t.name} has no field {self.field_name!r}; its fields: {names}")
        kinds = ([EventKind.FIELD_ACCESS] if self.access else []) + (
            [EventKind.FIELD_MODIFICATION] if self.modify else [])
        for kind in kinds:
            mods = [{"mod_kind": ModKind.FIELD_ONLY, "declaring": t.id, "field_id": f.id}]
            await self._set(kind, SUSPEND_POLICIES[self.suspend], mods, self._on_event)


def _wire_key(wire: dict) -> tuple[int, int, int]:
    return wire["class_id"], wire["method_id"], wire["index"]

