"""Frame IDs: a thread's frame generation and a depth, packed into one u64.

The reference agent packs (generation << 16 | depth) per thread (observed on
OpenJDK 17: the first frames of a thread are 0, 1, 2..., after its first resume
65536, 65537...); we pack the same way, with generations drawn from one counter
for all threads (model/threads.py), so that a frame id is never valid for a
thread other than its own.  A frame ID is only
meaningful together with its thread (every StackFrame command names both), and
dies when its thread runs again (ThreadTable bumps the generation).
"""

from __future__ import annotations

from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode

DEPTH_BITS = 16
_DEPTH_MASK = (1 << DEPTH_BITS) - 1
_GENERATION_MASK = (1 << (64 - DEPTH_BITS)) - 1


def make_frame_id(generation: int, depth: int) -> int:
    return ((generation & _GENERATION_MASK) << DEPTH_BITS) | (depth & _DEPTH_MASK)


def frame_depth(frame_id: int, generation: int) -> int:
    """The depth a frame ID names, or INVALID_FRAMEID if its thread ran since it was made."""
    if (frame_id >> DEPTH_BITS) != (generation & _GENERATION_MASK):
        raise JdwpError(ErrorCode.INVALID_FRAMEID, f"frame {frame_id:#x} is stale")
    return frame_id & _DEPTH_MASK
