"""The daemon's side of the agent link: handshake, request/reply correlation, the event stream.

Nobody has to run a reader task for an :class:`AgentLink`: whoever needs input (a request waiting
for its reply, or a consumer of :attr:`AgentLink.events`) reads frames, routing replies to their
waiters and events to the event queue; one of them waits on the socket, the others wait to be woken.  So
``link = await accept_agent(stream, secret)`` is usable at once, and a cancelled waiter loses
nothing: bytes already read stay in the framer for the next reader.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from functools import partial
from typing import Any

import trio

from jdwpd.errors import AgentError, AgentLinkClosed
from protocol import link as L

from ..fast import inline
from ..fast.stop_ahead import Entry, StopAnswers, invalidates, source_key, stop_reads
from ..fast.writer import Writer, Wrote

log = logging.getLogger(__name__)

_EVENT = L.BY_NAME["EVENT"].kind
_NOTICE = L.BY_NAME["NOTICE"].kind
_CLASS_UNLOADED = L.BY_NAME["CLASS_UNLOADED"].kind
_STOP_READS = L.BY_NAME["STOP_READS"].kind
_THREAD_FRAMES = L.BY_NAME["THREAD_FRAMES"].kind
HANDSHAKE_TIMEOUT = 10.0
_WHOLE_STACK = (0).to_bytes(4, "big") + (-1).to_bytes(4, "big", signed=True)  # THREAD_FRAMES 0, -1


class HandshakeError(Exception):
    """The peer is not an agent holding our secret (or spoke nonsense)."""


class _Slot:
    __slots__ = ("kind", "name", "wake", "frame", "then")

    def __init__(self, kind: int, name: str) -> None:
        self.kind = kind
        self.name = name
        self.wake = trio.Event()
        self.frame: L.Frame | None = None
        self.then: _Then | None = None  # a coroutine parked without a task, to go on with


def _replied(slot: _Slot) -> bool:
    return slot.frame is not None


class _AheadSlot(_Slot):
    """A read-ahead request's slot: its reply joins the stop's answers if nothing changed meanwhile."""

    __slots__ = ("key", "epoch")

    def __init__(self, kind: int, name: str, key: tuple[int, bytes], epoch: int) -> None:
        super().__init__(kind, name)
        self.key = key
        self.epoch = epoch


class _Then:
    """Go on with a parked coroutine once every reply of its write is in."""

    __slots__ = ("slots", "callback")

    def __init__(self, slots: tuple[_Slot, ...], callback: Callable[[], None]) -> None:
        self.slots = slots
        self.callback = callback

    def ready(self) -> bool:
        return all(slot.frame is not None for slot in self.slots)


def _reply_fields(slot: _Slot, kind: int, name: str) -> dict[str, Any]:
    frame = slot.frame
    assert frame is not None
    if frame.status != 0:
        raise AgentError(frame.status, name)
    if frame.kind != kind:
        raise AgentError(int(L.LinkStatus.BAD_MESSAGE), name)
    return L.decode_reply(frame.kind, frame.body)


class AgentEvents:
    """Agent-initiated messages in arrival order: EVENT bodies, NOTICE and CLASS_UNLOADED dicts.

    Behaves like a trio MemoryReceiveChannel for receiving (``receive``, ``async for``); iteration ends
    when the link closes.
    """

    def __init__(self, link: AgentLink) -> None:
        self._link = link

    async def receive(self) -> dict[str, Any]:
        return await self._link._next_event()

    def receive_nowait(self) -> dict[str, Any]:
        if self._link._events:
            return self._link._events.pop(0)
        if self._link._closed:
            raise trio.EndOfChannel
        raise trio.WouldBlock

    def __aiter__(self) -> AgentEvents:
        return self

    async def __anext__(self) -> dict[str, Any]:
        try:
            return await self._link._next_event()
        except (AgentLinkClosed, trio.EndOfChannel):
            raise StopAsyncIteration from None


def _known_result(name: str, hit: tuple[int, bytes]) -> dict[str, Any] | AgentError:
    if hit[0] != 0:
        return AgentError(hit[0], name)
    return L.decode_reply(L.BY_NAME[name].kind, hit[1])


def _ignore(name: str) -> None:
    pass


class AgentLink:
    """One authenticated agent.  ``hello``: the agent's HELLO fields (pid, flags, caps, profile)."""

    def __init__(self, stream: trio.abc.Stream, hello: dict[str, Any], conn: L.LinkConnection | None = None) -> None:
        self.stream = stream
        self._writer = Writer(stream)
        self._io = self._writer.io
        if not self._io.raw:
            raise TypeError("the agent link needs a socket stream")
        self.hello = hello
        self.reads_ahead = True  # the VM may read stops ahead over it (not where the far side does: remote/near.py)
        self.events = AgentEvents(self)
        self._conn = conn or L.LinkConnection()
        self._fd_waiter = False  # a task waits for the socket to be readable
        self._pending: dict[int, _Slot] = {}
        self._refusal_watch: dict[int, Callable[[int], None]] = {}  # posted ids whose refusal matters
        self._events: list[dict[str, Any]] = []
        self._event_waiters: list[trio.Event] = []
        self._next_id = 1
        # Told the name of every message about to go out (the VM's reply memo: jdwpd/daemon/fast/memo.py).
        self.on_message: Callable[[str], None] = _ignore
        # A stop's answers read ahead (jdwpd/daemon/fast/stop_ahead.py): requests answered from them until one
        # that may change state, or an event; _ahead_epoch counts those ends.
        self.ahead = StopAnswers()
        self._ahead_slots: dict[tuple[int, bytes], _AheadSlot] = {}
        self._ahead_sources: dict[tuple, _AheadSlot] = {}  # stacks, frames' locals, objects' fields under way
        self._ahead_epoch = 0
        self._ahead_on = False
        # The id of the last request sent that may change a read (invalidates), and the agent's reads
        # at a stop (STOP_READS) waiting for their EVENT, which comes next.
        self._last_changing_id = 0
        self._stop_reads: bytes | None = None
        self._stop_counts: dict[int, int] = {}  # thread -> its suspend count, as a STOP_READS said
        trace = os.environ.get("JDWPD_LINK_TRACE")  # a file: what the daemon asked, and how (tests count it)
        self._trace = open(trace, "a", buffering=1) if trace else None  # noqa: SIM115
        self._closed = False
        self.close_reason = ""

    @property
    def closed(self) -> bool:
        return self._closed

    def trace_note(self, what: str) -> None:
        """A line in the link's trace (JDWPD_LINK_TRACE) for what the daemon did beside the link."""
        if self._trace is not None:
            self._trace.write(f"{what}\n")

    # -- requests ----------------------------------------------------------------------------
    async def request(self, name: str, **fields: Any) -> dict[str, Any]:
        """Send one request and wait for its reply (decoded fields).

        Raises AgentError(status) for a non-zero status and AgentLinkClosed when the link is gone.
        """
        spec = L.BY_NAME[name]
        if self._closed:
            raise AgentLinkClosed(self.close_reason or "agent link closed")
        if self._ahead_on:
            if spec.thaws or spec.suspends or name == "RELEASE_IDS":
                self.drop_ahead()
            else:
                hit = await self._from_ahead(spec, fields)
                if hit is not None:
                    if self._trace is not None:
                        self._trace.write(f"answered {name}\n")
                    if hit[0] != 0:
                        raise AgentError(hit[0], name)
                    return L.decode_reply(spec.kind, hit[1])
        self.on_message(name)
        if self._trace is not None:
            self._trace.write(f"sent {name}\n-- write\n")
        msg_id = self._new_id()
        if invalidates(spec.kind):
            self._last_changing_id = msg_id
        slot = _Slot(spec.kind, name)
        self._pending[msg_id] = slot
        try:
            await self._send_then_hand_off(L.encode_request(msg_id, name, **fields), (slot,))
            while slot.frame is None:
                await self._pump_until(lambda: slot.frame is not None, slot)
        finally:
            self._pending.pop(msg_id, None)
        return _reply_fields(slot, spec.kind, name)

    async def request_many(self, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any] | AgentError]:
        """Several requests in one write, executed by the agent in this order: one round trip.

        Each result is the reply's fields or the AgentError its status raised; AgentLinkClosed
        when the link is gone.
        """
        if self._closed:
            raise AgentLinkClosed(self.close_reason or "agent link closed")
        known: dict[int, tuple[int, bytes]] = {}
        if self._ahead_on:
            if any(invalidates(L.BY_NAME[name].kind) for name, _ in calls):
                self.drop_ahead()
            else:
                bodies = [(L.BY_NAME[name].kind, L.encode_body(L.BY_NAME[name].request, fields))
                          for name, fields in calls]
                if self._ahead_slots:
                    under_way = {id(ahead): ahead for kind, body in bodies
                                 if (ahead := self._ahead_under_way(kind, body)) is not None}
                    if under_way:
                        await self._wait_ahead(tuple(under_way.values()))
                for i, (kind, body) in enumerate(bodies):
                    hit = self.ahead.answer(kind, body)
                    if hit is not None:
                        known[i] = hit
                if len(known) == len(calls):
                    return [_known_result(calls[i][0], known[i]) for i in range(len(calls))]
        asked = calls
        if known:
            calls = [c for i, c in enumerate(asked) if i not in known]
        sent: list[tuple[int, str, int, _Slot]] = []
        chunks = []
        if self._trace is not None:
            self._trace.write("".join(f"answered {asked[i][0]}\n" for i in known)
                              + "".join(f"sent {name}\n" for name, _ in calls) + "-- write\n")
        try:
            for name, fields in calls:
                self.on_message(name)
                msg_id = self._new_id()
                if invalidates(L.BY_NAME[name].kind):
                    self._last_changing_id = msg_id
                chunks.append(L.encode_request(msg_id, name, **fields))
                slot = _Slot(L.BY_NAME[name].kind, name)
                self._pending[msg_id] = slot
                sent.append((msg_id, name, slot.kind, slot))
            await self._send_then_hand_off(b"".join(chunks), tuple(s for _, _, _, s in sent))
            for _, _, _, slot in sent:
                while slot.frame is None:
                    await self._pump_until(partial(_replied, slot), slot)
        finally:
            for msg_id, _, _, _ in sent:
                self._pending.pop(msg_id, None)
        results: list[dict[str, Any] | AgentError] = []
        for _, name, kind, slot in sent:
            try:
                results.append(_reply_fields(slot, kind, name))
            except AgentError as e:
                results.append(e)
        if known:
            for i in sorted(known):
                results.insert(i, _known_result(asked[i][0], known[i]))
        return results

    def _ahead_under_way(self, kind: int, body: bytes) -> _AheadSlot | None:
        """The read ahead under way whose reply may answer this request, if one is."""
        slot = self._ahead_slots.get((kind, body))
        if slot is None and self._ahead_sources:
            source = source_key(kind, body)
            if source is not None:
                slot = self._ahead_sources.get(source)
        if slot is None or slot.frame is not None or slot.then is not None:
            return None  # (a slot someone already goes on from is left to them)
        return slot

    async def _wait_ahead(self, slots: tuple[_AheadSlot, ...]) -> None:
        await inline.handoff_point(inline.AwaitingReply(lambda callback: self._await_replies(slots, callback)))
        for slot in slots:
            while slot.frame is None:
                await self._pump_until(partial(_replied, slot), slot)

    async def _from_ahead(self, spec: L.MessageSpec, fields: dict[str, Any]) -> tuple[int, bytes] | None:
        """The answer read ahead for this request (waiting for a read-ahead reply under way), or None."""
        body = L.encode_body(spec.request, fields)
        hit = self.ahead.answer(spec.kind, body)
        if hit is None:
            slot = self._ahead_under_way(spec.kind, body)
            if slot is None:
                return None
            await self._wait_ahead((slot,))
            frame = slot.frame
            assert frame is not None  # _wait_ahead returns once it came
            if slot.key == (spec.kind, body):
                hit = (frame.status, frame.body)
            else:
                # from that reply itself: its answer stands for a request made before any change
                try:
                    hit = StopAnswers([(slot.kind, slot.key[1], frame.status, frame.body)]).answer(
                        spec.kind, body)
                except L.LinkError:
                    hit = None
                if hit is None:
                    return None
        return hit

    def ahead_answer(self, name: str, **fields: Any) -> dict[str, Any] | None:
        """The reply read ahead for this request if it is in (decoded; None for none or an error)."""
        if not self._ahead_on:
            return None
        spec = L.BY_NAME[name]
        hit = self.ahead.answer(spec.kind, L.encode_body(spec.request, fields))
        if hit is None or hit[0] != 0:
            return None
        return L.decode_reply(spec.kind, hit[1])

    def ahead_known(self, kind: int, body: bytes) -> tuple[int, bytes] | None:
        """(status, reply body) read ahead for this request if it is in now (nothing waits), else None."""
        if not self._ahead_on:
            return None
        hit = self.ahead.answer(kind, body)
        if hit is not None and self._trace is not None:
            self._trace.write(f"answered {L.MESSAGES[kind].name}\n")
        return hit

    def _file_stop_reads(self, event: dict[str, Any]) -> None:
        """The agent's reads at this event's stop, made the stop's answers if nothing the daemon sent
        that may change them was still to run when the agent read; ``read_at_stop`` says they were."""
        body, self._stop_reads = self._stop_reads, None
        assert body is not None
        try:
            thread, done, count, entries = stop_reads(body)
        except L.LinkError as e:
            log.warning("a STOP_READS frame the agent sent is malformed: %s", e)
            return
        if not self.reads_ahead or thread != event.get("thread") or not 0 <= done - self._last_changing_id < 1 << 31:
            return
        for entry in entries:
            self.ahead.add(*entry)
        self._stop_counts[thread] = count
        self._ahead_on = True
        event["read_at_stop"] = True
        if self._trace is not None:
            self._trace.write("read at the stop\n")

    def stop_count(self, thread: int) -> int | None:
        """The thread's suspend count as the agent read it at its stop, if that still holds."""
        return self._stop_counts.get(thread) if self._ahead_on else None

    def drop_ahead(self) -> None:
        """Something may have changed what the agent would answer: nothing read ahead answers any more."""
        self._ahead_epoch += 1
        if self._ahead_on:
            self._stop_counts.clear()
            self.ahead = StopAnswers()
            self._ahead_slots.clear()
            self._ahead_sources.clear()
            self._ahead_on = False

    @property
    def ahead_epoch(self) -> int:
        return self._ahead_epoch

    async def ahead_send(self, calls: list[tuple[str, dict[str, Any]]], epoch: int | None) -> list[Any] | None:
        """Read-ahead requests (reads only), in one write; None if something changed since ``epoch``
        (then nothing is asked).  Until their replies come, a request with the same bytes waits for
        them instead of asking again; the replies answer such requests until something changes
        (``drop_ahead``).  ``ahead_wait`` gives the replies.  ``epoch`` None: immutable facts, asked
        whatever changed, not kept here."""
        if self._closed or (epoch is not None and epoch != self._ahead_epoch):
            return None
        if epoch is None:
            results = await self.request_many(calls)
            return [(L.BY_NAME[name].kind, L.encode_body(L.BY_NAME[name].request, fields),
                     r.status if isinstance(r, AgentError) else 0,
                     b"" if isinstance(r, AgentError) else L.encode_body(L.BY_NAME[name].reply, r))
                    for (name, fields), r in zip(calls, results, strict=True)]
        out: list[Any] = []
        chunks: list[bytes] = []
        for name, fields in calls:
            spec = L.BY_NAME[name]
            assert not invalidates(spec.kind), name
            body = L.encode_body(spec.request, fields)
            hit = self.ahead.answer(spec.kind, body)
            if hit is not None:
                out.append((spec.kind, body, hit[0], hit[1]))
                continue
            out.append(self._ahead_slot(spec.kind, name, body, epoch, chunks))
        await self._ahead_write(chunks)
        return out

    async def ahead_post(self, reads: list[tuple[int, bytes]], epoch: int) -> None:
        """``ahead_send`` for requests already encoded, (kind, body) each, with nothing waiting for
        their replies here: they answer later requests from the moment they come (nothing is asked if
        something changed since ``epoch``)."""
        if self._closed or epoch != self._ahead_epoch:
            return
        chunks: list[bytes] = []
        for kind, body in reads:
            if (kind, body) not in self._ahead_slots and self.ahead.answer(kind, body) is None:
                self._ahead_slot(kind, L.MESSAGES[kind].name, body, epoch, chunks)
        await self._ahead_write(chunks)

    async def ahead_settled(self, reads: list[tuple[int, bytes]]) -> None:
        """Until the replies of ``ahead_post``'s reads are in (or were never asked: something changed)."""
        for key in reads:
            slot = self._ahead_slots.get(key)
            if slot is not None:
                while slot.frame is None:
                    await self._pump_until(partial(_replied, slot), slot)

    def ahead_frame_values(self, thread: int, depth: int) -> dict[tuple[int, int], bytes]:
        """The locals of a frame read ahead and in now: (slot, tag) -> the value's bytes, tag first."""
        if not self._ahead_on:
            return {}
        return self.ahead.values.get(("frame", thread, depth), {})

    def _ahead_slot(self, kind: int, name: str, body: bytes, epoch: int, chunks: list[bytes]) -> _AheadSlot:
        """The read ahead under way for this request, made (its frame added to ``chunks``) if none is."""
        assert not invalidates(kind), name
        key = (kind, body)
        slot = self._ahead_slots.get(key)
        if slot is None:
            msg_id = self._new_id()
            slot = _AheadSlot(kind, name, key, epoch)
            self._pending[msg_id] = slot
            self._ahead_slots[key] = slot
            source = source_key(kind, body)
            if source is not None and (kind != _THREAD_FRAMES or body[8:] == _WHOLE_STACK):
                self._ahead_sources[source] = slot
            chunks.append(L.frame(msg_id, kind, 0, body))
        return slot

    async def _ahead_write(self, chunks: list[bytes]) -> None:
        self._ahead_on = True
        if chunks:
            if self._trace is not None:
                self._trace.write(f"ahead {len(chunks)}\n-- ahead write\n")
            data = b"".join(chunks)
            sent = self._send_now(data)
            if sent is not True:
                await self._send(data if sent is None else b"")

    async def ahead_wait(self, sent: list[Any], epoch: int | None) -> list[Entry] | None:
        """(kind, request body, status, reply body) of each of ``ahead_send``'s requests (kept as the
        stop's answers only if nothing changed since ``epoch``: ``ahead_epoch`` says)."""
        if epoch is None:
            return sent
        entries: list[Entry] = []
        for item in sent:
            if isinstance(item, _AheadSlot):
                while item.frame is None:
                    await self._pump_until(partial(_replied, item), item)
                frame = item.frame
                entries.append((item.kind, item.key[1], frame.status, frame.body))
            else:
                entries.append(item)
        return entries

    async def post(self, name: str, on_refused: Callable[[int], None] | None = None, **fields: Any) -> None:
        """Send a request and wait for nothing: its reply is dropped when it comes.

        For a request that cannot fail and whose effect every later request sees anyway (the
        agent executes requests in arrival order), e.g. CLEAR_REQUEST.  A request the daemon
        only judged it could not fail names ``on_refused``: called with the agent's status if
        the agent refused it after all.  AgentLinkClosed when the link is gone."""
        if self._closed:
            raise AgentLinkClosed(self.close_reason or "agent link closed")
        if self._ahead_on and invalidates(L.BY_NAME[name].kind):
            self.drop_ahead()
        self.on_message(name)
        if self._trace is not None:
            self._trace.write(f"sent {name}\n-- write\n")
        msg_id = self._new_id()
        if invalidates(L.BY_NAME[name].kind):
            self._last_changing_id = msg_id
        if on_refused is not None:
            self._refusal_watch[msg_id] = on_refused
        data = L.encode_request(msg_id, name, **fields)
        sent = self._send_now(data)
        if sent is True:
            return
        await inline.handoff_point()  # a command begun inline waits for the socket in a task
        await self._send(data if sent is None else b"")

    def _new_id(self) -> int:
        msg_id = self._next_id
        self._next_id = self._next_id + 1 if self._next_id < 0xFFFFFFFF else 1
        return msg_id

    async def _send_then_hand_off(self, data: bytes, slots: tuple[_Slot, ...]) -> None:
        # The request goes out before a command begun inline (in the session's reader, or by
        # whoever read its previous reply) stops at inline.handoff_point.  Sent whole, the
        # command needs nothing but the replies: it stops on an AwaitingReply, and whoever reads
        # the last reply goes on with it, no task waiting (_read_available); else a task of its
        # own goes on from here, sends the rest, and waits.
        sent = self._send_now(data)
        await inline.handoff_point(
            inline.AwaitingReply(lambda callback: self._await_replies(slots, callback)) if sent is True else None)
        if sent is None:
            await self._send(data)
        elif sent is False:
            await self._send(b"")  # the rest of ours waits first in the writer's queue: see that it goes

    def _await_replies(self, slots: tuple[_Slot, ...], callback: Callable[[], None]) -> None:
        then = _Then(slots, callback)
        if self._closed or then.ready():
            callback()
            return
        for slot in slots:
            slot.then = then

    def _send_now(self, data: bytes) -> bool | None:
        """Write without waiting if nobody else writes: True if all went, False if the rest waits
        first in line (to be flushed by the next _send), None if nothing was written."""
        if self._closed:
            return None
        try:
            wrote = self._writer.write_now(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
            self._mark_closed(f"send failed: {e!r}")
            raise AgentLinkClosed(self.close_reason) from None
        return True if wrote is Wrote.ALL else False if wrote is Wrote.PART else None

    async def _send(self, data: bytes) -> None:
        # Requests queued while a write is under way go out together in the next write.
        if self._closed:
            raise AgentLinkClosed(self.close_reason or "agent link closed")
        try:
            await self._writer.write(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as e:
            self._mark_closed(f"send failed: {e!r}")
            raise AgentLinkClosed(self.close_reason) from None
        if self._closed:  # closed while it waited: what was queued was dropped, not sent
            raise AgentLinkClosed(self.close_reason or "agent link closed")

    # -- the cooperative reader ----------------------------------------------------------------
    # Reading is synchronous (what is there is read, framed and routed in one step); only the
    # wait for more input is exclusive.  While a task waits on the socket nobody else reads (what
    # they took would not wake it): they sleep until that task routes their frames or leaves.
    async def _pump_until(self, done: Callable[[], bool], slot: _Slot | None) -> None:
        """Read frames until done() holds, or sleep while another task waits for input."""
        try:
            while not done():
                if self._fd_waiter:
                    wake = slot.wake if slot is not None else self._new_event_waiter()
                    await wake.wait()
                    if slot is not None:
                        slot.wake = trio.Event()
                    continue
                if not self._io.drained:  # else nothing came since the last read ended short
                    self._read_available()
                    if done():
                        return
                self._fd_waiter = True
                try:
                    await self._io.wait_readable()
                except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                    self._mark_closed(f"receive failed: {e!r}")
                    raise AgentLinkClosed(self.close_reason) from None
                finally:
                    self._fd_waiter = False
        finally:
            if not self._fd_waiter:
                self._wake_all()  # whoever still waits for input takes the socket over

    def _new_event_waiter(self) -> trio.Event:
        ev = trio.Event()
        self._event_waiters.append(ev)
        return ev

    def _wake_all(self) -> None:
        for slot in self._pending.values():
            slot.wake.set()
        waiters, self._event_waiters = self._event_waiters, []
        for ev in waiters:
            ev.set()

    def _read_available(self) -> None:
        """Read, frame and route whatever the agent has sent so far, without waiting."""
        if self._closed:
            raise AgentLinkClosed(self.close_reason or "agent link closed")
        while True:
            try:
                data = self._io.try_receive(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                self._mark_closed(f"receive failed: {e!r}")
                raise AgentLinkClosed(self.close_reason) from None
            if data is None:
                return
            if not data:
                self._mark_closed("agent closed the link")
                raise AgentLinkClosed(self.close_reason)
            self._conn.receive_data(data)
            try:
                frames = list(self._conn.frames())
            except L.LinkError as e:
                self._mark_closed(f"malformed frame from the agent: {e}")
                raise AgentLinkClosed(self.close_reason) from None
            ready: list[_Then] = []
            for frame in frames:
                self._route(frame, ready)
            for then in ready:
                self._go_on(then)
            if len(data) < 65536:
                return

    def _go_on(self, then: _Then) -> None:
        for slot in then.slots:
            slot.then = None
        try:
            then.callback()
        except Exception:  # a command's failure must not stop the reading of the link
            log.exception("going on with a command after its link reply failed")

    def _route(self, frame: L.Frame, ready: list[_Then]) -> None:
        if frame.id == 0:
            if frame.kind == _STOP_READS:
                self._stop_reads = frame.body  # for the EVENT right behind it
                return
            if frame.kind in (_EVENT, _CLASS_UNLOADED):
                self.drop_ahead()  # a thread ran to its event, or a class went: what was read may be stale
            try:
                if frame.kind == _EVENT:
                    event = L.decode_event(frame.body)
                    if self._stop_reads is not None:
                        self._file_stop_reads(event)
                    self._events.append(event)
                    if self._trace is not None:
                        self._trace.write(f"== event {self._events[-1]}\n")
                elif frame.kind == _NOTICE:
                    body = L.decode_body(L.BY_NAME["NOTICE"].request, frame.body, "NOTICE")
                    self._events.append({"notice": body["what"], "detail": body["detail"]})
                elif frame.kind == _CLASS_UNLOADED:
                    body = L.decode_body(L.BY_NAME["CLASS_UNLOADED"].request, frame.body, "CLASS_UNLOADED")
                    self._events.append({"class_unloaded": body["ref"], "signature": body["signature"]})
            except L.LinkError as e:  # a bad event is dropped, loudly, rather than killing the link
                self._events.append({"notice": L.NOTICE_LOG, "detail": f"undecodable agent message: {e}"})
            for ev in self._event_waiters:
                ev.set()
            self._event_waiters = []
            return
        if self._refusal_watch:
            refused = self._refusal_watch.pop(frame.id, None)
            if refused is not None:
                if frame.status != 0:
                    try:
                        refused(frame.status)
                    except Exception:  # the reading of the link goes on whatever the callback does
                        log.exception("a refused posted request's callback failed")
                return
        slot = self._pending.get(frame.id)
        if slot is not None and slot.frame is None:
            slot.frame = frame
            slot.wake.set()
            if type(slot) is _AheadSlot:
                del self._pending[frame.id]
                if slot.epoch == self._ahead_epoch and frame.kind == slot.kind:
                    try:
                        self.ahead.add(slot.kind, slot.key[1], frame.status, frame.body)
                    except L.LinkError:
                        pass
                if self._ahead_slots.get(slot.key) is slot:
                    del self._ahead_slots[slot.key]
                if self._ahead_sources:
                    source = source_key(slot.kind, slot.key[1])
                    if source is not None and self._ahead_sources.get(source) is slot:
                        del self._ahead_sources[source]
            then = slot.then
            if then is not None and then.ready() and then not in ready:
                ready.append(then)

    async def _next_event(self) -> dict[str, Any]:
        while not self._events:
            if self._closed:
                raise AgentLinkClosed(self.close_reason or "agent link closed")
            await self._pump_until(lambda: bool(self._events), None)
        return self._events.pop(0)

    def _mark_closed(self, reason: str) -> None:
        if not self._closed:
            self._closed = True
            self.close_reason = reason
        self._writer.discard()  # nothing more goes to an agent we stopped believing
        self._wake_all()
        # Parked commands go on now and find the link closed.
        parked = {id(slot.then): slot.then for slot in self._pending.values() if slot.then is not None}
        for then in parked.values():
            self._go_on(then)

    async def aclose(self) -> None:
        self._mark_closed("closed by the daemon")
        with trio.CancelScope(shield=True):
            await self.stream.aclose()

    async def __aenter__(self) -> AgentLink:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


# -- handshake ----------------------------------------------------------------------------------
async def _read_frame(stream: trio.abc.Stream, conn: L.LinkConnection) -> L.Frame:
    while True:
        for frame in conn.frames():
            return frame
        data = await stream.receive_some(4096)
        if not data:
            raise HandshakeError("peer closed during the handshake")
        conn.receive_data(data)


async def accept_agent(stream: trio.abc.Stream, secret: bytes, *, timeout: float = HANDSHAKE_TIMEOUT) -> AgentLink:
    """Authenticate a freshly accepted agent connection (daemon side) and return its link.

    A peer that does not prove the secret gets nothing but a closed socket: raises HandshakeError.
    """
    conn = L.LinkConnection(max_frame=64 * 1024)
    try:
        with trio.fail_after(timeout):
            frame = await _read_frame(stream, conn)
            if frame.kind != L.BY_NAME["HELLO"].kind or frame.id != 0:
                raise HandshakeError(f"expected HELLO, got kind {frame.kind}")
            hello = L.decode_body(L.BY_NAME["HELLO"].request, frame.body, "HELLO")
            if hello["magic"] != L.MAGIC or hello["version"] != L.LINK_VERSION:
                raise HandshakeError(f"not a jdwpd agent link (magic {hello['magic']!r}, version {hello['version']})")
            if len(hello["nonce"]) != L.NONCE_SIZE:
                raise HandshakeError("bad nonce size")
            nonce = os.urandom(L.NONCE_SIZE)
            await stream.send_all(L.encode_request(0, "CHALLENGE", nonce=nonce,
                                                   proof=L.proof(secret, L.DAEMON_LABEL, hello["nonce"])))
            frame = await _read_frame(stream, conn)
            if frame.kind != L.BY_NAME["AUTH"].kind:
                raise HandshakeError(f"expected AUTH, got kind {frame.kind}")
            auth = L.decode_body(L.BY_NAME["AUTH"].request, frame.body, "AUTH")
            if not L.check_proof(secret, L.AGENT_LABEL, nonce, auth["proof"]):
                raise HandshakeError("the agent does not hold the secret")
            await stream.send_all(L.encode_request(0, "WELCOME"))
    except (trio.TooSlowError, L.LinkError, trio.BrokenResourceError, OSError) as e:
        with trio.CancelScope(shield=True):
            await stream.aclose()
        raise HandshakeError(f"agent handshake failed: {e!r}") from None
    except HandshakeError:
        with trio.CancelScope(shield=True):
            await stream.aclose()
        raise
    big = L.LinkConnection()
    # Hand over whatever followed WELCOME (events may arrive right behind it).
    big.receive_data(conn.unframed())
    return AgentLink(stream, {k: hello[k] for k in ("pid", "flags", "caps", "profile")}, big)


async def open_unix_listener(path: str) -> trio.SocketListener:
    """A Unix-socket listener that only the owner may connect to (the directory should be 0700 too)."""
    sock = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
    await sock.bind(path)
    os.chmod(path, 0o600)
    sock.listen(16)
    return trio.SocketListener(sock)

