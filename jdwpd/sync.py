"""The scripting API, blocking: the same names as ``jdwpd``'s async API, for scripts, notebooks
and the REPL.  A private trio loop runs in a thread; every call waits for its answer.

    import jdwpd.sync

    with jdwpd.sync.launch(["java", "-cp", "classes", "shop.Main"]) as vm:
        bp = vm.breakpoint("Checkout.java:26")
        vm.resume()
        hit = bp.wait(timeout=10)
        print(hit.frame.locals())
        hit.resume()

Callbacks are plain functions (``bp.on_hit(fn)``): each runs in a worker thread and may call
the blocking API itself.  Objects are proxies of the async API's objects: every coroutine
method becomes a blocking one (``obj.get("id")``, ``arr[0:10]``), async iterators become plain
ones (``for hit in bp.hits(limit=3, timeout=10)``), and plain attributes pass through.
"""

from __future__ import annotations

import contextlib
import inspect
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import trio

from jdwpd import api

__all__ = ["launch", "attach", "attach_pid", "Proxy"]

_PLAIN = (str, bytes, int, float, bool, type(None))


class _Loop:
    """A trio loop in a daemon thread; ``run(afn, *args)`` calls into it and blocks."""

    def __init__(self) -> None:
        ready: queue.Queue = queue.Queue()
        self._stop: trio.Event | None = None
        self.token: trio.lowlevel.TrioToken | None = None

        async def host() -> None:
            self._stop = trio.Event()
            self.token = trio.lowlevel.current_trio_token()
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                ready.put(None)
                await self._stop.wait()
                nursery.cancel_scope.cancel()

        self.thread = threading.Thread(target=trio.run, args=(host,), name="jdwpd.sync", daemon=True)
        self.thread.start()
        ready.get(timeout=30)

    def run(self, afn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        if threading.current_thread() is self.thread:
            raise RuntimeError("jdwpd.sync called from its own loop: use the async API in async code")
        return trio.from_thread.run(lambda: afn(*args, **kw), trio_token=self.token)

    def close(self) -> None:
        if self._stop is not None:
            trio.from_thread.run_sync(self._stop.set, trio_token=self.token)
        self.thread.join(timeout=30)


def _wrap(loop: _Loop, value: Any) -> Any:
    if isinstance(value, _PLAIN) or isinstance(value, Proxy):
        return value
    if isinstance(value, list):
        return [_wrap(loop, v) for v in value]
    if isinstance(value, tuple):
        return tuple(_wrap(loop, v) for v in value)
    if isinstance(value, dict):
        return {k: _wrap(loop, v) for k, v in value.items()}
    if inspect.isasyncgen(value):
        return _iterate(loop, value)
    if type(value).__module__.startswith("jdwpd.api"):
        return Proxy(loop, value)
    return value


def _iterate(loop: _Loop, agen: Any) -> Iterator[Any]:
    try:
        while True:
            try:
                item = loop.run(agen.__anext__)
            except StopAsyncIteration:
                return
            yield _wrap(loop, item)
    finally:
        with contextlib.suppress(Exception):
            loop.run(agen.aclose)


class Proxy:
    """A blocking view of an object of the async API (see the module doc)."""

    __slots__ = ("_loop", "_target")

    def __init__(self, loop: _Loop, target: Any) -> None:
        object.__setattr__(self, "_loop", loop)
        object.__setattr__(self, "_target", target)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if name == "on_hit":
            return self._on_hit
        if inspect.iscoroutinefunction(attr) or inspect.isasyncgenfunction(attr):
            def call(*args: Any, **kw: Any) -> Any:
                args = tuple(_unwrap(a) for a in args)
                if inspect.isasyncgenfunction(attr):
                    return _iterate(self._loop, attr(*args, **kw))
                return _wrap(self._loop, self._loop.run(attr, *args, **kw))
            call.__doc__ = attr.__doc__
            return call
        if callable(attr) and not isinstance(attr, type):
            return lambda *a, **k: _wrap(self._loop, attr(*a, **k))
        return _wrap(self._loop, attr)

    def _on_hit(self, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        loop = self._loop

        async def handler(hit: Any) -> None:
            await trio.to_thread.run_sync(fn, _wrap(loop, hit))

        self._target.on_hit(handler)
        return fn

    def __getitem__(self, key: Any) -> Any:
        item = self._target[key]
        if inspect.isawaitable(item):
            async def get() -> Any:
                return await item
            return _wrap(self._loop, self._loop.run(get))
        return _wrap(self._loop, item)

    def __len__(self) -> int:
        return len(self._target)

    def __eq__(self, other: object) -> bool:
        return self._target == _unwrap(other)

    def __hash__(self) -> int:
        return hash(self._target)

    def __repr__(self) -> str:
        return repr(self._target)

    def __str__(self) -> str:
        return str(self._target)


def _unwrap(value: Any) -> Any:
    return value._target if isinstance(value, Proxy) else value


@contextlib.contextmanager
def _open(cm_factory: Callable[[], Any]) -> Iterator[Proxy]:
    loop = _Loop()
    entered: queue.Queue = queue.Queue()
    leave = threading.Event()
    done = trio.Event()

    async def hold() -> None:
        try:
            async with cm_factory() as vm:
                entered.put(("ok", vm))
                await trio.to_thread.run_sync(leave.wait, abandon_on_cancel=True)
        except BaseException as e:  # noqa: B036 - handed to the caller's thread
            entered.put(("error", e))
        finally:
            done.set()

    try:
        loop.run(lambda: _start(loop, hold))
        kind, value = entered.get()
        if kind == "error":
            raise value
        try:
            yield Proxy(loop, value)
        finally:
            leave.set()
            loop.run(done.wait)
            while not entered.empty():  # an error while leaving the block
                kind, value = entered.get()
                if kind == "error":
                    raise value
    finally:
        loop.close()


async def _start(loop: _Loop, fn: Callable[[], Any]) -> None:
    loop.nursery.start_soon(fn)


def launch(argv: Sequence[str], **kw: Any) -> contextlib.AbstractContextManager[Any]:
    """``with jdwpd.sync.launch(argv) as vm:`` — ``jdwpd.launch``, blocking."""
    return _open(lambda: api.launch(argv, **kw))


def attach(address: str, **kw: Any) -> contextlib.AbstractContextManager[Any]:
    """``with jdwpd.sync.attach("HOST:PORT") as vm:`` — ``jdwpd.attach``, blocking."""
    return _open(lambda: api.attach(address, **kw))


def attach_pid(pid: int, **kw: Any) -> contextlib.AbstractContextManager[Any]:
    """``with jdwpd.sync.attach_pid(PID) as vm:`` — ``jdwpd.attach_pid``, blocking."""
    return _open(lambda: api.attach_pid(pid, **kw))


def __getattr__(name: str) -> Any:
    # The API's plain names (Limits, errors, ...) are the same objects here.
    return getattr(api, name)
