"""The two ends of the remote link's byte path: whole agent-link frames, relayed.

Far side (`FarRelay`): the agent's connection on one hand, the near side's TLS stream on the other.
It forwards frames both ways unchanged and, at a stop that suspended every thread, holds the agent's
frames while it reads next to the agent what the near side's daemon will ask next
(jdwpd/remote/prefetch.py), then sends that as one STOP_BUNDLE before the held frames
(protocol/remote.py).  Its own requests carry ids with FAR_ID_BIT; their replies stay here.

Near side (`NearRelay`): the daemon's end of a socket pair on one hand (the daemon's link code wants a
socket, and stays as it is), the TLS stream to the far side on the other.  A request whose answer
the current bundle holds is answered here; everything else crosses.  It counts what crosses
(``stats``), for the tests and the bench that count round trips per debugger step.

Frames are relayed whole, so that the far side's own requests never fall inside one of the near
side's.  Each side writes a direction from one task at a time (a lock where two tasks share it).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable

import attrs
import trio

from jdwpd.daemon.fast.stop_ahead import StopAnswers
from protocol import link as L
from protocol import remote as R

log = logging.getLogger(__name__)

_EVENT = L.BY_NAME["EVENT"].kind
_NOTICE = L.BY_NAME["NOTICE"].kind
_WELCOME = L.BY_NAME["WELCOME"].kind
_CLASS_UNLOADED = L.BY_NAME["CLASS_UNLOADED"].kind
_SUSPEND_ALL = 2
CHUNK = 256 * 1024


def _raw(f: L.Frame) -> bytes:
    return L.frame(f.id, f.kind, f.status, f.body)


# ---------------------------------------------------------------- far side

class FarRelay:
    """One near side's session with the agent, until either end goes."""

    def __init__(self, agent: trio.abc.Stream, near: trio.abc.Stream, *, prefetch: bool = True) -> None:
        self.agent = agent
        self.near = near
        self.prefetch = prefetch
        self._agent_lock = trio.Lock()
        self._near_lock = trio.Lock()
        self.near_sent = 0  # the near side's requests written to the agent so far
        self.changed_at = -1  # the index among them of the last that may change state
        self.welcomed = False
        self._held: list[bytes] | None = None  # the agent's frames held while a stop is read
        self._waiting: dict[int, tuple[trio.Event, list[L.Frame]]] = {}
        self._next_id = 1
        self.ended_by_agent = False
        from .prefetch import FarFacts

        self.facts = FarFacts()  # class facts read once per session, sent to the near side once

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery

            async def one(fn: Callable[[], Awaitable[None]]) -> None:
                try:
                    await fn()
                except (trio.BrokenResourceError, trio.ClosedResourceError, L.LinkError) as e:
                    log.debug("remote relay: %r", e)
                nursery.cancel_scope.cancel()

            nursery.start_soon(one, self._near_to_agent)
            nursery.start_soon(one, self._agent_to_near)

    async def _near_to_agent(self) -> None:
        conn = L.LinkConnection()
        while True:
            data = await self.near.receive_some(CHUNK)
            if not data:
                return
            conn.receive_data(data)
            out = []
            for f in conn.frames():
                if f.kind == _WELCOME:
                    self.welcomed = True
                if f.id:
                    if f.id & R.FAR_ID_BIT:
                        raise L.LinkError("the near side used a far-side request id")
                    if R.invalidates(f.kind):
                        self.changed_at = self.near_sent
                    self.near_sent += 1
                out.append(_raw(f))
            if out:
                async with self._agent_lock:
                    await self.agent.send_all(b"".join(out))

    async def _agent_to_near(self) -> None:
        conn = L.LinkConnection()
        while True:
            data = await self.agent.receive_some(CHUNK)
            if not data:
                self.ended_by_agent = True
                return
            conn.receive_data(data)
            out: list[bytes] = []
            stop = None
            for f in conn.frames():
                if f.id & R.FAR_ID_BIT:
                    self._answered(f)
                    continue
                raw = _raw(f)
                if self._held is not None:
                    self._held.append(raw)
                elif f.kind == _EVENT and self.prefetch and self.welcomed and (event := _stop_event(f)):
                    # what came before the stop goes now; the stop and what follows wait for its bundle
                    self._held = [raw]
                    stop = event
                else:
                    out.append(raw)
            if out:
                await self._to_near(b"".join(out))
            if stop is not None:
                self._nursery.start_soon(self._read_stop, stop)

    async def _to_near(self, data: bytes) -> None:
        async with self._near_lock:
            await self.near.send_all(data)

    def _answered(self, f: L.Frame) -> None:
        waiting = self._waiting.pop(f.id, None)
        if waiting is not None:
            waiting[1].append(f)
            waiting[0].set()

    async def ask(self, requests: list[tuple[str, dict]]) -> list[tuple[int, bytes, int, bytes]]:
        """Several requests to the agent in one write: (kind, request body, status, reply body) each."""
        frames, waits = [], []
        for name, fields in requests:
            spec = L.BY_NAME[name]
            body = L.encode_body(spec.request, fields)
            msg_id = R.FAR_ID_BIT | self._next_id
            self._next_id = (self._next_id + 1) & 0x7FFF_FFFF or 1
            slot: tuple[trio.Event, list[L.Frame]] = (trio.Event(), [])
            self._waiting[msg_id] = slot
            frames.append(L.frame(msg_id, spec.kind, 0, body))
            waits.append((spec.kind, body, slot))
        async with self._agent_lock:
            await self.agent.send_all(b"".join(frames))
        out = []
        for kind, body, (event, got) in waits:
            await event.wait()
            reply = got[0]
            out.append((kind, body, reply.status, reply.body))
        return out

    async def _read_stop(self, event: dict) -> None:
        from .prefetch import read_stop

        after, changed = self.near_sent, self.changed_at
        entries: list[tuple[int, bytes, int, bytes]] = []
        try:
            with trio.move_on_after(2.0):  # a stop is never held longer for what is only a speed-up
                entries = await read_stop(self, event)
        except Exception as e:  # noqa: BLE001 - the bundle is an optimisation: the stop goes on without it
            log.warning("remote: reading a stop failed: %r", e)
            entries = []
        frames = []
        # a change that reached the agent meanwhile makes what was read there stale: send none
        if entries and self.changed_at == changed:
            frames.append(R.encode_bundle(after, entries))
        held, self._held = self._held or [], None
        await self._to_near(b"".join(frames + held))


