"""Frame IDs: a thread's frame generation and a depth, packed into one u64.

The reference agent packs (generation << 32 | depth) the same way, per thread, so
our frame IDs equal its IDs whenever the generations agree.  A frame ID is only
meaningful together with its thread (every StackFrame command names both), and
dies when its thread runs again (ThreadTable bumps the generation).
"""

from __future__ import annotations

from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode

_DEPTH_MASK = 0xFFFFFFFF


def make_frame_id(generation: int, depth: int) -> int:
    return ((generation & _DEPTH_MASK) << 32) | (depth & _DEPTH_MASK)


def frame_depth(frame_id: int, generation: int) -> int:
    """The depth a frame ID names, or INVALID_FRAMEID if its thread ran since it was made."""
    if (frame_id >> 32) != (generation & _DEPTH_MASK):
        raise JdwpError(ErrorCode.INVALID_FRAMEID, f"frame {frame_id:#x} is stale")
    return frame_id & _DEPTH_MASK
