"""protocol.object_ids: the object IDs a reply or an event composite sends (what DisposeObjects counts)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jdwp_strategies import SIZES, instances

from protocol import messages, spec
from protocol.constants import OBJECT_TAGS, Tag
from protocol.messages import Events
from protocol.object_ids import composite_ids, reply_ids
from protocol.wire import ArrayRegion, Location, TaggedObjectID, Value

REPLIES = [cs for cs in spec.COMMANDS.values()]
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _oracle(obj, fields) -> list[int]:
    """An independent walk over canonical message instances only (what the decoders produce)."""
    out: list[int] = []
    for f in fields:
        v = getattr(obj, f.name)
        if isinstance(f, spec.Field):
            if spec.ID_TYPES.get(f.type) in ("object_id", "reference_type_id"):
                out += [v] if v else []
            elif f.type == "location":
                out += [v.class_id] if v.class_id else []
            elif f.type == "tagged-object":
                out += [v.object_id] if v.object_id else []
            elif f.type == "value":
                out += [v.value] if v.tag in OBJECT_TAGS and v.value else []
            elif f.type == "typed-sequence" and v.tag in OBJECT_TAGS:
                out += [e.value for e in v.values if e.value]
        elif isinstance(f.item, (spec.Group, spec.Select)):
            for item in v:
                out += _oracle(item, type(item).__jdwp_fields__)
    return out


@pytest.mark.parametrize("cs", REPLIES, ids=[c.label for c in REPLIES])
@FAST
@given(data=st.data())
def test_every_reply_layout(cs, data):
    cls = messages.reply_class(cs)
    msg = data.draw(instances(cls, SIZES[0]))
    want = _oracle(msg, cls.__jdwp_fields__)
    assert reply_ids(cs, msg) == want
    # The forms the encoders take give the same IDs: a Mapping and a tuple of the top-level fields.
    names = [f.name for f in cls.__jdwp_fields__]
    assert reply_ids(cs, {n: getattr(msg, n) for n in names}) == want
    assert reply_ids(cs, tuple(getattr(msg, n) for n in names)) == want


def test_the_forms_handlers_use():
    frames = spec.by_name("ThreadReference", "Frames")
    reply = {"frames": [{"frame_id": 1, "location": Location(1, 70, 5, 0)},
                        {"frame_id": 2, "location": {"type_tag": 1, "class_id": 71, "method_id": 5, "index": 3}},
                        (3, (1, 0, 5, 0))]}
    assert reply_ids(frames, reply) == [70, 71]
    values = spec.by_name("StackFrame", "GetValues")
    assert reply_ids(values, {"values": [Value(Tag.OBJECT, 9), (Tag.INT, 9), {"tag": Tag.STRING, "value": 8},
                                         Value(Tag.OBJECT, 0)]}) == [9, 8]
    threads = spec.by_name("VirtualMachine", "AllThreads")
    assert reply_ids(threads, {"threads": [5, {"thread": 6}, (7,)]}) == [5, 6, 7]
    monitor = spec.by_name("ThreadReference", "CurrentContendedMonitor")
    assert reply_ids(monitor, {"monitor": TaggedObjectID(Tag.OBJECT, 4)}) == [4]
    assert reply_ids(monitor, {"monitor": (Tag.OBJECT, 0)}) == []
    region = spec.by_name("ArrayReference", "GetValues")
    assert reply_ids(region, {"values": ArrayRegion(Tag.OBJECT, (Value(Tag.STRING, 3), Value(Tag.ARRAY, 0)))}) == [3]
    assert reply_ids(region, {"values": ArrayRegion(Tag.INT, (1, 2))}) == []
    # Replies that can hold no object ID answer at once.
    assert reply_ids(spec.by_name("ThreadReference", "Name"), {"thread_name": "x"}) == []
    assert reply_ids(spec.by_name("VirtualMachine", "IDSizes"), None) == []


def test_events():
    loc = Location(1, 30, 7, 2)
    events = [
        Events.VMStart(request_id=0, thread=1),
        Events.Breakpoint(request_id=2, thread=1, location=loc),
        Events.Exception(request_id=3, thread=1, location=loc, exception=TaggedObjectID(Tag.OBJECT, 40),
                         catch_location=Location(1, 31, 7, 9)),
        Events.ClassPrepare(request_id=4, thread=1, ref_type_tag=1, type_id=50, signature="LX;", status=7),
        Events.MethodExitWithReturnValue(request_id=5, thread=1, location=loc, value=Value(Tag.STRING, 60)),
        Events.VMDeath(request_id=0),
    ]
    assert composite_ids(events) == [1, 1, 30, 1, 30, 40, 31, 1, 50, 1, 30, 60]
    # Mappings with event_kind, as encode_composite takes them.
    assert composite_ids([{"event_kind": 90, "request_id": 0, "thread": 8}]) == [8]


@FAST
@given(data=st.data())
def test_every_event_kind(data):
    sel = spec.EVENT_SELECT
    for alt in sel.alts:
        cls = messages.ALTERNATIVE_CLASSES[(sel.name, alt.kind)]
        ev = data.draw(instances(cls, SIZES[1]))
        assert composite_ids([ev]) == _oracle(ev, cls.__jdwp_fields__), alt.name
