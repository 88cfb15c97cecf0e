"""What to read at a stop, before a debugger asks: one plan for the daemon's own link (jdwpd/daemon/vm.py,
through ``AgentLink.ahead_send``) and the remote far side (jdwpd/remote/prefetch.py, whose reads go
to the near side in one STOP_BUNDLE).

After a stop, debuggers ask the same things, one round trip each (the IDE waterfall,
bench/remote_java/client/IdeWaterfall.java; a script's logpoint: the top frame and its locals):
the stopped thread's frames, the top frames' visible locals and ``this``, and at a stop of every
thread also every thread's name and state, ``this``'s fields, each object's type, strings' text,
arrays' lengths, and the class facts those need once.  They are read here in a few batches of
link requests (each one write, one round trip), the first sent before the event is delivered:
the stack, ``this`` and (from the event's location and a variable table read before) the top
frame's locals.  A stop of one thread reads what only that thread's suspension keeps still (its
frames, locals and ``this``): its other threads run, so fields and thread states are left to ask.

Requests have the bodies the daemon sends; locals and fields are answered by slot and by field
(jdwpd/daemon/fast/stop_ahead.py).  Sans I/O: ``raw_ask`` does the asking.
"""

from __future__ import annotations

import struct
from collections.abc import Awaitable, Callable
from typing import Any

from protocol import link as L

from .stop_ahead import Entry

TOP_FRAMES = 3  # frames whose locals and `this` are read (an IDE shows the top one, JDI users read a few)
READ_LOCALS = True  # a switch for A/B runs
MAX_OBJECTS = 64  # objects among those values whose type, text or length is read
_STATIC = 0x0008
_FACTS = frozenset(L.BY_NAME[n].kind for n in ("METHOD_VARIABLE_TABLE", "CLASS_FIELDS", "CLASS_SUPERCLASS",
                                                "CLASS_SIGNATURE", "CLASS_SOURCE_DEBUG_EXTENSION"))
_VARIABLE_TABLE = L.BY_NAME["METHOD_VARIABLE_TABLE"]
_STRING = ord("s")
_ARRAY = ord("[")
_OBJECT_TAGS = L.OBJECT_TAGS
_PRIMITIVE = frozenset("ZBCSIJFD")
# events whose location is the stopped thread's top frame's
_AT_TOP = frozenset((1, 2, 4, 20, 21, 40))


def facts_only(requests: list[tuple[str, dict]]) -> bool:
    """Only immutable class facts: read whatever changed meanwhile."""
    return all(L.BY_NAME[name].kind in _FACTS for name, _ in requests)


class Facts:
    """Immutable class facts read at stops (replies by request bytes), and which were handed on."""

    def __init__(self) -> None:
        self.replies: dict[tuple[int, bytes], tuple[int, bytes]] = {}
        self.sent: set[tuple[int, bytes]] = set()
        self._tables: dict[int, dict] = {}  # method -> its variable table, decoded once
        self._primitive_slots: dict[tuple[int, int], bytes] = {}  # (method, index) -> a locals read's slots
        self.armed: set[tuple[int, int]] = set()  # places whose stops the agent reads itself (ARM_READS)

    def variable_table(self, method: int) -> dict | None:
        table = self._tables.get(method)
        if table is not None:
            return table
        known = self.replies.get((_VARIABLE_TABLE.kind, _ID.pack(method)))
        if known is None or known[0] != 0:
            return None
        table = self._tables[method] = L.decode_reply(_VARIABLE_TABLE.kind, known[1])
        return table

    def primitive_slots(self, method: int, index: int) -> bytes | None:
        """The slots part (count, then slot and tag each) of a FRAME_GET_LOCALS of the variables of
        primitive types visible at (method, index); None while the method's variable table is not known."""
        key = (method, index)
        slots = self._primitive_slots.get(key)
        if slots is None:
            table = self.variable_table(method)
            if table is None:
                return None
            visible = _visible(table, index, objects=False)
            slots = self._primitive_slots[key] = _U32.pack(len(visible)) + b"".join(
                _SLOT.pack(v["slot"], v["tag"]) for v in visible)
        return slots


_ID = struct.Struct(">Q")
_U32 = struct.Struct(">I")
_SLOT = struct.Struct(">iB")
_WHOLE_STACK = struct.Struct(">Qii")
_TOP_LOCALS = struct.Struct(">Qi")
_THREAD_FRAMES = L.BY_NAME["THREAD_FRAMES"].kind
_THREAD_STATUS = L.BY_NAME["THREAD_STATUS"].kind
_FRAME_GET_LOCALS = L.BY_NAME["FRAME_GET_LOCALS"].kind


