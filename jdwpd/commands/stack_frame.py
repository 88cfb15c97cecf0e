"""StackFrame command set (16): frame ids are (generation << 16 | depth) per thread (model/frames.py).

Checked as the reference does: a thread the debuggers have not suspended is THREAD_NOT_SUSPENDED
(an ended one included), then a frame id of another generation than the thread's is INVALID_FRAMEID;
the depth is not checked against the stack until a local is read or written (so no slots at all is
success at any depth, and on an ended thread).  An ended thread that a debugger suspends has
generation 0 there: its frame ids of that generation reach JVMTI, which answers INVALID_THREAD.
"""

from __future__ import annotations

import struct
from typing import Any

from jdwpd.commands import Encoded
from jdwpd.commands._values import raise_agent, request, tagged, to_link
from jdwpd.errors import AgentError, JdwpError
from jdwpd.model.frames import frame_depth
from protocol.constants import OBJECT_TAGS, PRIMITIVE_TAGS, ErrorCode, Tag
from protocol.wire import IDSizes, value_codec

SET_NAME = "StackFrame"
_COUNT = struct.Struct(">i")
_NULL_TAG = int(Tag.OBJECT)
_VOID = int(Tag.VOID)


async def _depth(ctx: Any, thread: int, frame: int) -> int:
    generation = ctx.vm.threads.generation(thread)
    if generation is None:
        # The thread may have run since its frames were last seen: the agent knows its generation.
        s = await request(ctx.vm.link, "THREAD_STATUS", thread=thread)
        if s["suspend_count"] == 0:
            raise JdwpError(ErrorCode.THREAD_NOT_SUSPENDED)
        generation = s["frame_generation"]
        ctx.vm.threads.learned_generation(thread, generation)
        # Locals read ahead belong to frames seen before it ran (an ended thread's generation starts
        # at 0 again and could match theirs).
        ctx.vm.locals_ahead.forget(thread)
    return frame_depth(frame, generation)


_SLOT_TAGS = frozenset(OBJECT_TAGS | PRIMITIVE_TAGS)


async def get_values(ctx: Any, cmd: Any) -> Any:
    depth = await _depth(ctx, cmd.thread, cmd.frame)
    if not cmd.slots:
        return encoded_values([], ctx.vm.id_sizes)
    slots = [{"slot": s.slot, "tag": s.sigbyte} for s in cmd.slots]
    # The reference reads slot by slot: the slots before an unknown tag are read (and may
    # fail) first, then the tag is INVALID_TAG.
    bad = next((i for i, s in enumerate(slots) if s["tag"] not in _SLOT_TAGS), None)
    if bad is not None:
        if bad:
            await request(ctx.vm.link, "FRAME_GET_LOCALS", thread=cmd.thread, depth=depth, slots=slots[:bad])
        raise JdwpError(ErrorCode.INVALID_TAG, f"slot tag {slots[bad]['tag']}")
    r = await _read_locals(ctx, cmd.thread, depth, slots)
    return encoded_values(r["values"], ctx.vm.id_sizes)


def encoded_values(values: list[dict], sizes: IDSizes) -> Encoded:
    """GetValues' reply straight from the link's values, in one pass: what to_jdwp then encode_reply
    and reply_ids would make of them (a debugger reads every local of a stop: this is its hot path)."""
    packers = value_codec(sizes).tagged
    parts = [_COUNT.pack(len(values))]
    ids = []
    for item in values:
        v = item["value"]
        tag, value = v.tag, v.value
        if tag in OBJECT_TAGS:
            if value:
                ids.append(value)
            else:
                tag = _NULL_TAG  # a null is tagged OBJECT, whatever the slot's type
            parts.append(packers[tag].pack(tag, value))
        elif tag == _VOID:
            parts.append(packers[tag].pack(tag))
        else:
            parts.append(packers[tag].pack(tag, value))
    return Encoded(b"".join(parts), ids)


async def _read_locals(ctx: Any, thread: int, depth: int, slots: list[dict]) -> dict:
    """FRAME_GET_LOCALS, with the other frames' locals of the stop read ahead in the same write."""
    ahead = ctx.vm.locals_ahead
    generation = ctx.vm.threads.generation(thread)
    key = tuple((s["slot"], s["tag"]) for s in slots)
    known = ahead.answer(thread, generation, depth, key)
    if known is None:
        reads = ahead.plan(thread, generation, depth, key)
        if len(reads) == 1:
            return await request(ctx.vm.link, "FRAME_GET_LOCALS", thread=thread, depth=depth, slots=slots)
        results = await ctx.vm.link.request_many(
            [("FRAME_GET_LOCALS", {"thread": thread, "depth": d,
                                   "slots": [{"slot": slot, "tag": tag} for slot, tag in read]})
             for d, read in reads])
        ahead.keep(thread, generation, reads[1:], results[1:])
        known = results[0]
    if isinstance(known, AgentError):
        raise_agent(known)
        raise known
    return known


async def set_values(ctx: Any, cmd: Any) -> Any:
    depth = await _depth(ctx, cmd.thread, cmd.frame)
    if not cmd.slot_values:
        return None
    values = [{"slot": s.slot, "value": to_link(s.slot_value)} for s in cmd.slot_values]
    ctx.vm.locals_ahead.forget(cmd.thread)
    await request(ctx.vm.link, "FRAME_SET_LOCALS", thread=cmd.thread, depth=depth, values=values)


async def this_object(ctx: Any, cmd: Any) -> Any:
    depth = await _depth(ctx, cmd.thread, cmd.frame)
    r = await request(ctx.vm.link, "FRAME_THIS", thread=cmd.thread, depth=depth)
    return {"object_this": tagged(r["object"])}


async def pop_frames(ctx: Any, cmd: Any) -> Any:
    depth = await _depth(ctx, cmd.thread, cmd.frame)
    try:
        await request(ctx.vm.link, "THREAD_POP_FRAMES", thread=cmd.thread, depth=depth)
    finally:
        # The thread ran to pop: every frame id of it is stale now.
        ctx.vm.threads.invalidate_frames(cmd.thread)


HANDLERS = {"GetValues": get_values, "SetValues": set_values, "ThisObject": this_object, "PopFrames": pop_frames}
