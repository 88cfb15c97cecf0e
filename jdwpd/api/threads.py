"""Threads and stack frames.

    for t in await vm.threads():
        print(t.name, await t.status())
    frames = await hit.frames()              # the held thread's stack, top first
    print(frames[0].location, await frames[0].locals())
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from protocol.constants import ErrorCode, SuspendStatus, Tag, ThreadStatus
from protocol.wire import Value as WireValue

from .errors import InvalidStateError, JdwpError
from .types import Location, Variable

if TYPE_CHECKING:
    from .debuggee import Debuggee

__all__ = ["Thread", "Frame"]


@attrs.frozen(eq=False)
class Thread:
    """A thread of the VM (equal when the VM's thread ID is).  ``name`` is read when first met."""

    vm: Debuggee = attrs.field(repr=False)
    id: int
    name: str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Thread) and other.id == self.id and other.vm is self.vm

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"<Thread {self.name!r}#{self.id}>"

    async def status(self) -> str:
        """``running``, ``sleeping``, ``monitor``, ``wait`` or ``zombie``, plus `` (suspended)`` when held."""
        r = await self.vm.conn.command("ThreadReference", "Status", thread=self.id)
        text = ThreadStatus(r.thread_status).name.lower()
        return text + (" (suspended)" if r.suspend_status & SuspendStatus.SUSPEND_STATUS_SUSPENDED else "")

    async def is_suspended(self) -> bool:
        r = await self.vm.conn.command("ThreadReference", "Status", thread=self.id)
        return bool(r.suspend_status & SuspendStatus.SUSPEND_STATUS_SUSPENDED)

    async def frames(self, start: int = 0, count: int = -1) -> list[Frame]:
        """The stack, top first (the thread must be suspended)."""
        try:
            r = await self.vm.conn.command("ThreadReference", "Frames", thread=self.id, start_frame=start,
                                           length=count)
        except JdwpError as e:
            if e.code == ErrorCode.INVALID_LENGTH and count >= 0:  # fewer frames than asked for
                return await self.frames(start, -1)
            raise
        out = []
        for depth, f in enumerate(r.frames, start):
            out.append(Frame(self.vm, self, f.frame_id, await self.vm.types.location_from_wire(f.location), depth))
        return out

    async def frame_count(self) -> int:
        return (await self.vm.conn.command("ThreadReference", "FrameCount", thread=self.id)).frame_count

    async def suspend(self) -> None:
        await self.vm.conn.command("ThreadReference", "Suspend", thread=self.id)

    async def resume(self) -> None:
        await self.vm.conn.command("ThreadReference", "Resume", thread=self.id)

    async def force_return(self, value: Any = None) -> None:
        """Make the top frame's method return ``value`` at once, when the thread next runs (JDI's
        ``forceEarlyReturn``; None for a void method).  ``JdwpError`` as the server answers: the
        thread runs (THREAD_NOT_SUSPENDED), a native top frame (OPAQUE_FRAME), a value of another
        type (TYPE_MISMATCH), a VM that cannot (NOT_IMPLEMENTED)."""
        top = (await self.frames(0, 1))[0]
        signature = top.location.method.return_signature
        if signature == "V":
            if value is not None:
                raise TypeError(f"{top.location.method} returns void: force_return() takes no value")
            wire = WireValue(Tag.VOID, 0)
        else:
            wire = await self.vm.values.to_wire(value, signature)
        await self.vm.conn.command("ThreadReference", "ForceEarlyReturn", thread=self.id,
                                   value={"tag": wire.tag, "value": wire.value})


def _id_cell(frame_id: int | list[int]) -> list[int]:
    # A frozen frame whose ID an invoke may make stale keeps it in a cell it can refill (Frame._command).
    return frame_id if isinstance(frame_id, list) else [frame_id]