def quick_reads(facts: Facts, event: dict) -> list[tuple[int, bytes]] | None:
    """A stop of one thread whose top frame's variable table is known (from an earlier stop there):
    (kind, request body) of every read ``read_stop(whole_vm=False, objects=False)`` would make, all in
    its first batch, encoded here without the schema's codec (this is a logpoint's every hit); None
    if ``read_stop`` must plan it."""
    top = stop_location(event)
    if top is None or not top.method or not READ_LOCALS:
        return None
    slots = facts.primitive_slots(top.method, top.index)
    if slots is None:
        return None
    thread = event["thread"]
    reads = [(_THREAD_FRAMES, _WHOLE_STACK.pack(thread, 0, -1)), (_THREAD_STATUS, _ID.pack(thread))]
    if len(slots) > 4:
        reads.append((_FRAME_GET_LOCALS, _TOP_LOCALS.pack(thread, 0) + slots))
    return reads


def arm_reads(facts: Facts, event: dict) -> dict[str, Any] | None:
    """ARM_READS' fields for this stop's place, once a place (and Facts), where its slots are known:
    the agent then reads what ``quick_reads`` would ask, stack and locals, at the event itself
    (agent/stop_reads.c)."""
    top = stop_location(event)
    if top is None or not top.method or not READ_LOCALS:
        return None
    key = (top.method, top.index)
    if key in facts.armed:
        return None
    slots = facts.primitive_slots(*key)
    if slots is None:
        return None
    facts.armed.add(key)
    return {"method": top.method, "index": top.index,
            "slots": [{"slot": slot, "tag": tag} for slot, tag in _SLOT.iter_unpack(slots[_U32.size:])]}


RawAsk = Callable[[list[tuple[str, dict]]], Awaitable[list[Entry]]]


class StopReader:
    """One stop's reads: ``ask`` answers facts from memory, the rest through ``raw_ask``; ``entries``
    is what was read (facts once per Facts)."""

    def __init__(self, raw_ask: RawAsk, facts: Facts) -> None:
        self.raw_ask = raw_ask
        self.facts = facts
        self.entries: list[Entry] = []

    async def ask(self, requests: list[tuple[str, dict]]) -> list[dict | None]:
        """Decoded replies (None for an error)."""
        out: list[Any] = [None] * len(requests)
        todo = []
        for i, (name, fields) in enumerate(requests):
            spec = L.BY_NAME[name]
            key = (spec.kind, L.encode_body(spec.request, fields))
            known = self.facts.replies.get(key)
            if known is not None:
                self._fact(key, known)
                out[i] = L.decode_reply(spec.kind, known[1]) if known[0] == 0 else None
            else:
                todo.append((i, name, fields))
        if todo:
            got = await self.raw_ask([(name, fields) for _, name, fields in todo])
            for (i, _, _), (kind, body, status, reply) in zip(todo, got, strict=True):
                if kind in _FACTS:
                    self.facts.replies[(kind, body)] = (status, reply)
                    self._fact((kind, body), (status, reply))
                else:
                    self.entries.append((kind, body, status, reply))
                out[i] = L.decode_reply(kind, reply) if status == 0 else None
        return out

    def _fact(self, key: tuple[int, bytes], answer: tuple[int, bytes]) -> None:
        if key not in self.facts.sent:
            self.facts.sent.add(key)
            self.entries.append((key[0], key[1], answer[0], answer[1]))


def stop_location(event: dict) -> L.LinkLocation | None:
    """The stopped thread's top frame's location, if the event says it."""
    for hit in event["hits"]:
        if hit["event_kind"] in _AT_TOP:
            return (hit["data"] or {}).get("location")
    return None


def _visible(table: dict, index: int, objects: bool = True) -> list[dict]:
    """The slots of the variables visible at ``index`` (of primitive types only, unless ``objects``)."""
    return [{"slot": v["slot"], "tag": ord(v["signature"][0])} for v in table["variables"]
            if v["start"] <= index < v["start"] + v["length"] and (objects or v["signature"][0] in _PRIMITIVE)]


