"""Frame IDs: a thread's frame generation and a depth, packed into one u64.

The reference agent packs (generation << 16 | depth), with a generation per thread: 0 when
it first knows the thread, one more at each real resume by a debugger (a nested suspension
that ends, or an invoke on the thread, moves nothing), and 0 again for an ended thread
that a debugger suspends.  The agent counts the same way (agent/threads.c) and tells the
daemon with every THREAD_FRAMES and THREAD_STATUS, so that our frame IDs are the
reference's numbers: one of another thread, or one made up, names a frame exactly when it
does there.  A frame ID is only meaningful together with its thread (every StackFrame
command names both).
"""

from __future__ import annotations

from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode

DEPTH_BITS = 16
DEPTH_MASK = (1 << DEPTH_BITS) - 1
GENERATION_MASK = (1 << (64 - DEPTH_BITS)) - 1


def make_frame_id(generation: int, depth: int) -> int:
    return ((generation & GENERATION_MASK) << DEPTH_BITS) | (depth & DEPTH_MASK)


def frame_depth(frame_id: int, generation: int) -> int:
    """The depth a frame ID names, or INVALID_FRAMEID if its thread ran since it was made."""
    if (frame_id >> DEPTH_BITS) != (generation & GENERATION_MASK):
        raise JdwpError(ErrorCode.INVALID_FRAMEID, f"frame {frame_id:#x} is stale")
    return frame_id & DEPTH_MASK
