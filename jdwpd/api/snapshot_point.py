"""``vm.snapshots``: a breakpoint that only captures, in the VM where the server has jdwpd's
extension (``capture.py``), over JDWP elsewhere (``snapshot.capture``); each hit a ``Snapshot``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import attrs
import trio

from protocol.constants import EventKind, ModKind

from .capture import DEFAULT_MAX_SNAPSHOTS, LATER, plan, to_snapshot
from .requests import Breakpoint
from .snapshot import Snapshot, capture
from .views import Limits

if TYPE_CHECKING:
    from .hits import Hit, Stop
    from .types import Location

__all__ = ["SnapshotPoint"]


@attrs.define(eq=False)
class SnapshotPoint(Breakpoint):
    """A breakpoint that only captures (``vm.snapshots``): each hit becomes a ``Snapshot``.

    Where the server has jdwpd's extension and the VM can compile the condition and the watches,
    the VM captures at each hit and the thread goes on at once (a SUSPEND_NONE request carrying a
    capture, docs/extensions.md): it never waits for this client.  Elsewhere (the reference, or an
    expression that needs a method call) the thread is held while the snapshot is read over JDWP,
    then resumed.  Both give the same ``jdwpd.snapshot/1`` data.

    ``hold`` (``vm.snapshot``'s one capture): the VM captures and holds the thread too, so that
    a capture that cut a linked JDK collection earlier than JDWP would is read again over JDWP
    from the same held hit; a complete one lets the thread go at once."""

    limits: Limits = attrs.field(factory=Limits, kw_only=True)
    watch: list[str] = attrs.field(factory=list, kw_only=True)
    #: Share of one CPU the VM's captures may use (None: no quota); past it the point disables
    #: itself (``disabled == "cpu_quota"``) and its waits raise ``RequestDisabled``.
    cpu_quota: float | None = attrs.field(default=None, kw_only=True)
    #: How many snapshots the point takes (per location it is set at), as production snapshot
    #: debuggers cap theirs: the first ``max_hits`` hits, then the point is spent
    #: (``disabled == "hit_cap"``; its waits raise ``RequestDisabled`` once they are taken).
    #: None: no cap (a hot line then sends every capture it can).
    max_hits: int | None = attrs.field(default=DEFAULT_MAX_SNAPSHOTS, kw_only=True)
    hold: bool = attrs.field(default=False, kw_only=True)
    _loc_of: dict = attrs.field(factory=dict, init=False, repr=False)  # in-VM request id -> location

    _captures_are = "snapshots"

    def __str__(self) -> str:
        return f"snapshot point {self.spec.text}"

    def _capture_requests(self) -> set[int]:
        return set(self._loc_of)

    @property
    def _needs_frame(self) -> bool:
        return True

    async def _capture_in_vm(self, loc: Location, mods: list[dict]) -> bool:
        extra = await plan(self.vm, loc, self.limits, self.watch, self.condition, self.cpu_quota, self.max_hits or 0) \
            if self.in_vm else None
        if extra is None:
            return False  # the standard path, for good (the condition may still run in the VM)
        if extra == LATER:
            # A watch or the condition names a class not loaded yet (the usual case when the class
            # of the location has just been prepared): read over JDWP until the first hit, where
            # the capture moves into the VM (_move_in_vm).
            rid = await self._set(EventKind.BREAKPOINT, self._policy, mods, self._on_event)
            self._retry[rid] = loc
            return True
        rid = await self._set(EventKind.BREAKPOINT, self._policy if self.hold else 0, mods + list(extra),
                              self._on_event)
        self._in_vm_requests.add(rid)
        self._loc_of[rid] = loc
        return True

    async def _move_in_vm(self, rid: int) -> None:
        """At the first held hit of a request that waited for its classes: plan again; if the VM
        can capture now, a capturing request replaces it (another thread passing there in the two
        commands between is not captured)."""
        loc = self._retry[rid]
        extra = await plan(self.vm, loc, self.limits, self.watch, self.condition, self.cpu_quota, self.max_hits or 0)
        if extra == LATER:
            return  # not yet: tried again at a later hit
        del self._retry[rid]
        if extra is None:
            return
        await self.vm.router.clear_request(EventKind.BREAKPOINT, rid)
        self._requests.remove((EventKind.BREAKPOINT, rid))
        mods = [{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc.to_wire()}, *extra]
        new = await self._set(EventKind.BREAKPOINT, self._policy if self.hold else 0, mods, self._on_event)
        self._in_vm_requests.add(new)
        self._loc_of[new] = loc

    async def _on_event(self, event: Any, stop: Stop) -> None:
        if int(event.event_kind) != EventKind.JDWPD_CAPTURE:
            await super()._on_event(event, stop)
            return
        failed = self._failed_at.pop(event.thread, None)  # its condition threw: captured for that
        if self.hold and stop.policy:
            await self._held_capture(event, stop, failed)
            return
        await stop.release()  # holds nothing: the request's policy is NONE
        if self.cleared:
            return
        data, complete = await to_snapshot(self.vm, event, self.limits, self.watch)
        if not complete and event.request_id in self._in_vm_requests:
            # The VM's raw fields could not show a JDK collection as deep as JDWP reads it (a
            # LinkedHashMap's entries are a chain): the next hits here are read over JDWP.
            await self._back_to_standard(event.request_id)
        await self._put(Snapshot(data, in_vm=True, condition_error=failed))

    async def _held_capture(self, event: Any, stop: Stop, failed: str | None) -> None:
        """The VM captured and holds the thread: the capture if it is complete, else the same hit
        read over JDWP; the thread goes on either way."""
        try:
            if self.cleared:
                return
            data, complete = await to_snapshot(self.vm, event, self.limits, self.watch)
            if complete:
                snap = Snapshot(data, in_vm=True, condition_error=failed)
            else:
                hit = await self.vm.router.make_hit(self, event, stop)
                snap = attrs.evolve(await capture(hit, self.limits, self.watch), condition_error=failed)
        finally:
            await stop.release()
        await self._put(snap)

    async def _back_to_standard(self, rid: int) -> None:
        self._in_vm_requests.discard(rid)
        await self.vm.router.clear_request(EventKind.BREAKPOINT, rid)
        self._requests.remove((EventKind.BREAKPOINT, rid))
        loc = self._loc_of.pop(rid, None)
        if loc is None or self.cleared:
            return
        # the condition is then evaluated here, as on any standard-path request of a Breakpoint
        mods = [{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc.to_wire()}]
        await self._set(EventKind.BREAKPOINT, self._policy, mods, self._on_event)

    async def _consume(self, hit: Hit) -> None:
        try:
            snap = attrs.evolve(await capture(hit, self.limits, self.watch), condition_error=hit.condition_error)
        finally:
            await hit.resume()
        await self._put(snap)

    async def _put(self, snap: Snapshot) -> None:
        if self.error is not None:
            return  # spent: a capture that was on its way when the cap was reached
        self.hit_total += 1
        if not self._callbacks:
            try:
                self._queue[0].send_nowait(snap)  # wait() and hits() hand out snapshots
            except trio.ClosedResourceError:  # the VM ended while its last capture was read
                pass
        else:
            for fn in self._callbacks:
                self.vm.router.spawn_handler(fn, snap)
        if self.max_hits and self.hit_total >= self.max_hits:
            self.disabled = "hit_cap"
            default = "the default cap; " if self.max_hits == DEFAULT_MAX_SNAPSHOTS else ""
            await self._fail(f"took its max_hits={self.max_hits} snapshots ({default}max_hits=None takes every hit)",
                             disabled=True)

    def on_hit(self, fn: Any) -> Any:
        """Run ``await fn(snapshot)`` for every snapshot from now on, each in a task of its own
        (the thread is not held while it runs)."""
        self._callbacks.append(fn)
        return fn

    async def _release_queued(self, queued: Any) -> None:
        """Queued snapshots are dropped when the point is cleared: they hold no thread (one that
        came while the clear counted the VM's drops included)."""

    async def snapshots(self, limit: int | None = None, timeout: float | None = None, *,
                        keep: bool = False) -> AsyncIterator[Snapshot]:
        """Snapshots as they come (``wait`` gives one), each within ``timeout`` seconds (else
        ``Timeout``); after ``limit`` of them the request is cleared unless ``keep=True``."""
        async for snap in self.hits(limit, timeout, keep=keep):
            assert isinstance(snap, Snapshot)  # a snapshot point's hits
            yield snap
