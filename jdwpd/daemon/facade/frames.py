"""Stack frames: frame ids that carry the thread's generation, locals (read ahead), this, popping.

Frame ids are (generation << 16 | depth) per thread (model/frames.py).  Checked as the reference
does: a thread the debuggers have not suspended is THREAD_NOT_SUSPENDED (an ended one included),
then a frame id of another generation than the thread's is INVALID_FRAMEID; the depth is not checked
against the stack until a local is read or written (so no slots at all is success at any depth, and
on an ended thread).  An ended thread that a debugger suspends has generation 0 there: its frame ids
of that generation reach JVMTI, which answers INVALID_THREAD.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.facade.agent import ask, raise_agent
from jdwpd.daemon.facade.values import tagged, to_link
from jdwpd.daemon.fast.stop_ahead import (
    COUNT,
    FRAME_COUNT,
    FRAMES,
    FRAMES_REQ,
    GENERATION,
    GET_LOCALS,
    ID,
    LINK_LOCATION,
    LOCALS_REQ,
    SLOT,
    split_values,
)
from jdwpd.daemon.model.frames import DEPTH_BITS, DEPTH_MASK, GENERATION_MASK, frame_depth, make_frame_id
from jdwpd.errors import AgentError, JdwpError
from protocol.constants import OBJECT_TAGS, PRIMITIVE_TAGS, ErrorCode
from protocol.link import LinkValue
from protocol.pushed_stop import encode_stop
from protocol.wire import Location, TaggedObjectID, Value

if TYPE_CHECKING:  # pragma: no cover
    from jdwpd.daemon.fast.locals_ahead import LocalsAhead
    from jdwpd.daemon.model.threads import ThreadTable

_SLOT_TAGS = frozenset(OBJECT_TAGS | PRIMITIVE_TAGS)


class FrameOperations:
    """The façade's frame operations (a mixin of jdwpd.daemon.vm.VM)."""

    link: Any
    objects: Any
    threads: ThreadTable
    locals_ahead: LocalsAhead

    async def frames(self, thread: int, start: int = 0, length: int = -1) -> list[tuple[int, Location]]:
        """(frame id, location) of a suspended thread's frames ``start`` on (``length`` -1: all)."""
        if start == 0 and length == -1:
            # The question debuggers ask at every stop, answered in one round trip: no index
            # can be wrong here.
            r = await self.link.request("THREAD_FRAMES", thread=thread, start=0, length=-1)
            frames = self._handed_out(thread, 0, r)
            self.locals_ahead.saw_frames(thread, r["frame_generation"], r["frames"])
            return frames
        count = (await self.link.request("THREAD_FRAME_COUNT", thread=thread))["count"]
        if length == -1:
            length = count - start
        if length == 0:
            return []
        if start < 0 or start > count - 1:
            raise JdwpError(ErrorCode.INVALID_INDEX, f"start {start} of {count} frames")
        if length < 0 or length + start > count:
            raise JdwpError(ErrorCode.INVALID_LENGTH, f"{length} frames from {start} of {count}")
        r = await self.link.request("THREAD_FRAMES", thread=thread, start=start, length=length)
        return self._handed_out(thread, start, r)

    def frames_now(self, thread: int, start: int, length: int) -> list[tuple[int, bytes]] | None:
        """``frames`` where the stop's reads ahead answer it at once (fast/stop_ahead.py), with the
        same bookkeeping: (frame id, the location's bytes as the link has them: class, kind, method,
        index) each; None where ``frames`` must run (nothing read ahead, an error to answer)."""
        known = getattr(self.link, "ahead_known", None)
        if known is None:
            return None
        if start == 0 and length == -1:
            r = known(FRAMES, FRAMES_REQ.pack(thread, 0, -1))
        else:
            c = known(FRAME_COUNT, ID.pack(thread))
            if c is None or c[0] != 0 or len(c[1]) != COUNT.size:
                return None
            (count,) = COUNT.unpack(c[1])
            if length == -1:
                length = count - start
            if length == 0 or start < 0 or start > count - 1 or length < 0 or length + start > count:
                return None  # nothing to hand out, or an error: frames says which
            r = known(FRAMES, FRAMES_REQ.pack(thread, start, length))
        if r is None or r[0] != 0:
            return None
        body = r[1]
        n = COUNT.unpack_from(body, 0)[0] if len(body) >= COUNT.size else -1
        if n < 0 or len(body) != COUNT.size + n * LINK_LOCATION.size + GENERATION.size:
            return None
        (generation,) = GENERATION.unpack_from(body, len(body) - GENERATION.size)
        self.threads.frames_handed_out(thread, generation)
        frames = [body[COUNT.size + i * LINK_LOCATION.size:COUNT.size + (i + 1) * LINK_LOCATION.size] for i in range(n)]
        if start == 0 and length == -1:
            self.locals_ahead.saw_frames(thread, generation, [
                {"method": method, "index": index} for _, _, method, index in map(LINK_LOCATION.unpack, frames)])
        return [(make_frame_id(generation, start + i), f) for i, f in enumerate(frames)]

    def locals_now(self, thread: int, frame: int, slots: list[tuple[int, int]]) -> list[bytes] | None:
        """``get_locals`` where the stop's reads ahead answer it at once: each value's bytes as the
        link has them (tag first); None where ``get_locals`` must run (a generation or a stop to
        learn, nothing read ahead, an error to answer)."""
        known = getattr(self.link, "ahead_known", None)
        generation = self.threads.generation(thread)
        if known is None or generation is None or not slots or self.locals_ahead.has_stop(thread, generation):
            return None
        if frame >> DEPTH_BITS != generation & GENERATION_MASK or any(tag not in _SLOT_TAGS for _, tag in slots):
            return None
        depth = frame & DEPTH_MASK
        r = known(GET_LOCALS, LOCALS_REQ.pack(thread, depth, len(slots))
                  + b"".join(SLOT.pack(slot, tag) for slot, tag in slots))
        if r is None or r[0] != 0:
            return None
        return split_values(r[1])

    def pushed_stop(self, session: Any, thread: int) -> bytes | None:
        """A JdwpdStop's data for ``session`` (protocol/pushed_stop.py) from the stop's reads ahead,
        with the bookkeeping of the Frames and GetValues it stands for (frame ids handed out, class
        ids sent); None where the stack was not read ahead."""
        found = self.frames_now(thread, 0, -1)
        if found is None:
            return None
        frames = []
        classes = []
        for frame_id, loc in found:  # loc: the link's class, kind, method, index; JDWP: kind, class, ...
            frames.append(ID.pack(frame_id) + loc[8:9] + loc[:8] + loc[9:])
            classes.append(int.from_bytes(loc[:8], "big"))
        self.objects.sent(session, classes)
        values = self.link.ahead_frame_values(thread, 0) if found else {}
        primitive = sorted((slot, value) for (slot, tag), value in values.items() if tag in PRIMITIVE_TAGS)
        return encode_stop(b"".join(frames), len(frames), primitive)

    def _handed_out(self, thread: int, start: int, r: dict) -> list[tuple[int, Location]]:
        generation = r["frame_generation"]
        self.threads.frames_handed_out(thread, generation)
        return [(make_frame_id(generation, start + i), Location(f["ref_kind"], f["ref"], f["method"], f["index"]))
                for i, f in enumerate(r["frames"])]

    async def frame_count(self, thread: int) -> int:
        # A thread that has ended answers as in the reference: THREAD_NOT_SUSPENDED until a debugger
        # suspends it, INVALID_THREAD while one does (the agent keeps its count; agent/threads.c).
        return (await ask(self.link, "THREAD_FRAME_COUNT", thread=thread))["count"]

    async def frame_depth(self, thread: int, frame: int) -> int:
        """The depth a frame id names, checked against the thread's generation."""
        generation = self.threads.generation(thread)
        if generation is None:
            # The thread may have run since its frames were last seen: the agent knows its generation.
            s = await ask(self.link, "THREAD_STATUS", thread=thread)
            if s["suspend_count"] == 0:
                raise JdwpError(ErrorCode.THREAD_NOT_SUSPENDED)
            generation = s["frame_generation"]
            self.threads.learned_generation(thread, generation)
            # Locals read ahead belong to frames seen before it ran (an ended thread's generation starts
            # at 0 again and could match theirs).
            self.locals_ahead.forget(thread)
        return frame_depth(frame, generation)

    async def get_locals(self, thread: int, frame: int, slots: list[tuple[int, int]]) -> list[LinkValue]:
        """Values of (slot, signature byte) as the agent read them: a null object keeps its slot's tag."""
        depth = await self.frame_depth(thread, frame)
        if not slots:
            return []
        asked = [{"slot": slot, "tag": tag} for slot, tag in slots]
        # The reference reads slot by slot: the slots before an unknown tag are read (and may
        # fail) first, then the tag is INVALID_TAG.
        bad = next((i for i, s in enumerate(asked) if s["tag"] not in _SLOT_TAGS), None)
        if bad is not None:
            if bad:
                await ask(self.link, "FRAME_GET_LOCALS", thread=thread, depth=depth, slots=asked[:bad])
            raise JdwpError(ErrorCode.INVALID_TAG, f"slot tag {asked[bad]['tag']}")
        r = await self._read_locals(thread, depth, asked)
        return [item["value"] for item in r["values"]]

    async def _read_locals(self, thread: int, depth: int, slots: list[dict]) -> dict:
        """FRAME_GET_LOCALS, with the other frames' locals of the stop read ahead in the same write."""
        ahead = self.locals_ahead
        generation = self.threads.generation(thread)
        key = tuple((s["slot"], s["tag"]) for s in slots)
        known = ahead.answer(thread, generation, depth, key)
        if known is None:
            reads = ahead.plan(thread, generation, depth, key)
            if len(reads) == 1:
                return await ask(self.link, "FRAME_GET_LOCALS", thread=thread, depth=depth, slots=slots)
            results = await self.link.request_many(
                [("FRAME_GET_LOCALS", {"thread": thread, "depth": d,
                                       "slots": [{"slot": slot, "tag": tag} for slot, tag in read]})
                 for d, read in reads])
            ahead.keep(thread, generation, reads[1:], results[1:])
            known = results[0]
        if isinstance(known, AgentError):
            raise_agent(known)
        return known

    async def set_locals(self, thread: int, frame: int, values: list[tuple[int, Value]]) -> None:
        """Store (slot, value) pairs in a frame."""
        depth = await self.frame_depth(thread, frame)
        if not values:
            return
        link_values = [{"slot": slot, "value": to_link(v)} for slot, v in values]
        self.locals_ahead.forget(thread)
        await ask(self.link, "FRAME_SET_LOCALS", thread=thread, depth=depth, values=link_values)

    async def frame_this(self, thread: int, frame: int) -> TaggedObjectID:
        depth = await self.frame_depth(thread, frame)
        return tagged((await ask(self.link, "FRAME_THIS", thread=thread, depth=depth))["object"])

    async def pop_frames(self, thread: int, frame: int) -> None:
        """Pop the frame and every frame above it."""
        depth = await self.frame_depth(thread, frame)
        try:
            await ask(self.link, "THREAD_POP_FRAMES", thread=thread, depth=depth)
        finally:
            # The thread ran to pop: every frame id of it is stale now.
            self.threads.invalidate_frames(thread)
