"""Frames and GetValues of a stopped thread answered by the session's reader, from the stop's reads
ahead (the façade's ``frames_now`` and ``locals_now``: fast/stop_ahead.py), before the command is
decoded, ordered or dispatched, as the reply memo's answers are (reading.py); and its Resume, where
the resume waits for no reply (the façade's ``posts_resume``): answered first, then posted
(``resume_to_post``, ``post_resume``).

These are what a script's logpoint or breakpoint sends at every hit (the top frame, a local, the
resume), and what IDEs ask first at a stop: answered here they cost the reader a few struct calls
instead of the ordering, the dispatcher, the codecs and the link's lookups (issue 30 item 4).
Everything a reply of the ordinary path does is done (the frame ids noted as handed out, the object
ids sent to this session counted for DisposeObjects, the resume counted), with the same bytes;
anything else (an error to answer, nothing read ahead, ids of other sizes, a resume that must wait
for the agent) goes the ordinary way.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from jdwpd.daemon.facade.threads import debugger_resumed
from protocol import spec
from protocol.constants import OBJECT_TAGS, Tag
from protocol.packets import CommandPacket
from protocol.wire import IDSizes

if TYPE_CHECKING:  # pragma: no cover
    from .lifecycle import Session

_FRAMES = spec.by_name("ThreadReference", "Frames")
_GET_VALUES = spec.by_name("StackFrame", "GetValues")
_RESUME = spec.by_name("ThreadReference", "Resume")
FRAMES = (_FRAMES.set_id, _FRAMES.cmd_id)
GET_VALUES = (_GET_VALUES.set_id, _GET_VALUES.cmd_id)
RESUME = (_RESUME.set_id, _RESUME.cmd_id)
STOP_COMMANDS = frozenset({FRAMES, GET_VALUES, RESUME})

_EIGHT_BYTE_IDS = IDSizes(8, 8, 8, 8, 8)
_FRAMES_COMMAND = struct.Struct(">Qii")  # thread, start, length
_GET_VALUES_HEAD = struct.Struct(">QQi")  # thread, frame, slots
_SLOT = struct.Struct(">iB")
_COUNT = struct.Struct(">i")
_ID = struct.Struct(">Q")
_NULL = bytes([Tag.OBJECT]) + bytes(8)  # a null is tagged OBJECT, whatever the slot's type
_OBJECT_TAGS = frozenset(OBJECT_TAGS)


def reply_body(session: Session, packet: CommandPacket) -> bytes | None:
    """The reply body to a Frames or GetValues answered from the stop's reads ahead, or None:
    nothing was done, the command goes the ordinary way."""
    vm: Any = session.vm
    if vm.id_sizes != _EIGHT_BYTE_IDS:
        return None
    data = packet.data
    key = (packet.command_set, packet.command)
    if key == RESUME:
        return None  # resume_to_post's, answered before it is done
    if key == FRAMES:
        if len(data) != _FRAMES_COMMAND.size:
            return None
        found = vm.frames_now(*_FRAMES_COMMAND.unpack(data))
        if found is None:
            return None
        parts = [_COUNT.pack(len(found))]
        ids = []
        for frame_id, loc in found:  # loc: the link's class, kind, method, index; JDWP: kind, class, ...
            parts.append(_ID.pack(frame_id) + loc[8:9] + loc[:8] + loc[9:])
            ids.append(int.from_bytes(loc[:8], "big"))  # the location's class, an object id sent
        vm.objects.sent(session, ids)
        return b"".join(parts)
    if len(data) < _GET_VALUES_HEAD.size:
        return None
    thread, frame, n = _GET_VALUES_HEAD.unpack_from(data)
    if n <= 0 or len(data) != _GET_VALUES_HEAD.size + n * _SLOT.size:
        return None
    values = vm.locals_now(thread, frame, list(_SLOT.iter_unpack(data[_GET_VALUES_HEAD.size:])))
    if values is None:
        return None
    parts = [_COUNT.pack(len(values))]
    ids = []
    for v in values:  # the link's value bytes are JDWP's, but for a null's tag
        if v[0] in _OBJECT_TAGS:
            oid = int.from_bytes(v[1:9], "big")
            if oid:
                ids.append(oid)
            else:
                v = _NULL
        parts.append(v)
    if ids:
        vm.objects.sent(session, ids)
    return b"".join(parts)


def resume_to_post(session: Session, packet: CommandPacket) -> int | None:
    """The thread of a Resume that waits for no reply from the agent (the façade's ``posts_resume``),
    or None: the command goes on to ``reply_body`` or the ordinary way."""
    vm: Any = session.vm
    if ((packet.command_set, packet.command) != RESUME or vm.read_only or vm.id_sizes != _EIGHT_BYTE_IDS
            or len(packet.data) != _ID.size):
        return None
    (thread,) = _ID.unpack(packet.data)
    return thread if vm.posts_resume(session, thread) else None


async def post_resume(session: Session, thread: int) -> None:
    """``resume_to_post``'s resume, done: posted to the agent, counted, the session's gate opened."""
    vm: Any = session.vm
    await vm.post_resume(session, thread)
    debugger_resumed(session)
