"""Logpoints: a line printed each time a location runs, its ``{expressions}`` evaluated there.

    log = await vm.logpoint("Checkout.java:42", "paid {order.id} amount={amount}")
    await vm.resume()
    print(await log.wait_lines(3, timeout=10))

Where the server is jdwpd and every part of the template is a primitive or a String, the VM
captures the parts' values at each hit and the line is made here: the thread is never held.
Elsewhere the thread is held while the template is rendered over JDWP.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs
import trio

from protocol.agent_code import decode_capture
from protocol.constants import EventKind, ModKind

from .capture import compile_for_vm
from .errors import CapturesDropped, RequestError, Timeout, VMDisconnected
from .requests import Breakpoint

if TYPE_CHECKING:
    from .hits import Hit, Stop
    from .types import Location

__all__ = ["Logpoint"]

_PRIMITIVES = frozenset("ZBCSIJFD")
#: How often a wait for lines asks the VM whether it dropped any (in-VM logpoints), in seconds.
DROPS_POLL = 0.5


@attrs.define(eq=False)
class Logpoint(Breakpoint):
    """A line printed at a location, its ``{expressions}`` evaluated in the frame; the thread is
    held only while the template is rendered.  ``await log.lines()``: what it printed so far."""

    template: str = attrs.field(default="", kw_only=True)
    echo: Callable[[str], Any] | None = attrs.field(default=None, kw_only=True, repr=False)
    _lines: list[str] = attrs.field(factory=list, init=False, repr=False)
    _capture_parts: dict[int, list] = attrs.field(factory=dict, init=False, repr=False)
    _changed: trio.Event = attrs.field(factory=trio.Event, init=False, repr=False)

    _captures_are = "lines"

    def __str__(self) -> str:
        return f"logpoint {self.spec.text}"

    def _capture_requests(self) -> set[int]:
        return set(self._capture_parts)

    @property
    def _needs_frame(self) -> bool:
        return True

    async def _capture_in_vm(self, loc: Location, mods: list[dict]) -> bool:
        """Where the server is jdwpd and every part of the template is a primitive or a String the
        VM can evaluate (and so is the condition): the VM captures the parts' values at each hit
        and the line is made here; the thread is never held (docs/extensions.md, captures)."""
        if not self.in_vm or not await self.vm.has_extension():
            return False
        from jdwpd.expr import parse_template

        conn = self.vm.conn
        parts: list[Any] = []
        watches = []
        for part in parse_template(self.template).parts:
            if isinstance(part, str):
                parts.append(part)
                continue
            r = await compile_for_vm(self.vm, "CompileExpression", part.text, loc)
            if r.status != 0 or not (r.signature in _PRIMITIVES or r.signature == "Ljava/lang/String;"):
                return False  # an object would print through toString(): a call, only here
            parts.append(r.signature)
            watches.append({"expr_id": r.expr_id})
        extra = []
        if self.condition is not None:
            c = await compile_for_vm(self.vm, "CompileCondition", self.condition, loc)
            if c.status != 0:
                return False
            extra.append({"mod_kind": ModKind.CONDITIONAL, "expr_id": c.expr_id})
        extra.append(await self._in_vm_budget())
        cap = await conn.command("Jdwpd", "DefineCapture", frames=1, locals_frames=0, depth=0, max_string=65535,
                                 max_items=0, max_bytes=0, max_micros=0, this_object=False, object_ids=False,
                                 watches=watches)
        extra.append({"mod_kind": ModKind.CONDITIONAL, "expr_id": cap.capture_id})
        rid = await self._set(EventKind.BREAKPOINT, 0, mods + extra, self._on_event)
        self._in_vm_requests.add(rid)
        self._capture_parts[rid] = parts
        return True

    async def _on_event(self, event: Any, stop: Stop) -> None:
        if int(event.event_kind) != EventKind.JDWPD_CAPTURE:
            await super()._on_event(event, stop)
            return
        await stop.release()
        if self.cleared:
            return
        from jdwpd.expr import primitive_text

        values = iter(decode_capture(event.data)["watches"])
        out = []
        for part in self._capture_parts[event.request_id]:
            if part in _PRIMITIVES:
                v = next(values)
                if isinstance(v, dict):
                    out.append(f"<error: {v['@error']}>")
                else:  # decode_capture gives a char as a str
                    out.append(primitive_text(part, ord(v) if isinstance(v, str) else v))
            elif part == "Ljava/lang/String;":
                v = next(values)
                out.append("null" if v is None else f"<error: {v['@error']}>" if isinstance(v, dict) else v)
            else:
                out.append(part)
        self.hit_total += 1
        self._add_line("".join(out))

    def _add_line(self, line: str) -> None:
        self._lines.append(line)
        if self.echo is not None:
            self.echo(line)
        self._changed.set()
        self._changed = trio.Event()

    async def _consume(self, hit: Hit) -> None:
        from .access import render_in_frame

        self.hit_total += 1
        try:
            try:
                line = await render_in_frame(hit.frame, self.template, allow_invoke=self.allow_invoke)
            except Exception as e:  # the line says what failed, as a production logpoint does
                line = f"{self.template} [error: {e}]"
        finally:
            await hit.resume()
        self._add_line(line)

    async def lines(self) -> list[str]:
        """Every line printed so far, oldest first (and ``dropped`` counted again: lines the VM
        took but had to drop are missing here)."""
        await self._count_if_captured()
        return list(self._lines)

    async def wait_lines(self, count: int, timeout: float | None = None) -> list[str]:
        """Wait until ``count`` lines were printed; ``Timeout`` after ``timeout`` seconds.  Where the
        VM drops lines (``dropped``), a ``RequestWarning`` says so as the wait finds out (it asks
        every ``DROPS_POLL`` seconds), and a wait the lines left can no longer fill (the VM or the
        logpoint ended) raises ``CapturesDropped``; one that ends without drops, ``VMDisconnected``
        (or ``RequestError``)."""
        try:
            with trio.fail_after(math.inf if timeout is None else timeout):
                while len(self._lines) < count:
                    if self.vm.router.dead.is_set() or self.error is not None or self.cleared:
                        await self._count_if_captured()
                        if len(self._lines) >= count:
                            break
                        raise self._ended(count)
                    with trio.move_on_after(DROPS_POLL if self._capture_parts else math.inf):
                        await self._changed.wait()
                        continue
                    await self._count_if_captured()
        except trio.TooSlowError:
            drops = f"; {self._drops()}" if self.dropped else ""
            raise Timeout(f"{self} printed {len(self._lines)} of {count} lines within {timeout}s{drops}") from None
        return list(self._lines)

    async def _count_if_captured(self) -> None:
        if self._capture_parts and not self.vm.router.dead.is_set() and not self.cleared:
            await self.count_dropped()

    def _ended(self, count: int) -> Exception:
        what = f"printed {len(self._lines)} of {count} lines"
        if self.dropped:
            return CapturesDropped(self, f"{what}, and {self._drops()}", self.hit_total, self.dropped)
        if self.error is not None:
            return self._error_type(self, f"{what}: {self.error}", self.hit_total)
        if self.cleared:
            return RequestError(self, f"{what}: it was cleared", self.hit_total)
        return VMDisconnected(f"the VM is gone: {self} {what}")
