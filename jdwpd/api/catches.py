"""Exception requests: stop where an exception is thrown, filtered by its class, by the class that
throws it and by the class that will catch it.

The catch filter (``caught_in``, ``not_caught_in``) is what a test runner's watcher needs: most
throws of a program are caught by the code that threw them, and only those a framework records,
or nobody catches, mean a failure.  Where the server is jdwpd the VM judges each throw (jdwpd's
extension, docs/extensions.md "DefineCatchFilter"): the others never leave it.  Elsewhere the
thread stops at every throw and this client judges it, by the same rule, and lets it go at once.
"""

from __future__ import annotations

from typing import Any

import attrs

from protocol.agent_code import catch_passes, valid_class_pattern
from protocol.constants import EventKind, JdwpdFeature, ModKind

from .errors import JdwpError
from .hits import ExceptionHit, Stop
from .requests import SUSPEND_POLICIES, DeferredRequest
from .types import ReferenceType

__all__ = ["ExceptionBreakpoint", "check_patterns"]

#: JdwpdHello's feature bit for DefineCatchFilter (docs/extensions.md).
FEATURE_CATCH_FILTERS = JdwpdFeature.CATCH_FILTERS


def check_patterns(patterns: tuple[str, ...], what: str) -> tuple[str, ...]:
    for p in patterns:
        if not valid_class_pattern(p):
            raise ValueError(f"{what}: {p!r} is not a class pattern (a name, or one '*' at its start or end)")
    return tuple(patterns)


@attrs.define(eq=False)
class ExceptionBreakpoint(DeferredRequest):
    """Stops when an exception of a class (or a subclass) is thrown: ``caught`` and/or ``uncaught``."""

    class_name: str | None = attrs.field(default=None, kw_only=True)
    caught: bool = attrs.field(default=True, kw_only=True)
    uncaught: bool = attrs.field(default=True, kw_only=True)
    suspend: str = attrs.field(default="thread", kw_only=True)
    #: Class patterns (``java.*``, ``*.Foo``) whose throws are not reported: filtered where the
    #: server filters (JDWP's ClassExclude, on the throwing location's class).
    exclude: tuple[str, ...] = attrs.field(default=(), kw_only=True)
    #: A caught exception is reported only when the class of the method that catches it matches
    #: one of these (empty: any class) and none of ``not_caught_in``; uncaught ones always are.
    caught_in: tuple[str, ...] = attrs.field(default=(), kw_only=True)
    not_caught_in: tuple[str, ...] = attrs.field(default=(), kw_only=True)
    _filter_id: int | None = attrs.field(default=None, init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self.caught_in = check_patterns(self.caught_in, "caught_in")
        self.not_caught_in = check_patterns(self.not_caught_in, "not_caught_in")

    def __str__(self) -> str:
        return f"exception catch {self.class_name or '*'}"

    @property
    def _filtered(self) -> bool:
        return bool(self.caught_in or self.not_caught_in)

    async def _install(self) -> None:
        if self.class_name is None:
            await self._set_for(0)
            return
        await self._install_named(self.class_name)

    async def _install_in(self, t: ReferenceType) -> None:
        await self._set_for(t.id)

    async def _catch_filter(self) -> list[dict]:
        """The Conditional that makes the VM judge the catch filter, where the server can."""
        if not self._filtered or not await self.vm.has_extension(FEATURE_CATCH_FILTERS):
            return []
        if self._filter_id is None:
            try:
                r = await self.vm.conn.command(
                    "Jdwpd", "DefineCatchFilter", caught_in=[{"class_pattern": p} for p in self.caught_in],
                    not_caught_in=[{"class_pattern": p} for p in self.not_caught_in])
            except JdwpError:  # judged here instead, with the same answers
                return []
            self._filter_id = r.filter_id
        return [{"mod_kind": ModKind.CONDITIONAL, "expr_id": self._filter_id}]

    async def _set_for(self, type_id: int) -> None:
        mods: list[dict[str, Any]] = [{"mod_kind": ModKind.EXCEPTION_ONLY, "exception_or_null": type_id,
                                       "caught": self.caught, "uncaught": self.uncaught}]
        mods += [{"mod_kind": ModKind.CLASS_EXCLUDE, "class_pattern": p} for p in self.exclude]
        mods += await self._catch_filter()
        await self._set(EventKind.EXCEPTION, SUSPEND_POLICIES[self.suspend], mods, self._on_event)

    async def _on_event(self, event: Any, stop: Stop) -> None:
        if self.cleared:
            await stop.release()
            return
        hit = await self.vm.router.make_hit(self, event, stop)
        assert isinstance(hit, ExceptionHit)  # an Exception event's
        # Judged here too, whoever judged before: the same rule on every server (a no-op where the
        # VM filtered already).
        catch = hit.catch_location
        if self._filtered and not catch_passes(catch.type.name if catch else None, self.caught_in,
                                               self.not_caught_in):
            await stop.release()
            return
        await self._deliver(hit)
