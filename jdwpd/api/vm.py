"""The VM a script debugs: threads, classes, resume, and the requests that make it stop.

    async with jdwpd.launch(["java", "-cp", "classes", "shop.Main"]) as vm:
        bp = await vm.breakpoint("Checkout.java:42")
        await vm.resume()                        # the launched VM waits at its start until then
        hit = await bp.wait(timeout=10)

Its event router (``router.py``, ``vm.router``) reads the events and routes each to the request
that asked for it; each request handles its events in order in a task of its own, so a slow
condition holds up no other request.
"""

from __future__ import annotations

from typing import Any

import trio

from protocol.constants import TypeTag

from .capture import DEFAULT_MAX_SNAPSHOTS
from .catches import ExceptionBreakpoint
from .connection import Connection
from .errors import JdwpError, LocationError, VMDisconnected
from .hits import ExceptionHit, Hit
from .locations import parse_location
from .logpoints import Logpoint
from .method_events import MethodEntries, MethodExits
from .requests import SUSPEND_POLICIES, Breakpoint, EventSource, Watchpoint, add_source, forget_source
from .router import EventRouter
from .threads import Thread
from .types import ReferenceType, TypeCache, name_to_signature
from .values import Values

__all__ = ["VM"]


class VM:
    """A debugged VM, seen through one JDWP connection.  Made by ``jdwpd.launch``/``attach``."""

    def __init__(self, conn: Connection, nursery: trio.Nursery, *, process: Any = None) -> None:
        self.conn = conn
        #: The launched process (``jdwpd.launch``), else None.
        self.process = process
        self.types = TypeCache(self)
        self.values = Values(self)
        #: Where the VM's events go to the requests (and the requests' JDWP requests are set).
        self.router = EventRouter(self, nursery)
        self._threads: dict[int, Thread] = {}
        self._extension: bool | None = None  # jdwpd's extension (docs/extensions.md): asked once
        self._extension_features = 0  # its JdwpdHello's feature bits

    @property
    def started(self) -> trio.Event:
        """Set when VMStart arrived (``held_at_start``: the VM waits there for ``resume()``)."""
        return self.router.started

    @property
    def held_at_start(self) -> bool:
        return self.router.held_at_start

    @property
    def dead(self) -> trio.Event:
        """Set when VMDeath arrived or the connection ended."""
        return self.router.dead

    @property
    def closed(self) -> bool:
        """Whether the script left (``dispose()``)."""
        return self.router.closed

    async def has_extension(self, features: int = 0) -> bool:
        """Whether the server runs conditions in the VM (jdwpd's extension, docs/extensions.md),
        and offers every one of ``features`` (JdwpdHello's bits).  Asked once, with
        VirtualMachine.JdwpdHello: a server without it answers NOT_IMPLEMENTED."""
        if self._extension is None:
            try:
                r = await self.conn.command("VirtualMachine", "JdwpdHello", client_version=2)
                self._extension, self._extension_features = True, r.features
            except JdwpError:
                self._extension = False
        return self._extension and self._extension_features & features == features

    # ------------------------------------------------------------------ the VM

    async def version(self) -> str:
        """The server's description (``Java Debug Wire Protocol (Reference Implementation) ...``)."""
        return (await self.conn.command("VirtualMachine", "Version")).description

    async def thread(self, thread_id: int) -> Thread:
        t = self._threads.get(thread_id)
        if t is None:
            try:
                name = (await self.conn.command("ThreadReference", "Name", thread=thread_id)).thread_name
            except JdwpError:
                name = "?"
            t = self._threads[thread_id] = Thread(self, thread_id, name)
        return t

    async def threads(self) -> list[Thread]:
        """The live threads."""
        r = await self.conn.command("VirtualMachine", "AllThreads")
        return [await self.thread(t.thread) for t in r.threads]

    async def thread_named(self, name: str) -> Thread:
        for t in await self.threads():
            if t.name == name:
                return t
        raise LookupError(f"no live thread named {name!r}")

    async def classes(self, pattern: str | None = None) -> list[ReferenceType]:
        """Loaded types, those whose name matches ``pattern`` (``shop.*``, ``*Checkout``) if given."""
        r = await self.conn.command("VirtualMachine", "AllClasses")
        out = []
        for c in r.classes:
            if c.ref_type_tag == TypeTag.ARRAY and pattern is None:
                continue
            t = await self.types.type(c.type_id, c.ref_type_tag, c.signature)
            if pattern is None or _match(pattern, t.name):
                out.append(t)
        return out

    async def classes_named(self, name: str) -> list[ReferenceType]:
        """Every loaded type of that name (one per class loader that defined one)."""
        return await self.types.types_by_signature(name_to_signature(name))

    async def class_named(self, name: str) -> ReferenceType:
        """The loaded type of that name (the first one if several loaders have one)."""
        found = await self.classes_named(name)
        if not found:
            raise LookupError(f"class {name} is not loaded (yet): set a breakpoint in it to wait for it")
        return found[0]

    async def resume(self) -> None:
        """Resume every thread once (the VM held at its start, or by ``suspend="all"`` hits); hits
        still held count as resumed.  Requests being set meanwhile in other tasks are set first: a
        resume beside ``vm.snapshot(...)`` cannot let the VM run past the place it waits for."""
        await self.router.installs_settled()
        self.router.all_resumed()
        await self.conn.command("VirtualMachine", "Resume")

    async def suspend(self) -> None:
        """Suspend every thread (undone by ``resume``)."""
        await self.conn.command("VirtualMachine", "Suspend")

    # ------------------------------------------------------------------ requests

    async def breakpoint(self, location: str, *, condition: str | None = None, suspend: str = "thread",
                         hit_count: int | None = None, allow_invoke: bool = False, in_vm: bool = True,
                         cpu_quota: float | None = None) -> Breakpoint:
        """Stop at ``location`` (``File.java:42``, ``pkg.Class:42``, ``pkg.Class.method``,
        ``pkg.Class.method(int,String)``), now or when its class loads.

        ``condition``: a Java expression; only hits where it is true count (method calls in it
        only with ``allow_invoke=True``).  ``suspend``: ``"thread"`` (the hitting thread is held),
        ``"all"`` (the VM), ``"none"`` (nothing held: the hit has no frames).  ``hit_count=N``:
        only the Nth hit counts (then the breakpoint is spent).  ``in_vm``: where the server is
        jdwpd, a condition it can compile runs in the VM (docs/extensions.md: no stop for a false
        hit); False: always evaluated here.  ``cpu_quota``: the share of one CPU the in-VM
        condition may use (None: no quota); past it the breakpoint is disabled and its waits
        raise ``RequestDisabled``.
        """
        if suspend not in SUSPEND_POLICIES:
            raise ValueError(f"suspend must be one of {sorted(SUSPEND_POLICIES)}, not {suspend!r}")
        bp = Breakpoint(self, spec=parse_location(location), condition=condition, suspend=suspend,
                        hit_count=hit_count, allow_invoke=allow_invoke, in_vm=in_vm, cpu_quota=cpu_quota)
        await self._check_expression(condition)
        return await add_source(bp)

    async def logpoint(self, location: str, template: str, *, condition: str | None = None,
                       allow_invoke: bool = False, echo: Any = None, in_vm: bool = True,
                       cpu_quota: float | None = None) -> Logpoint:
        """Print ``template`` (``"paid {order.id} amount={amount}"``) each time ``location`` runs;
        ``await log.lines()`` returns the lines; ``echo=print`` also hands each to a function.
        A template or condition that does not parse raises ``ExpressionError`` here.
        ``cpu_quota``: as for ``breakpoint`` (None: every line, no quota)."""
        lp = Logpoint(self, spec=parse_location(location), condition=condition, template=template,
                      allow_invoke=allow_invoke, echo=echo, in_vm=in_vm, cpu_quota=cpu_quota)
        await self._check_expression(condition)
        from jdwpd.expr import parse_template

        parse_template(template)  # each part parsed: an error's column is the template's
        return await add_source(lp)

    async def catch(self, class_name: str | None = None, *, caught: bool = True, uncaught: bool = True,
                    suspend: str = "thread", exclude: tuple[str, ...] = (), caught_in: tuple[str, ...] = (),
                    not_caught_in: tuple[str, ...] = ()) -> ExceptionBreakpoint:
        """Stop where an exception of ``class_name`` or a subclass (None: any) is thrown;
        ``exclude``: class patterns (``java.*``) whose own throws are not reported; ``caught_in``,
        ``not_caught_in``: class patterns of the method that will catch it (a caught exception is
        reported only when that class matches one of ``caught_in``, if any, and none of
        ``not_caught_in``; judged in the VM under jdwpd).  ValueError for a malformed pattern."""
        return await add_source(ExceptionBreakpoint(self, class_name=class_name, caught=caught, uncaught=uncaught,
                                                   suspend=suspend, exclude=tuple(exclude), caught_in=tuple(caught_in),
                                                   not_caught_in=tuple(not_caught_in)))

    async def exception(self, class_name: str | None = None, *, caught: bool = True, uncaught: bool = True,
                        timeout: float | None = None) -> ExceptionHit:
        """Wait for the next such exception (see ``catch``); its thread stays held until resumed."""
        catch = await self.catch(class_name, caught=caught, uncaught=uncaught)
        try:
            hit = await catch.wait(timeout)
        finally:
            with trio.CancelScope(shield=True):
                await forget_source(catch)
        assert isinstance(hit, ExceptionHit)  # an exception breakpoint's
        return hit

    async def watch(self, field: str, *, access: bool = False, modify: bool = True,
                    suspend: str = "thread") -> Watchpoint:
        """Stop when ``pkg.Class.field`` is written (``modify``) and/or read (``access``)."""
        class_name, _, name = field.rpartition(".")
        if not class_name:
            raise LocationError(f"{field!r}: write the field as pkg.Class.field")
        return await add_source(Watchpoint(self, class_name=class_name, field_name=name, access=access,
                                          modify=modify, suspend=suspend))

    async def method_entries(self, class_pattern: str, *, suspend: str = "thread") -> MethodEntries:
        """Stop as any method of a class matching ``class_pattern`` (``pkg.Class``, ``pkg.*``) is
        entered; each hit is at the method's first instruction (``hit.location.method``)."""
        if suspend not in SUSPEND_POLICIES:
            raise ValueError(f"suspend must be one of {sorted(SUSPEND_POLICIES)}, not {suspend!r}")
        return await add_source(MethodEntries(self, class_pattern=class_pattern, suspend=suspend))

    async def method_exits(self, method: str, *, suspend: str = "thread") -> MethodExits:
        """Stop each time ``pkg.Class.method`` returns; ``hit.return_value`` is its result."""
        class_name, _, name = method.rpartition(".")
        if not class_name:
            raise LocationError(f"{method!r}: write the method as pkg.Class.method")
        return await add_source(MethodExits(self, class_name=class_name, method_name=name, suspend=suspend))

    async def snapshots(self, location: str, *, limits: Any = None, watch: tuple[str, ...] | list[str] = (),
                        condition: str | None = None, in_vm: bool = True, cpu_quota: float | None = None,
                        max_hits: int | None = DEFAULT_MAX_SNAPSHOTS) -> Any:
        """A ``SnapshotPoint``: a ``Snapshot`` (stack, locals of the top frames, ``this``, ``watch``
        expressions, under ``limits``) each time ``location`` runs (and ``condition`` holds):

            snaps = await vm.snapshots("Checkout.java:60", condition="order.total > 100")
            async for snap in snaps.snapshots(limit=10, timeout=30):
                print(snap.to_json())

        Where the server is jdwpd (``in_vm``) the VM captures each hit itself and the thread never
        waits for this script; elsewhere the thread is held while the snapshot is read over JDWP.
        Both give the same data (docs/scripting.md).  ``cpu_quota``: the share of one CPU the
        VM's captures may use (None: no quota); past it the point disables itself,
        ``sp.disabled`` says ``"cpu_quota"`` and its waits raise ``RequestDisabled``.
        ``max_hits``: the point takes the first ``max_hits`` snapshots (10 by default), then it
        is spent (``"hit_cap"``; None: no cap), so that a hot line cannot flood the session."""
        from .snapshot_point import SnapshotPoint
        from .views import Limits

        sp = SnapshotPoint(self, spec=parse_location(location), condition=condition, limits=limits or Limits(),
                           watch=list(watch), in_vm=in_vm, cpu_quota=cpu_quota, max_hits=max_hits)
        await self._check_expression(condition)  # a watch's error is part of the snapshot, as before
        return await add_source(sp)

    async def snapshot(self, location: str, *, limits: Any = None, watch: tuple[str, ...] | list[str] = (),
                       condition: str | None = None, timeout: float | None = None, in_vm: bool = True) -> Any:
        """Wait for ``location`` to run, capture a ``Snapshot`` there (stack, locals of the top
        frames, ``this``, ``watch`` expressions, under ``limits``) and let the thread go on: the
        first snapshot of ``vm.snapshots``.  Where the server is jdwpd (``in_vm``) the VM captures
        it and holds the thread only until this script has seen the capture is complete (a linked
        JDK collection deeper than the VM read is read again over JDWP, the thread still there);
        elsewhere it is read over JDWP.  The same data either way (docs/scripting.md)."""
        from .snapshot_point import SnapshotPoint
        from .views import Limits

        sp = SnapshotPoint(self, spec=parse_location(location), condition=condition, limits=limits or Limits(),
                           watch=list(watch), in_vm=in_vm, hold=True)
        await self._check_expression(condition)
        sp = await add_source(sp)
        try:
            return await sp.wait(timeout)
        finally:
            with trio.CancelScope(shield=True):
                await forget_source(sp)

    async def run_to(self, location: str, *, timeout: float | None = None) -> Hit:
        """Resume the VM and wait until a thread reaches ``location``; that thread stays held."""
        bp = await self.breakpoint(location)
        try:
            await self.resume()
            return await bp.wait(timeout)
        finally:
            with trio.CancelScope(shield=True):
                await forget_source(bp)

    def unresolved(self) -> list[Breakpoint]:
        """Breakpoints and logpoints that are set in no class yet (``bp.problem`` says why)."""
        return [s for s in self.router.sources() if isinstance(s, Breakpoint) and not s.resolved]

    def requests(self) -> list[EventSource]:
        return self.router.sources()

    async def _check_expression(self, text: str | None) -> None:
        if text is not None:
            from .access import check_expression

            check_expression(text)

    async def dispose(self) -> None:
        """Leave as a debugger's Dispose does: requests cleared, suspensions undone (idempotent)."""
        if self.closed:
            return
        self.router.close()
        if not self.dead.is_set() and not self.conn.closed.is_set():
            try:
                await self.conn.command("VirtualMachine", "Dispose", timeout=10)
            except (VMDisconnected, JdwpError):
                pass

    async def exit(self, code: int = 0) -> None:
        """End the VM with exit code ``code`` (System.exit, from the debugger)."""
        await self.conn.command("VirtualMachine", "Exit", exit_code=code)


def _match(pattern: str, name: str) -> bool:
    if pattern.startswith("*"):
        return name.endswith(pattern[1:])
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern

