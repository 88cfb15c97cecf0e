"""Objects as a whole: monitors, collection (pins counted per session), ids given back, the heap's
walks (instances, referrers, counts), and the VM's exit."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from jdwpd.daemon.facade.agent import ask
from jdwpd.errors import AgentError, JdwpError
from protocol.constants import ErrorCode
from protocol.link import LinkStatus

if TYPE_CHECKING:  # pragma: no cover
    from jdwpd.daemon.facade.values import ObjectKinds
    from jdwpd.daemon.fast.locals_ahead import LocalsAhead
    from jdwpd.daemon.model.objects import ObjectRefs
    from jdwpd.daemon.model.threads import ThreadTable


class ObjectOperations:
    """The façade's object and heap operations (a mixin of jdwpd.daemon.vm.VM)."""

    link: Any
    objects: ObjectRefs
    object_kinds: ObjectKinds
    threads: ThreadTable
    locals_ahead: LocalsAhead
    check_type: Callable[[int], Awaitable[int]]  # ValueOperations'

    async def monitor_info(self, obj: int) -> tuple[int, int, list[int]]:
        """(owner thread, entry count, waiting threads) of an object's monitor."""
        await self.object_kinds.get(obj)
        r = await ask(self.link, "OBJECT_MONITOR_INFO", object=obj)
        return r["owner"], r["entry_count"], [w["thread"] for w in r["waiters"]]

    async def pin(self, session: Any, obj: int) -> None:
        """Keep an object from collection until this session unpins it or leaves."""
        if obj == 0:
            raise JdwpError(ErrorCode.INVALID_OBJECT, "null object")
        await ask(self.link, "OBJECT_PIN", object=obj)
        self.objects.pinned(session, obj)  # so that the pin goes when this session does

    async def unpin(self, session: Any, obj: int) -> None:
        # Only a pin this session made is undone: another session's pin stands.
        if self.objects.unpinned(session, obj):
            await ask(self.link, "OBJECT_UNPIN", object=obj)

    async def is_collected(self, obj: int) -> bool:
        if obj == 0:
            raise JdwpError(ErrorCode.INVALID_OBJECT, "null object")
        try:
            r = await self.link.request("OBJECT_IS_COLLECTED", object=obj)
        except AgentError as e:
            # The reference answers true, not an error, for an id it does not know (any more).
            if e.status in (LinkStatus.INVALID_ID, LinkStatus.COLLECTED):
                return True
            raise
        return r["collected"]

    async def dispose_ids(self, session: Any, counts: list[tuple[int, int]]) -> None:
        """(object, how many times) this session gives back.  An id given back as many times as it was
        sent to the session, and held by no other, is forgotten: INVALID_OBJECT afterwards, and the
        object gets a new id if it is sent again (as in the reference).  The agent keeps the ids of
        threads, thread groups, classes, class loaders and modules, which the model is keyed by
        (agent/objects.c)."""
        released = [obj for obj, count in counts if self.objects.disposed(session, obj, count)]
        if not released:
            return
        self.objects.released(released)
        for oid in released:
            self.object_kinds.forget(oid)
        for thread in self.threads.known():
            self.locals_ahead.forget(thread)  # values read ahead may name a released id
        try:
            await self.link.request("RELEASE_IDS", ids=[{"id": i} for i in released])
        except AgentError:
            pass  # the reference never reports a failure here

    async def referrers(self, obj: int, most: int) -> list[dict]:
        """Objects referring to ``obj`` (at most ``most``, 0: all), as the agent lists them: dicts whose
        "object" is a link Tagged (a heap walk's answer may hold hundreds of thousands: kept as is)."""
        await self.object_kinds.get(obj)
        if most < 0:
            raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, "maxReferrers < 0")
        return (await ask(self.link, "OBJECT_REFERRERS", object=obj, max=most))["referrers"]

    async def instances(self, ref: int, most: int) -> list[dict]:
        """Instances of a type (at most ``most``, 0: all), shaped as referrers()."""
        if ref == 0:
            # The reference reads the null class without complaint and then finds no object to count.
            raise JdwpError(ErrorCode.INVALID_OBJECT, "null class")
        await self.check_type(ref)
        if most < 0:
            raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, "maxInstances < 0")
        return (await ask(self.link, "CLASS_INSTANCES", ref=ref, max=most))["instances"]

    async def instance_counts(self, refs: list[int]) -> list[int]:
        valid = []
        for ref in refs:
            # An unloaded or bogus class counts 0 instances (the reference skips it).
            try:
                await self.check_type(ref)
                valid.append(ref)
            except JdwpError as e:
                if e.code not in (ErrorCode.INVALID_OBJECT, ErrorCode.INVALID_CLASS):
                    raise
                valid.append(0)
        asked = [r for r in valid if r]
        counts: dict[int, int] = {}
        if asked:
            r = await ask(self.link, "INSTANCE_COUNTS", refs=[{"ref": x} for x in asked])
            counts = {ref: c["count"] for ref, c in zip(asked, r["counts"], strict=True)}
        return [counts.get(r, 0) if r else 0 for r in valid]

    async def exit_vm(self, code: int) -> None:
        """End the VM with ``code``; whatever the link says as the VM goes away does not matter."""
        try:
            await self.link.request("EXIT", code=code)
        except Exception:
            pass
