"""Link values and objects as JDWP's, made once (facade/values.py) for replies and events alike.

The reference tags a null OBJECT, but where it writes a value by its declared type
(outStream_writeValue: MethodExitWithReturnValue's value, FieldModification's value to be) a null
of an array type keeps ARRAY; a null object of an event (writeObjectTag) is OBJECT with id 0.
"""

import pytest

from jdwpd.daemon.events import route
from jdwpd.daemon.facade.values import tagged, to_jdwp
from jdwpd.daemon.model.requests import RequestTable
from protocol.constants import EventKind, Tag
from protocol.link import LinkLocation, LinkValue, Tagged
from protocol.wire import TaggedObjectID, Value

L, ARRAY, STRING, VOID = int(Tag.OBJECT), int(Tag.ARRAY), int(Tag.STRING), int(Tag.VOID)
LOC = LinkLocation(1, 100, 200, 7)


@pytest.mark.parametrize("by_declared_type", [False, True])
def test_objects_keep_their_kind_and_primitives_their_tag(by_declared_type):
    for v, want in [(LinkValue(STRING, 5), Value(STRING, 5)), (LinkValue(ARRAY, 6), Value(ARRAY, 6)),
                    (LinkValue(ord("I"), -3), Value(ord("I"), -3)), (LinkValue(ord("Z"), True), Value(ord("Z"), True)),
                    (LinkValue(VOID, None), Value(VOID, None)), (LinkValue(L, 0), Value(L, 0))]:
        assert to_jdwp(v, by_declared_type=by_declared_type) == want


def test_a_null_read_is_tagged_object_whatever_its_type():
    assert to_jdwp(LinkValue(ARRAY, 0)) == Value(L, 0)
    assert to_jdwp(LinkValue(STRING, 0)) == Value(L, 0)


def test_a_null_written_by_its_declared_array_type_keeps_array():
    assert to_jdwp(LinkValue(ARRAY, 0), by_declared_type=True) == Value(ARRAY, 0)
    assert to_jdwp(LinkValue(STRING, 0), by_declared_type=True) == Value(L, 0)


def test_a_null_tagged_object_is_object_zero():
    assert tagged(None) == tagged(Tagged(ARRAY, 0)) == TaggedObjectID(L, 0)
    assert tagged(Tagged(STRING, 9)) == TaggedObjectID(STRING, 9)


def _one_event(kind: EventKind, data: dict):
    table = RequestTable()
    request = table.new_request("a", kind, 0)
    table.add(request)
    hit = {"request_id": request.agent_id, "event_kind": int(kind), "data": data}
    return route({"thread": 3, "suspend_policy": 0, "hits": [hit]}, table).composites[0].events[0]


def test_events_follow_the_same_rules():
    e = _one_event(EventKind.FIELD_MODIFICATION, {"location": LOC, "ref_kind": 1, "ref": 100, "field": 8,
                                                  "object": Tagged(L, 0), "value": LinkValue(ARRAY, 0)})
    assert e.object == TaggedObjectID(L, 0)  # a static field's: no object
    assert e.value_to_be == Value(ARRAY, 0)  # null assigned to an int[] field
    e = _one_event(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, {"location": LOC, "value": LinkValue(L, 0)})
    assert e.value == Value(L, 0)
    e = _one_event(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, {"location": LOC, "value": LinkValue(VOID, None)})
    assert e.value == Value(VOID, None)
    e = _one_event(EventKind.FIELD_ACCESS, {"location": LOC, "ref_kind": 1, "ref": 100, "field": 8,
                                            "object": Tagged(STRING, 12)})
    assert e.object == TaggedObjectID(STRING, 12)
