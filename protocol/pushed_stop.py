"""A JdwpdStop event's data (docs/extensions.md, "Pushed stops"): what a client asks first at a stop,
sent with the stop so that it need not ask.

A session that sent ``Jdwpd.PushStops(true)`` gets, in the composite of an event that suspended its
thread, one JdwpdStop for that thread when the server had the answers at hand: the thread's whole
stack and its top frame's locals of primitive types, read at the stop.  Its ``data``:

    int frameCount                        the thread's frames, all of them
    frameCount x (frame frameID, location)   as a ThreadReference.Frames(thread, 0, -1) reply has them
    int localCount
    localCount x (int slot, value)        frame 0's locals, tagged as a StackFrame.GetValues reply has them

IDs are 8 bytes (jdwpd's ID sizes).  The client answers ThreadReference.FrameCount, Frames of any
range and StackFrame.GetValues of frame 0 (those slots, with their own tags) from it, byte for byte
what the server would answer, until it sends a command that may change them (a resume, an invoke, a
SetValues: a command that is ``mutating``, ``invokes`` or ``changes_state`` in protocol/spec.py) or an
event of that thread comes.  Sans I/O.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from .constants import OBJECT_TAGS

__all__ = ["PushedStop", "PushedStopError", "encode_stop", "decode_stop", "split_values", "values_reply",
           "FRAME_SIZE", "VALUE_SIZES"]

_INT = struct.Struct(">i")
_SLOT = struct.Struct(">i")
_FRAME_ID = struct.Struct(">Q")
FRAME_SIZE = 8 + 1 + 8 + 8 + 8  # frame id, then the location: type tag, class, method, index
# A value's bytes after its tag, by tag; objects are 8-byte IDs, void has none.
VALUE_SIZES: dict[int, int] = {**{int(tag): 8 for tag in OBJECT_TAGS}, ord("V"): 0, ord("B"): 1, ord("Z"): 1,
                               ord("C"): 2, ord("S"): 2, ord("I"): 4, ord("F"): 4, ord("J"): 8, ord("D"): 8}


class PushedStopError(ValueError):
    """A JdwpdStop's data that is not the layout above."""


def encode_stop(frames: bytes, frame_count: int, local_values: Iterable[tuple[int, bytes]]) -> bytes:
    """``frames``: frame_count frames of FRAME_SIZE bytes; ``local_values``: (slot, tagged value bytes)."""
    parts = [_INT.pack(frame_count), frames]
    values = list(local_values)
    parts.append(_INT.pack(len(values)))
    parts += [_SLOT.pack(slot) + value for slot, value in values]
    return b"".join(parts)


class PushedStop:
    """One thread's stop as pushed: answers to the first questions of a stop, as reply bodies."""

    __slots__ = ("thread", "frame_count", "frames", "values")

    def __init__(self, thread: int, frame_count: int, frames: bytes, values: dict[int, bytes]) -> None:
        self.thread = thread
        self.frame_count = frame_count
        self.frames = frames
        self.values = values  # frame 0's slot -> its tagged value's bytes

    @property
    def top_frame_id(self) -> int | None:
        return _FRAME_ID.unpack_from(self.frames, 0)[0] if self.frame_count else None

    def frame_count_reply(self) -> bytes:
        return _INT.pack(self.frame_count)

    def frames_reply(self, start: int, length: int) -> bytes | None:
        """Frames(thread, start, length)'s reply body, or None where the server must answer (an
        error it names: a bad index or length)."""
        if length == -1:
            length = self.frame_count - start
        if start < 0 or length <= 0 or start + length > self.frame_count:
            return None  # the server's answer: an error, or nothing to hand out
        return _INT.pack(length) + self.frames[start * FRAME_SIZE:(start + length) * FRAME_SIZE]

    def known_values(self, frame_id: int, slots: list[tuple[int, int]]) -> list[bytes | None] | None:
        """Each asked (slot, sigbyte)'s tagged value where pushed with that tag, else None at its
        place; None if this is not the stop's top frame."""
        if frame_id != self.top_frame_id:
            return None
        out: list[bytes | None] = []
        for slot, sigbyte in slots:
            value = self.values.get(slot)
            out.append(value if value is not None and value[0] == sigbyte else None)
        return out


def decode_stop(thread: int, data: bytes) -> PushedStop:
    try:
        (count,) = _INT.unpack_from(data, 0)
        pos = _INT.size + count * FRAME_SIZE
        if count < 0 or pos > len(data):
            raise PushedStopError(f"{count} frames in {len(data)} bytes")
        frames = data[_INT.size:pos]
        (n,) = _INT.unpack_from(data, pos)
        pos += _INT.size
        values: dict[int, bytes] = {}
        for _ in range(n):
            (slot,) = _SLOT.unpack_from(data, pos)
            pos += _SLOT.size
            end = pos + 1 + VALUE_SIZES[data[pos]]
            if end > len(data):
                raise PushedStopError("a value runs past the end")
            values[slot] = data[pos:end]
            pos = end
    except (struct.error, KeyError, IndexError) as e:
        raise PushedStopError(f"malformed JdwpdStop data: {e!r}") from None
    if pos != len(data):
        raise PushedStopError(f"{len(data) - pos} bytes after a JdwpdStop's data")
    return PushedStop(thread, count, frames, values)


def split_values(body: bytes) -> list[bytes]:
    """Each tagged value of a GetValues reply body (8-byte IDs)."""
    try:
        (n,) = _INT.unpack_from(body, 0)
        pos, out = _INT.size, []
        for _ in range(n):
            end = pos + 1 + VALUE_SIZES[body[pos]]
            out.append(body[pos:end])
            pos = end
    except (struct.error, KeyError, IndexError) as e:
        raise PushedStopError(f"malformed GetValues reply: {e!r}") from None
    if pos != len(body):
        raise PushedStopError("bytes after a GetValues reply's values")
    return out


def values_reply(values: list[bytes]) -> bytes:
    return _INT.pack(len(values)) + b"".join(values)