@attrs.frozen(eq=False)
class Frame:
    """A frame of a suspended thread: valid until that thread is resumed."""

    vm: Debuggee = attrs.field(repr=False)
    thread: Thread
    _id: list[int] = attrs.field(repr=False, converter=_id_cell)
    location: Location
    depth: int

    @property
    def id(self) -> int:
        return self._id[0]

    async def _command(self, set_name: str, cmd_name: str, **kw: Any) -> Any:
        """A StackFrame command; a frame ID made stale by an invoke (which, as a resume, moves the
        thread's frame generation) is taken again at the same depth, once."""
        try:
            return await self.vm.conn.command(set_name, cmd_name, thread=self.thread.id, frame=self.id, **kw)
        except JdwpError as e:
            if e.code != ErrorCode.INVALID_FRAMEID:
                raise
            r = await self.vm.conn.command("ThreadReference", "Frames", thread=self.thread.id,
                                           start_frame=self.depth, length=1)
            if not r.frames or await self.vm.types.location_from_wire(r.frames[0].location) != self.location:
                raise
            self._id[0] = r.frames[0].frame_id
            return await self.vm.conn.command(set_name, cmd_name, thread=self.thread.id, frame=self.id, **kw)

    def __repr__(self) -> str:
        return f"<Frame #{self.depth} {self.location}>"

    async def variables(self) -> list[Variable]:
        """The variables visible at the frame's location (arguments first, then locals in slot order)."""
        table = await self.location.method.variables()
        # ``this`` is in the table of an instance method, but is not a variable: see ``this()``.
        visible = [v for v in table if v.visible_at(self.location.index) and v.name != "this"]
        # Arguments are visible from index 0; a local's range starts after its assignment.
        return sorted(visible, key=lambda v: (not v.is_argument, v.slot))

    async def raw_locals(self) -> dict[str, Any]:
        """Visible variables as JDWP values (no strings fetched, no types asked)."""
        variables = await self.variables()
        if not variables:
            return {}
        try:
            r = await self._command("StackFrame", "GetValues",
                                    slots=[(v.slot, ord(v.signature[0])) for v in variables])
        except JdwpError as e:
            if e.code in (ErrorCode.INVALID_FRAMEID, ErrorCode.THREAD_NOT_SUSPENDED):
                raise InvalidStateError(f"frame {self.depth} of {self.thread.name} is gone: {e}") from None
            raise
        return {v.name: val.slot_value for v, val in zip(variables, r.values, strict=True)}

    async def locals(self) -> dict[str, Any]:
        """Visible arguments and local variables by name, values converted (``{'order': <shop.Order#12>}``).

        Needs the class compiled with ``-g`` (else: empty)."""
        raw = await self.raw_locals()
        return {name: await self.vm.values.from_wire(v, self.thread) for name, v in raw.items()}

    async def get(self, name: str) -> Any:
        """One local variable's value."""
        raw = await self.raw_locals()
        if name not in raw:
            raise KeyError(f"no variable {name!r} visible at {self.location}; visible: {sorted(raw)}")
        return await self.vm.values.from_wire(raw[name], self.thread)

    async def set(self, name: str, value: Any) -> None:
        """Set local variable ``name`` to ``value`` (a Python value converted to the variable's
        type, an ``ObjectRef``, or None), as a debugger's "set value" does; the thread sees it
        when it goes on.  ``KeyError`` for a name not visible here; ``TypeError`` for a value that
        cannot be the variable's type; ``JdwpError`` as the server answers (TYPE_MISMATCH ...)."""
        var = next((v for v in await self.variables() if v.name == name), None)
        if var is None:
            raise KeyError(f"no variable {name!r} visible at {self.location}; visible: "
                           f"{sorted(v.name for v in await self.variables())}")
        wire = await self.vm.values.to_wire(value, var.signature)
        await self._command("StackFrame", "SetValues", slot_values=[(var.slot, {"tag": wire.tag, "value": wire.value})])

    async def raw_this(self) -> WireValue | None:
        """``this`` as a JDWP value (no type asked), None in a static or native method."""
        r = await self._command("StackFrame", "ThisObject")
        if not r.object_this.object_id:
            return None
        return WireValue(r.object_this.tag, r.object_this.object_id)

    async def this(self) -> Any:
        """``this`` (an ``ObjectRef``), None in a static or native method."""
        raw = await self.raw_this()
        return None if raw is None else await self.vm.values.from_wire(raw, self.thread)

    async def evaluate(self, expression: str, *, allow_invoke: bool = True, timeout: float | None = 30.0) -> Any:
        """A Java expression's value in this frame (``"order.items.size() * 2"``), converted.

        Method calls run in the VM single-threaded (``allow_invoke=False`` refuses them).
        Raises ``jdwpd.ExpressionError`` for a syntax or type error (with its column)."""
        from .access import evaluate_in_frame

        return await evaluate_in_frame(self, expression, allow_invoke=allow_invoke, timeout=timeout)
