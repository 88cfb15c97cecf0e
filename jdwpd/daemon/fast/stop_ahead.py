"""A stop's answers read ahead: link requests answered from what was read at the stop, until a
request or an event that may change what the agent would answer.

One structure for both places that read ahead at stops: the daemon's own link
(jdwpd/daemon/link/agent_link.py: the stop's first reads go out with the event, before a debugger asks;
jdwpd/remote/prefetch.py plans them) and the remote near side (jdwpd/remote/relay.py: the far side's
STOP_BUNDLE).  Entries are (kind, request body, status, reply body) as the agent answered them;
answers are byte for byte the agent's:

- exactly by request bytes;
- locals and fields value by value (a debugger may ask any subset of a frame's slots or an object's
  fields, in any order: the agent reads each by slot or field and tag);
- THREAD_FRAME_COUNT and THREAD_FRAMES of any range from a whole stack (THREAD_FRAMES 0, -1), for
  a range within the stack (the agent's own error answers are left to the agent).

Sans I/O: no trio, no sockets.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from protocol import link as L
from protocol.pushed_stop import PushedStopError
from protocol.pushed_stop import split_values as split_tagged_values

# The link's requests and replies read ahead at a stop, by their bytes (protocol/link.py's layouts);
# the façade's answers from them (facade/frames.py) use the same.
GET_LOCALS = L.BY_NAME["FRAME_GET_LOCALS"].kind
_GET_FIELDS = L.BY_NAME["OBJECT_GET_FIELDS"].kind
FRAMES = L.BY_NAME["THREAD_FRAMES"].kind
FRAME_COUNT = L.BY_NAME["THREAD_FRAME_COUNT"].kind
_VALUES = struct.Struct(">I")
ID = struct.Struct(">Q")  # a thread's or an object's id
FRAMES_REQ = struct.Struct(">Qii")  # thread, start, length
LINK_LOCATION = struct.Struct(">QBQq")  # a THREAD_FRAMES frame: class, ref kind, method, index
GENERATION = struct.Struct(">q")  # after a THREAD_FRAMES reply's frames
COUNT = struct.Struct(">i")
LOCALS_REQ = struct.Struct(">QiI")  # thread, depth, slots
_FIELDS_REQ = struct.Struct(">QI")  # object, fields
SLOT = struct.Struct(">iB")
_FIELD = struct.Struct(">QB")

Entry = tuple[int, bytes, int, bytes]


_STOP_READS = L.BY_NAME["STOP_READS"]
_STOP_READS_HEAD = struct.Struct(">QqI")  # thread, done, the frames' length
_TOP_LOCALS = struct.Struct(">Qi")  # FRAME_GET_LOCALS' thread and depth 0, before its slots


def stop_reads(body: bytes) -> tuple[int, int, int, list[Entry]]:
    """A STOP_READS frame (the agent's reads in the event's callback, agent/stop_reads.c): its thread,
    the id of the last request the agent had run before it read, the thread's suspend count, and the
    reads as the entries of THREAD_FRAMES(thread, 0, -1) and FRAME_GET_LOCALS(thread, 0, slots).
    LinkError if malformed."""
    fields = L.decode_body(_STOP_READS.request, body, "STOP_READS")
    thread = fields["thread"]
    entries = [(FRAMES, FRAMES_REQ.pack(thread, 0, -1), 0, fields["frames"]),
               (GET_LOCALS, _TOP_LOCALS.pack(thread, 0) + fields["slots"], 0, fields["values"])]
    return thread, fields["done"], fields["suspend_count"], entries


def invalidates(kind: int) -> bool:
    """May this request change an answer read ahead?  Unknown kinds may."""
    spec = L.MESSAGES.get(kind)
    if spec is None:
        return True
    return spec.thaws or spec.suspends or spec.name == "RELEASE_IDS"


class StopAnswers:
    """A stop's answers: by request bytes, value by value, and stacks by range."""

    __slots__ = ("exact", "values", "stacks")

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self.exact: dict[tuple[int, bytes], tuple[int, bytes]] = {}
        self.values: dict[tuple, dict[tuple[int, int], bytes]] = {}
        self.stacks: dict[int, tuple[int, bytes, bytes]] = {}  # thread -> (count, frames' bytes, generation)
        for entry in entries:
            self.add(*entry)

    def add(self, kind: int, request: bytes, status: int, reply: bytes) -> None:
        self.exact[(kind, request)] = (status, reply)
        if status != 0:
            return
        if kind in (GET_LOCALS, _GET_FIELDS):
            key, pairs = _value_request(kind, request)
            table = self.values.setdefault(key, {})
            for pair, value in zip(pairs, split_values(reply, kind), strict=True):
                table[pair] = value
        elif kind == FRAMES and len(request) == FRAMES_REQ.size:
            thread, start, length = FRAMES_REQ.unpack(request)
            if start == 0 and length == -1 and len(reply) >= 12:
                (count,) = COUNT.unpack_from(reply, 0)
                if len(reply) == COUNT.size + count * LINK_LOCATION.size + GENERATION.size:
                    self.stacks[thread] = (count, reply[4:-8], reply[-8:])

    def __bool__(self) -> bool:
        return bool(self.exact)

    def answer(self, kind: int, request: bytes) -> tuple[int, bytes] | None:
        """(status, reply body) as the agent would answer now, or None: ask the agent."""
        hit = self.exact.get((kind, request))
        if hit is not None:
            return hit
        if kind == FRAME_COUNT:
            if len(request) == 8:
                stack = self.stacks.get(ID.unpack(request)[0])
                if stack is not None:
                    return 0, COUNT.pack(stack[0])
            return None
        if kind == FRAMES:
            if len(request) != FRAMES_REQ.size:
                return None
            thread, start, length = FRAMES_REQ.unpack(request)
            stack = self.stacks.get(thread)
            if stack is None:
                return None
            count, frames, generation = stack
            if length == -1:
                length = count - start
            if start < 0 or length <= 0 or start + length > count:
                return None  # the agent's answer (an error, or none), not ours to guess
            body = frames[start * LINK_LOCATION.size:(start + length) * LINK_LOCATION.size]
            return 0, COUNT.pack(length) + body + generation
        if kind not in (GET_LOCALS, _GET_FIELDS) or not self.values:
            return None
        try:
            key, pairs = _value_request(kind, request)
        except L.LinkError:
            return None
        table = self.values.get(key)
        if table is None or any(p not in table for p in pairs):
            return None
        return 0, _VALUES.pack(len(pairs)) + b"".join(table[p] for p in pairs)