def _stop_event(f: L.Frame) -> dict | None:
    """The decoded EVENT if it is a stop of every thread at a place in the code, else None."""
    if len(f.body) < 9 or f.body[8] != _SUSPEND_ALL:
        return None
    event = L.decode_event(f.body)
    if not event["thread"] or not any("location" in (hit["data"] or {}) for hit in event["hits"]):
        return None
    return event


# ---------------------------------------------------------------- near side

@attrs.define
class NearStats:
    """What crossed: the daemon's requests sent to the far side (in how many writes), those answered
    here from a bundle, and the bundles received."""

    sent: int = 0
    writes: int = 0
    answered: int = 0
    bundles: int = 0
    kinds: dict[str, int] = attrs.Factory(dict)  # sent, by message name

    def snapshot(self) -> dict:
        return attrs.asdict(self)


class NearRelay:
    """The daemon's link (a socket pair's end) on one side, the far side's TLS stream on the other."""

    def __init__(self, daemon: trio.abc.Stream, far: trio.abc.Stream, *, use_bundles: bool = True,
                 stats: NearStats | None = None) -> None:
        self.daemon = daemon
        self.far = far
        self.use_bundles = use_bundles
        self.stats = stats or NearStats()
        self._daemon_lock = trio.Lock()
        self.sent = 0  # requests sent to the far side
        self.changed_at = -1  # the index among them of the last that may change state
        self._cache = StopAnswers()
        self._pending: StopAnswers | None = None
        self.vm_died = False
        self.error: BaseException | None = None  # what ended the link, if it broke
        self.first_frame = trio.Event()  # the far side has spoken: our secret was taken
        trace = os.environ.get("JDWPD_REMOTE_TRACE")  # a file: every request's fate, to see what crosses
        self._trace = open(trace, "a", buffering=1) if trace else None  # noqa: SIM115

    def _note(self, what: str, f: L.Frame) -> None:
        if self._trace is not None:
            spec = L.MESSAGES.get(f.kind)
            try:
                fields = L.decode_request(f.kind, f.body) if spec else f.body.hex()
            except L.LinkError:
                fields = f.body.hex()
            self._trace.write(f"{what} {spec.name if spec else f.kind} {fields}\n")

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            async def one(fn: Callable[[], Awaitable[None]]) -> None:
                try:
                    await fn()
                except (trio.BrokenResourceError, trio.ClosedResourceError, L.LinkError, OSError) as e:
                    self.error = self.error or e  # the first is the cause; the other end then breaks too
                finally:
                    nursery.cancel_scope.cancel()

            nursery.start_soon(one, self._daemon_to_far)
            nursery.start_soon(one, self._far_to_daemon)

    async def _to_daemon(self, data: bytes) -> None:
        async with self._daemon_lock:
            await self.daemon.send_all(data)

    async def _daemon_to_far(self) -> None:
        conn = L.LinkConnection()
        while True:
            data = await self.daemon.receive_some(CHUNK)
            if not data:
                return
            conn.receive_data(data)
            out, answers = [], []
            for f in conn.frames():
                if f.id:
                    hit = self._cache.answer(f.kind, f.body) if self._cache else None
                    if hit is not None:
                        answers.append(L.frame(f.id, f.kind, hit[0], hit[1]))
                        self.stats.answered += 1
                        self._note("answered", f)
                        continue
                    if R.invalidates(f.kind):
                        self.changed_at = self.sent
                        self._cache, self._pending = StopAnswers(), None
                    self.sent += 1
                    self.stats.sent += 1
                    name = L.MESSAGES[f.kind].name if f.kind in L.MESSAGES else str(f.kind)
                    self.stats.kinds[name] = self.stats.kinds.get(name, 0) + 1
                    self._note("sent", f)
                out.append(_raw(f))
            if answers:
                await self._to_daemon(b"".join(answers))
            if out:
                self.stats.writes += 1
                if self._trace is not None:
                    self._trace.write("-- write\n")
                await self.far.send_all(b"".join(out))

    async def _far_to_daemon(self) -> None:
        conn = L.LinkConnection()
        while True:
            data = await self.far.receive_some(CHUNK)
            if not data:
                return
            self.first_frame.set()
            conn.receive_data(data)
            out = []
            for f in conn.frames():
                if f.kind == R.STOP_BUNDLE:
                    self._bundle(f.body)
                    continue
                if f.kind == _EVENT and self._trace is not None:
                    self._trace.write(f"== event {L.decode_event(f.body)}\n")
                if f.kind == _EVENT:
                    # the stop's bundle comes right before its event; any other event ends what it knew
                    self._cache, self._pending = self._pending or StopAnswers(), None
                elif f.kind == _CLASS_UNLOADED:
                    self._cache = StopAnswers()
                elif f.kind == _NOTICE and f.body[:4] == L.NOTICE_VM_DEATH.to_bytes(4, "big"):
                    self.vm_died = True
                out.append(_raw(f))
            if out:
                await self._to_daemon(b"".join(out))

    def _bundle(self, body: bytes) -> None:
        self.stats.bundles += 1
        after, entries = R.decode_bundle(body)
        if not self.use_bundles or self.changed_at >= after:
            self._pending = None  # read before a change of ours reached the agent: stale
            return
        self._pending = StopAnswers(entries)
