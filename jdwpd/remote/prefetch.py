"""What the far side reads at a stop, next to the agent, so that the near side need not ask across.

After a stop that suspended every thread, debuggers ask the same things, one round trip each (the IDE
waterfall, bench/remote_java/client/IdeWaterfall.java): every thread's name and state, the stopped
thread's frames, the top frames' visible locals, `this` and its fields, each object's type, strings'
text, arrays' lengths, and the class facts those need once.  Here those are read in a few local
round trips (each a batch of requests) and sent as one STOP_BUNDLE with the stop
(protocol/remote.py).  Requests are the agent-link requests the daemon makes, with the same bodies;
locals and fields are answered by slot and by field (``SlotValues``), whatever subset or order the
debugger asks for.

Everything read is what the agent answers at this moment, with every thread suspended: nothing can
change it until the near side sends a request that may (the near side then drops the bundle).  Class
facts never change for a class id (an unloaded class's CLASS_UNLOADED drops the bundle too) and are
sent once per near side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol import link as L

if TYPE_CHECKING:
    from .relay import FarRelay

TOP_FRAMES = 3  # frames whose locals and `this` are read (an IDE shows the top one, JDI users read a few)
# The stopped thread's visible locals of the top frames (an IDE shows them at once); a switch for A/B runs.
READ_LOCALS = True
MAX_OBJECTS = 64  # objects among those values whose type, text or length is read
_STATIC = 0x0008
_FACTS = frozenset(L.BY_NAME[n].kind for n in ("METHOD_VARIABLE_TABLE", "CLASS_FIELDS", "CLASS_SUPERCLASS",
                                                "CLASS_SIGNATURE", "CLASS_SOURCE_DEBUG_EXTENSION"))
_STRING = ord("s")
_ARRAY = ord("[")
_OBJECT_TAGS = L.OBJECT_TAGS


class FarFacts:
    """Immutable class facts this far side read (decoded), and which of them the near side has."""

    def __init__(self) -> None:
        self.replies: dict[tuple[int, bytes], tuple[int, bytes]] = {}
        self.sent: set[tuple[int, bytes]] = set()


Entry = tuple[int, bytes, int, bytes]


class _Stop:
    def __init__(self, relay: FarRelay) -> None:
        self.relay = relay
        self.facts = relay.facts
        self.entries: list[Entry] = []

    async def ask(self, requests: list[tuple[str, dict]]) -> list[dict | None]:
        """Decoded replies (None for an error); facts from this side's memory when it has them."""
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
            got = await self.relay.ask([(name, fields) for _, name, fields in todo])
            for (i, _, _), (kind, body, status, reply) in zip(todo, got, strict=True):
                if kind in _FACTS:
                    self.facts.replies[(kind, body)] = (status, reply)
                    self._fact((kind, body), (status, reply))
                elif status == 0:
                    self.entries.append((kind, body, status, reply))
                out[i] = L.decode_reply(kind, reply) if status == 0 else None
        return out

    def _fact(self, key: tuple[int, bytes], answer: tuple[int, bytes]) -> None:
        if key not in self.facts.sent:
            self.facts.sent.add(key)
            self.entries.append((key[0], key[1], answer[0], answer[1]))


async def read_stop(relay: FarRelay, event: dict) -> list[Entry]:
    stop = _Stop(relay)
    thread = event["thread"]
    first = await stop.ask([("ALL_THREADS", {}), ("THREAD_FRAMES", {"thread": thread, "start": 0, "length": -1}),
                            *[("FRAME_THIS", {"thread": thread, "depth": d}) for d in range(TOP_FRAMES)]])
    threads = [t["thread"] for t in (first[0] or {}).get("threads", [])]
    frames = (first[1] or {}).get("frames", [])[:TOP_FRAMES]
    thises = [(r or {}).get("object") for r in first[2:2 + len(frames)]]
    this_ids = sorted({t.object for t in thises if t is not None and t.object})

    methods = sorted({f["method"] for f in frames if f["method"]})
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
        if table is None:
            continue
        slots = [{"slot": v["slot"], "tag": ord(v["signature"][0])} for v in table["variables"]
                 if v["start"] <= frame["index"] < v["start"] + v["length"]]
        if slots and READ_LOCALS:
            reads.append(("FRAME_GET_LOCALS", {"thread": thread, "depth": depth, "slots": slots}))
    for obj, pairs in fields.items():
        if pairs:
            reads.append(("OBJECT_GET_FIELDS", {"object": obj, "fields": pairs}))
    values = await stop.ask(reads)
    objects: list[int] = []
    for reply in values:
        for item in (reply or {}).get("values", []):
            v = item["value"]
            if v.tag in _OBJECT_TAGS and v.value and v.value not in objects:
                objects.append(v.value)
    objects = objects[:MAX_OBJECTS]
    types = await stop.ask([("OBJECT_TYPE", {"object": o}) for o in objects])
    more: list[tuple[str, dict]] = []
    for obj, t in zip(objects, types, strict=True):
        if t is None:
            continue
        if t["kind"] == _STRING:
            more.append(("STRING_VALUE", {"string": obj}))
        elif t["kind"] == _ARRAY:
            more.append(("ARRAY_LENGTH", {"array": obj}))
        more.append(("CLASS_SIGNATURE", {"ref": t["ref"]}))
    await stop.ask(more)
    return stop.entries


async def _instance_fields(stop: _Stop, ref: int) -> list[dict]:
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