def source_key(kind: int, request: bytes) -> tuple | None:
    """What a request is answered from besides its own bytes: a whole stack ("stack", thread), a
    frame's locals ("frame", thread, depth) or an object's fields ("object", object); None if only its
    bytes answer it.  A read ahead with the same key answers it once in (if it holds what is asked)."""
    try:
        if kind in (FRAMES, FRAME_COUNT):
            return ("stack", ID.unpack_from(request, 0)[0]) if len(request) >= 8 else None
        if kind in (GET_LOCALS, _GET_FIELDS):
            return _value_request(kind, request)[0]
    except (L.LinkError, struct.error):
        return None
    return None


def _value_request(kind: int, request: bytes) -> tuple[tuple, list[tuple[int, int]]]:
    """What a FRAME_GET_LOCALS or OBJECT_GET_FIELDS asks: (("frame", thread, depth) or ("object",
    object), [(slot or field, tag), ...]); LinkError for a body that is not one."""
    try:
        if kind == GET_LOCALS:
            thread, depth, n = LOCALS_REQ.unpack_from(request, 0)
            if len(request) == LOCALS_REQ.size + n * SLOT.size:
                return ("frame", thread, depth), list(SLOT.iter_unpack(request[LOCALS_REQ.size:]))
        else:
            obj, n = _FIELDS_REQ.unpack_from(request, 0)
            if len(request) == _FIELDS_REQ.size + n * _FIELD.size:
                return ("object", obj), list(_FIELD.iter_unpack(request[_FIELDS_REQ.size:]))
    except struct.error:
        pass
    fields = L.decode_request(kind, request)  # says what is wrong (LinkError), or reads what the above could not
    if kind == GET_LOCALS:
        return ("frame", fields["thread"], fields["depth"]), [(s["slot"], s["tag"]) for s in fields["slots"]]
    return ("object", fields["object"]), [(f["field"], f["tag"]) for f in fields["fields"]]


def split_values(reply: bytes, kind: int = GET_LOCALS) -> list[bytes]:
    """Each value of a FRAME_GET_LOCALS or OBJECT_GET_FIELDS reply, as its bytes (tag first): split as
    a JDWP GetValues reply is (the same layout), else decoded by the schema, which says what is wrong."""
    try:
        return split_tagged_values(reply)
    except PushedStopError:
        return [L.encode_value(v["value"]) for v in L.decode_reply(kind, reply)["values"]]