async def read_stop(stop: StopReader, event: dict, *, whole_vm: bool = True, objects: bool = True) -> list[Entry]:
    """Read what debuggers ask after this stop; ``whole_vm``: every thread is suspended.

    ``objects`` False: nothing is read that hands out an object id the debugger did not see yet
    (``this``, locals of a reference type, fields, strings, types): the agent would make the id at
    the read, and at a stop of every thread hold its object strongly until the resume, so that the
    heap's answers (ReferringObjects, InstanceCounts) and the ids' order would differ from a
    debugger's own reads.  What is left holds only primitives, stacks (whose classes are live
    anyway) and thread states."""
    thread = event["thread"]
    first_reads: list[tuple[str, dict]] = [("THREAD_FRAMES", {"thread": thread, "start": 0, "length": -1})]
    if objects:
        first_reads += [("FRAME_THIS", {"thread": thread, "depth": d}) for d in range(TOP_FRAMES)]
    if not whole_vm:
        first_reads.append(("THREAD_STATUS", {"thread": thread}))  # parked: still until something is sent
    if whole_vm:
        first_reads.insert(0, ("ALL_THREADS", {}))
    top = stop_location(event)
    top_table = stop.facts.variable_table(top.method) if top is not None and top.method else None
    top_slots = _visible(top_table, top.index, objects) if top is not None and top_table and READ_LOCALS else []
    read_top = bool(top_slots)
    if read_top:
        first_reads.append(("FRAME_GET_LOCALS", {"thread": thread, "depth": 0, "slots": top_slots}))
    elif top is not None and top.method and top_table is None and READ_LOCALS:
        # learnt now, for the next stops here (a fact: it holds whatever the debugger does meanwhile)
        first_reads.append(("METHOD_VARIABLE_TABLE", {"method": top.method}))
    first = await stop.ask(first_reads)
    if whole_vm:
        all_threads, first = first[0], first[1:]
        threads = [t["thread"] for t in (all_threads or {}).get("threads", [])]
    else:
        threads = []
    frames = (first[0] or {}).get("frames", [])[:TOP_FRAMES]
    thises = [(r or {}).get("object") for r in first[1:1 + len(frames)]] if objects else []
    this_ids = sorted({t.object for t in thises if t is not None and t.object}) if whole_vm else []
    if (read_top and top is not None and frames
            and (frames[0]["method"], frames[0]["index"]) != (top.method, top.index)):
        read_top = False  # the event's place is not the top frame's after all
    values: list[dict | None] = [first[-1]] if read_top else []
    if not whole_vm and (read_top or not READ_LOCALS or (top_table is not None and not top_slots)):
        return stop.entries  # what a stop of one thread is asked first is read

    methods = sorted({f["method"] for f in frames if f["method"]})
    if not whole_vm:
        methods = methods[:1] if frames and frames[0]["method"] else []
        frames = frames[:1]
    second = await stop.ask([*[(n, {"thread": t}) for t in threads for n in ("THREAD_INFO", "THREAD_STATUS")],
                             *[("METHOD_VARIABLE_TABLE", {"method": m}) for m in methods],
                             *[("OBJECT_TYPE", {"object": o}) for o in this_ids]])
    tables = dict(zip(methods, second[2 * len(threads):2 * len(threads) + len(methods)], strict=True))
    this_class = dict(zip(this_ids, [(r or {}).get("ref") for r in second[2 * len(threads) + len(methods):]],
                          strict=True))
    fields = {o: await _instance_fields(stop, c) for o, c in this_class.items() if c}
    reads: list[tuple[str, dict]] = []
    for depth, frame in enumerate(frames):
        table = tables.get(frame["method"])
        if table is None or (depth == 0 and read_top):
            continue
        slots = _visible(table, frame["index"], objects)
        if slots and READ_LOCALS:
            reads.append(("FRAME_GET_LOCALS", {"thread": thread, "depth": depth, "slots": slots}))
    for obj, pairs in fields.items():
        if pairs:
            reads.append(("OBJECT_GET_FIELDS", {"object": obj, "fields": pairs}))
    values += await stop.ask(reads)
    if not whole_vm or not objects:
        return stop.entries
    seen: list[int] = []
    for reply in values:
        for item in (reply or {}).get("values", []):
            v = item["value"]
            if v.tag in _OBJECT_TAGS and v.value and v.value not in seen:
                seen.append(v.value)
    seen = seen[:MAX_OBJECTS]
    types = await stop.ask([("OBJECT_TYPE", {"object": o}) for o in seen])
    more: list[tuple[str, dict]] = []
    for obj, t in zip(seen, types, strict=True):
        if t is None:
            continue
        if t["kind"] == _STRING:
            more.append(("STRING_VALUE", {"string": obj}))
        elif t["kind"] == _ARRAY:
            more.append(("ARRAY_LENGTH", {"array": obj}))
        more.append(("CLASS_SIGNATURE", {"ref": t["ref"]}))
    await stop.ask(more)
    return stop.entries


async def _instance_fields(stop: StopReader, ref: int) -> list[dict]:
    """(field, tag) of every instance field of class ``ref`` and its superclasses (facts, read once)."""
    pairs: list[dict] = []
    seen = 0
    while ref and seen < 32:
        seen += 1
        declared, superclass = await stop.ask([("CLASS_FIELDS", {"ref": ref}), ("CLASS_SUPERCLASS", {"ref": ref})])
        for f in (declared or {}).get("fields", []):
            if not f["modifiers"] & _STATIC:
                pairs.append({"field": f["field"], "tag": ord(f["signature"][0])})
        ref = (superclass or {}).get("superclass", 0)
    return pairs
