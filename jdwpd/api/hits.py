"""What a script gets when the VM stops for it: a Hit, and the Stop that holds the thread.

A composite event holds its thread (or the VM) once, however many of our requests matched in
it; each Hit made from it holds one share, and the thread runs again when the last share is
released (``await hit.resume()``, a step, or the end of an ``on_hit`` handler).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import trio

from protocol.constants import ModKind, StepDepth, StepSize, SuspendPolicy

from .errors import InvalidStateError, Timeout, VMDisconnected
from .threads import Frame, Thread
from .types import Field, Location

if TYPE_CHECKING:
    from .connection import Connection
    from .debuggee import Debuggee

__all__ = ["Stop", "Hit", "ExceptionHit", "WatchHit", "DEFAULT_STEP_EXCLUDES", "EventHandler", "Routing"]

#: Classes a step does not stop in unless told otherwise.
DEFAULT_STEP_EXCLUDES = ("java.*", "jdk.*", "sun.*", "javax.*", "com.sun.*")

#: What takes the events of a request: ``await handler(event, stop)``, one event at a time.
EventHandler = Callable[[Any, "Stop"], Awaitable[None]]


class Routing(Protocol):
    """What stops and steps use of the API's event router (router.EventRouter), named here so that
    this module stays below the router, which makes hits."""

    @property
    def conn(self) -> Connection: ...

    def stop_released(self, stop: Stop) -> None: ...

    async def set_request(self, kind: int, policy: int, modifiers: list[dict], handler: EventHandler) -> int: ...

    async def clear_request(self, kind: int, request_id: int) -> None: ...

    async def make_hit(self, source: Any, event: Any, stop: Stop) -> Hit: ...

    def close_at_death(self, send: trio.MemorySendChannel) -> trio.CancelScope: ...

    def holders_of(self, thread: Thread) -> list[str]: ...


@attrs.define(eq=False)
class Stop:
    """One suspension by one event set: released once per share; the last release resumes."""

    router: Routing = attrs.field(repr=False)
    policy: int
    thread: Thread | None
    shares: int
    resumed: bool = False
    #: What each hit sharing this stop came from (``"breakpoint Checkout.java:42 at ..."``): what a
    #: wait blocked by this stop names.
    holders: list[str] = attrs.field(factory=list)

    @property
    def holds(self) -> bool:
        return self.policy != SuspendPolicy.NONE and not self.resumed

    async def release(self, *, force: bool = False) -> None:
        self.shares -= 1
        if self.resumed or (self.shares > 0 and not force):
            return
        self.resumed = True
        self.router.stop_released(self)
        try:
            if self.policy == SuspendPolicy.ALL:
                await self.router.conn.command("VirtualMachine", "Resume")
            elif self.policy == SuspendPolicy.EVENT_THREAD and self.thread is not None:
                await self.router.conn.command("ThreadReference", "Resume", thread=self.thread.id)
        except VMDisconnected:
            # The resumed program may end at once, and its server close the connection before the
            # reply arrives (a reset can take the reply with it): a VM that is gone holds nothing.
            pass


@attrs.define(eq=False)
class Hit:
    """A stop at a breakpoint (or a step, exception, watchpoint) of one thread.

    The thread stays suspended until ``await hit.resume()`` (policy ``"thread"``; ``"all"``: the
    whole VM); ``hit.frame`` is the top frame, read when the hit arrived.

        async for hit in bp.hits(limit=3, timeout=10):
            print(hit.location, await hit.frame.locals())
            print(await hit.evaluate("order.items.size() * 2"))
            await hit.resume()
    """

    vm: Debuggee = attrs.field(repr=False)
    source: Any = attrs.field(repr=False)  # the Breakpoint (or other request) that caught it
    thread: Thread
    location: Location
    _frame: Frame | None = attrs.field(repr=False)
    stop: Stop = attrs.field(repr=False)
    _released: bool = attrs.field(default=False, repr=False)
    #: What the method returned, for a hit of ``vm.method_exits`` (else None).
    return_value: Any = attrs.field(default=None, repr=False)
    #: Why the breakpoint stopped although its condition did not hold: the condition threw here
    #: (``"ArithmeticException: / by zero"``), as debuggers stop where they cannot evaluate one.
    condition_error: str | None = attrs.field(default=None, repr=False)
    #: The stop a step from this hit ended at (``step_over`` ...), else None.
    stepped_to: Hit | None = attrs.field(default=None, repr=False)

    @property
    def frame(self) -> Frame:
        """The top frame at the hit (valid until the hit is resumed)."""
        if self._frame is None:
            raise InvalidStateError(f"the hit at {self.location} did not suspend its thread (suspend='none'): "
                                    f"it has no frames")
        if self.resumed:
            raise InvalidStateError(f"the hit at {self.location} was resumed: its frames are gone")
        return self._frame

    @property
    def resumed(self) -> bool:
        return self._released or self.stop.resumed

    async def frames(self, count: int = -1) -> list[Frame]:
        """The held thread's stack, top first (``count`` frames, all by default)."""
        self.frame  # noqa: B018 - says why when there are no frames
        return await self.thread.frames(0, count)

    async def locals(self) -> dict[str, Any]:
        """The top frame's visible variables (``hit.frame.locals()``)."""
        return await self.frame.locals()

    async def evaluate(self, expression: str, *, allow_invoke: bool = True, timeout: float | None = 30.0) -> Any:
        """A Java expression's value in the top frame (see ``Frame.evaluate``)."""
        return await self.frame.evaluate(expression, allow_invoke=allow_invoke, timeout=timeout)

    async def snapshot(self, limits: Any = None, watch: tuple[str, ...] | list[str] = ()) -> Any:
        """Capture this stop as a ``Snapshot`` (stack, locals, this, watch expressions) under ``limits``."""
        from .snapshot import capture

        return await capture(self, limits, list(watch))

    def last_stop(self) -> Hit:
        """This hit, or where the steps taken from it (and from those) ended."""
        hit = self
        while hit.stepped_to is not None:
            hit = hit.stepped_to
        return hit

    async def resume(self) -> None:
        """Let the thread (policy ``"all"``: the VM) run on.  Idempotent."""
        if self._released:
            return
        self._released = True
        await self.stop.release()

    async def step_over(self, **kw: Any) -> Hit:
        """Run to the next line of this method (or its caller); returns the stop there."""
        return await self._step(StepDepth.OVER, **kw)

    async def step_into(self, **kw: Any) -> Hit:
        """Run to the next line, entering calls (not into ``exclude``d classes)."""
        return await self._step(StepDepth.INTO, **kw)

    async def step_out(self, **kw: Any) -> Hit:
        """Run until the current method returns; stops at the caller's next line."""
        return await self._step(StepDepth.OUT, **kw)

    async def _step(self, depth: int, *, timeout: float | None = 30.0,
                    exclude: tuple[str, ...] | list[str] = DEFAULT_STEP_EXCLUDES) -> Hit:
        if self.resumed:
            raise InvalidStateError(f"the hit at {self.location} was resumed already: step from a held thread")
        policy = SuspendPolicy.ALL if self.stop.policy == SuspendPolicy.ALL else SuspendPolicy.EVENT_THREAD
        mods: list[dict] = [{"mod_kind": ModKind.STEP, "thread": self.thread.id, "size": StepSize.LINE,
                             "depth": depth}]
        mods += [{"mod_kind": ModKind.CLASS_EXCLUDE, "class_pattern": p} for p in exclude]
        mods.append({"mod_kind": ModKind.COUNT, "count": 1})
        send, recv = trio.open_memory_channel[Hit](1)
        router = self.stop.router

        async def on_step(event: Any, stop: Stop) -> None:
            send.send_nowait(await router.make_hit(step, event, stop))

        step = _StepSource(self.vm)
        request_id = await router.set_request(1, policy, mods, on_step)  # 1: SINGLE_STEP
        watch = router.close_at_death(send)  # a VM that ends during the step ends the wait
        try:
            self._released = True
            await self.stop.release(force=True)
            try:
                with trio.fail_after(timeout if timeout is not None else float("inf")):
                    hit = await recv.receive()
            except trio.TooSlowError:
                held = router.holders_of(self.thread)
                why = f": the thread is held by {'; '.join(held)} (resume that hit)" if held else ""
                raise Timeout(f"the step from {self.location} did not end within {timeout}s{why}") from None
            except trio.EndOfChannel:
                raise VMDisconnected(f"the VM ended during the step from {self.location}") from None
            self.stepped_to = hit
            return hit
        finally:
            watch.cancel()
            with trio.CancelScope(shield=True):
                await router.clear_request(1, request_id)


@attrs.define(eq=False)
class _StepSource:
    vm: Debuggee

    def __str__(self) -> str:
        return "a step"


@attrs.define(eq=False)
class ExceptionHit(Hit):
    """An exception thrown (``thrown``: the exception object; ``catch_location``: None if uncaught)."""

    thrown: Any = None
    catch_location: Location | None = None


@attrs.define(eq=False)
class WatchHit(Hit):
    """A field read or written: ``field``, ``object`` (None for a static), ``value`` (the value
    before), ``new_value`` (for a modification)."""

    field: Field | None = None
    object: Any = None
    value: Any = None
    new_value: Any = None
    is_modification: bool = False
