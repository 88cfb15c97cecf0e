"""Values, locations, array regions, untagged values, composite events and modifiers, by hand."""

from __future__ import annotations

import math

import pytest

from protocol import (
    ArrayRegion,
    EncodeError,
    IDSizes,
    Location,
    RawValues,
    Reader,
    TaggedObjectID,
    Value,
    Writer,
    by_name,
    decode_command,
    decode_composite,
    decode_reply,
    decode_untagged_values,
    encode_command,
    encode_composite,
    encode_reply,
    messages,
    modifiers,
)
from protocol.constants import EventKind, ModKind, SuspendPolicy, Tag

S4 = IDSizes(4, 4, 4, 4, 4)
LOC = Location(1, 0x1122334455667788, 0x99, 7)


def test_values_with_each_tag():
    get = by_name("ReferenceType", "GetValues")
    vals = [
        Value(Tag.BYTE, -1),
        Value(Tag.CHAR, 0xFFFF),
        Value(Tag.FLOAT, 1.5),
        Value(Tag.DOUBLE, -2.25),
        Value(Tag.INT, -(2**31)),
        Value(Tag.LONG, 2**63 - 1),
        Value(Tag.SHORT, -2),
        Value(Tag.BOOLEAN, True),
        Value(Tag.VOID, None),
        Value(Tag.OBJECT, 0),
        Value(Tag.STRING, 5),
        Value(Tag.ARRAY, 6),
        Value(Tag.THREAD, 7),
        Value(Tag.THREAD_GROUP, 8),
        Value(Tag.CLASS_LOADER, 9),
        Value(Tag.CLASS_OBJECT, 10),
    ]
    body = encode_reply(get, {"values": vals})
    assert body[:4] == b"\x00\x00\x00\x10"
    assert body[4:6] == b"B\xff"
    assert body[6:9] == b"C\xff\xff"
    back = decode_reply(get, body)
    assert [v.value for v in back.values] == vals
    assert decode_reply(get, encode_reply(get, {"values": vals}, S4), S4).values == back.values
    assert len(encode_reply(get, {"values": [Value(Tag.OBJECT, 1)]}, S4)) == 4 + 1 + 4


def test_nan_survives_as_bytes():
    get = by_name("ReferenceType", "GetValues")
    body = b"\x00\x00\x00\x01D\x7f\xf8\x00\x00\x00\x00\x00\x01"
    v = decode_reply(get, body).values[0].value
    assert math.isnan(v.value)
    assert encode_reply(get, decode_reply(get, body)) == body


def test_location_layout():
    frames = by_name("ThreadReference", "Frames")
    body = encode_reply(frames, {"frames": [{"frame_id": 3, "location": LOC}]})
    assert (
        body
        == (
            b"\x00\x00\x00\x01"
            + b"\x00" * 7
            + b"\x03"
            + b"\x01"
            + bytes.fromhex("1122334455667788")
            + b"\x00" * 7
            + b"\x99"
        )
        + b"\x00" * 7
        + b"\x07"
    )
    assert decode_reply(frames, body).frames[0].location == LOC
    # a native frame's index is -1 (a jlocation), and it round-trips
    native = Location(1, 2, 3, -1)
    assert decode_reply(frames, encode_reply(frames, {"frames": [(4, native)]})).frames[0].location == native


def test_array_regions():
    get = by_name("ArrayReference", "GetValues")
    prim = ArrayRegion(Tag.INT, (1, -2, 3))
    body = encode_reply(get, (prim,))
    assert body == b"I\x00\x00\x00\x03" + b"\x00\x00\x00\x01\xff\xff\xff\xfe\x00\x00\x00\x03"
    assert decode_reply(get, body).values == prim
    objs = ArrayRegion(Tag.OBJECT, (Value(Tag.STRING, 1), Value(Tag.OBJECT, 0)))
    body = encode_reply(get, (objs,), S4)
    assert body == b"L\x00\x00\x00\x02" + b"s\x00\x00\x00\x01" + b"L\x00\x00\x00\x00"
    assert decode_reply(get, body, S4).values == objs
    with pytest.raises(EncodeError):
        encode_reply(get, (ArrayRegion(Tag.OBJECT, (Value(Tag.INT, 1),)),))


def test_tagged_objects_and_ids_with_4_byte_sizes():
    invoke = by_name("ClassType", "InvokeMethod")
    reply = {"return_value": Value(Tag.INT, 42), "exception": TaggedObjectID(Tag.OBJECT, 0)}
    body = encode_reply(invoke, reply, S4)
    assert body == b"I\x00\x00\x00\x2aL\x00\x00\x00\x00"
    cmd = {"clazz": 1, "thread": 2, "method_id": 3, "arguments": [Value(Tag.BOOLEAN, False)], "options": 1}
    data = encode_command(invoke, cmd, S4)
    assert len(data) == 4 + 4 + 4 + 4 + 2 + 4
    back = decode_command(invoke, data, S4)
    assert back.arguments == (messages.ClassType.InvokeMethod.Arg(Value(Tag.BOOLEAN, False)),)


def test_one_field_groups_accept_bare_values_and_decode_to_groups():
    threads = by_name("VirtualMachine", "AllThreads")
    body = encode_reply(threads, {"threads": [1, 2, (3,), {"thread": 4}]})
    got = decode_reply(threads, body)
    assert [t.thread for t in got.threads] == [1, 2, 3, 4]
    assert type(got.threads[0]).__name__ == "Thread"


def test_byte_repeats_are_bytes():
    redefine = by_name("VirtualMachine", "RedefineClasses")
    cmd = {"classes": [{"ref_type": 7, "classfile": b"\xca\xfe\xba\xbe"}]}
    back = decode_command(redefine, encode_command(redefine, cmd))
    assert back.classes[0].classfile == b"\xca\xfe\xba\xbe"
    pool = by_name("ReferenceType", "ConstantPool")
    assert decode_reply(pool, encode_reply(pool, (3, bytearray(b"xyz")))).bytes == b"xyz"


def test_untagged_field_values():
    setv = by_name("ClassType", "SetValues")
    pairs = [(10, Value(Tag.INT, 5)), {"field_id": 11, "value": Value(Tag.OBJECT, 9)}]
    data = encode_command(setv, {"clazz": 1, "values": pairs}, S4)
    # untagged: no tag bytes on the wire
    assert (
        data
        == b"\x00\x00\x00\x01\x00\x00\x00\x02"
        + b"\x00\x00\x00\x0a\x00\x00\x00\x05"
        + b"\x00\x00\x00\x0b\x00\x00\x00\x09"
    )
    msg = decode_command(setv, data, S4)
    assert msg.clazz == 1
    assert msg.values == RawValues(data[8:], 2)
    types = {10: Tag.INT, 11: Tag.OBJECT}
    assert decode_untagged_values(msg.values, types.__getitem__, S4) == [
        (10, Value(Tag.INT, 5)),
        (11, Value(Tag.OBJECT, 9)),
    ]
    # a proxy can pass RawValues straight through
    assert encode_command(setv, msg, S4) == data


def test_untagged_array_values():
    setv = by_name("ArrayReference", "SetValues")
    data = encode_command(setv, (5, 0, [Value(Tag.SHORT, -1), Value(Tag.SHORT, 2)]))
    assert data[-8:] == b"\x00\x00\x00\x02\xff\xff\x00\x02"
    msg = decode_command(setv, data)
    assert decode_untagged_values(msg.values, Tag.SHORT) == [Value(Tag.SHORT, -1), Value(Tag.SHORT, 2)]
    with pytest.raises(messages.DecodeError, match="trailing"):
        decode_untagged_values(msg.values, Tag.BYTE)
    with pytest.raises(messages.DecodeError):
        decode_untagged_values(msg.values, Tag.LONG)


def test_unknown_field_in_resolve_propagates():
    raw = RawValues(b"\x00" * 12, 1)

    class NoSuchField(Exception):
        pass

    def resolve(fid):
        raise NoSuchField(fid)

    with pytest.raises(NoSuchField):
        decode_untagged_values(raw, resolve)


def test_every_modifier_round_trips():
    setreq = by_name("EventRequest", "Set")
    mods = (
        modifiers.Count(3),
        modifiers.Conditional(7),
        modifiers.ThreadOnly(1),
        modifiers.ClassOnly(2),
        modifiers.ClassMatch("java.*"),
        modifiers.ClassExclude("*.Foo"),
        modifiers.LocationOnly(LOC),
        modifiers.ExceptionOnly(0, True, False),
        modifiers.FieldOnly(4, 5),
        modifiers.Step(1, 1, 2),
        modifiers.InstanceOnly(9),
        modifiers.SourceNameMatch("*.kt"),
        modifiers.PlatformThreadsOnly(),
    )
    assert [m.mod_kind for m in mods] == list(ModKind)
    cmd = messages.EventRequest.Set.Command(EventKind.BREAKPOINT, SuspendPolicy.ALL, mods)
    data = encode_command(setreq, cmd)
    assert decode_command(setreq, data) == cmd
    assert data[:6] == b"\x02\x02\x00\x00\x00\x0d"
    assert data[-1:] == b"\x0d"  # PlatformThreadsOnly: the kind byte alone
    as_maps = [{"mod_kind": 1, "count": 3}, (13,)]
    assert decode_command(setreq, encode_command(setreq, (2, 0, as_maps))).modifiers == (
        modifiers.Count(3),
        modifiers.PlatformThreadsOnly(),
    )
    with pytest.raises(EncodeError, match="mod_kind"):
        encode_command(setreq, (2, 0, [{"mod_kind": 99}]))


def test_every_event_kind_round_trips():
    E = messages.Events
    LOC = Location(1, 0x11223344, 0x99, 7)  # noqa: N806 - fits 4-byte IDs
    tobj = TaggedObjectID(Tag.OBJECT, 3)
    events = (
        E.VMStart(0, 1),
        E.SingleStep(1, 1, LOC),
        E.Breakpoint(2, 1, LOC),
        E.MethodEntry(3, 1, LOC),
        E.MethodExit(4, 1, LOC),
        E.MethodExitWithReturnValue(5, 1, LOC, Value(Tag.INT, 1)),
        E.MonitorContendedEnter(6, 1, tobj, LOC),
        E.MonitorContendedEntered(7, 1, tobj, LOC),
        E.MonitorWait(8, 1, tobj, LOC, 1000),
        E.MonitorWaited(9, 1, tobj, LOC, True),
        E.Exception(10, 1, LOC, TaggedObjectID(Tag.OBJECT, 4), Location(0, 0, 0, 0)),
        E.ThreadStart(11, 1),
        E.ThreadDeath(12, 1),
        E.ClassPrepare(13, 1, 1, 77, "LFoo;", 7),
        E.ClassUnload(14, "LFoo;"),
        E.FieldAccess(15, 1, LOC, 1, 77, 5, tobj),
        E.FieldModification(16, 1, LOC, 1, 77, 5, tobj, Value(Tag.LONG, -1)),
        E.VMDeath(0),
    )
    assert len(events) == 18
    for sizes in (None, S4):
        data = encode_composite(SuspendPolicy.EVENT_THREAD, events, sizes)
        assert decode_composite(data, sizes) == (1, events)
    single = encode_composite(2, [{"event_kind": EventKind.BREAKPOINT, "request_id": 2, "thread": 1, "location": LOC}])
    assert decode_composite(single)[1] == (E.Breakpoint(2, 1, LOC),)
    assert single[:6] == b"\x02\x00\x00\x00\x01\x02"


def test_encode_errors_name_the_field():
    version = by_name("VirtualMachine", "Version")
    with pytest.raises(EncodeError) as info:
        encode_reply(
            version, {"description": "x", "jdwp_major": 2**40, "jdwp_minor": 0, "vm_version": "", "vm_name": ""}
        )
    assert info.value.field == "jdwp_major"
    with pytest.raises(EncodeError, match="vm_name.*missing"):
        encode_reply(version, {"description": "x", "jdwp_major": 1, "jdwp_minor": 0, "vm_version": ""})
    threads = by_name("VirtualMachine", "AllThreads")
    with pytest.raises(EncodeError) as info:
        encode_reply(threads, {"threads": [1, -1]})
    assert info.value.field == "threads[1].thread"
    with pytest.raises(EncodeError):
        encode_reply(by_name("ReferenceType", "GetValues"), {"values": [Value(200, 1)]})


def test_writer_and_reader_helpers():
    w = Writer(S4).byte(1).boolean(True).int(-1).long(2).id("object_id", 7).string("a\0")
    w.value(Value(Tag.INT, 3)).location(Location(1, 2, 3, 4)).tagged_object(TaggedObjectID(Tag.THREAD, 5))
    data = w.getvalue()
    r = Reader(data, S4)
    assert (r.byte(), r.boolean(), r.int(), r.long(), r.id("object_id"), r.string()) == (1, True, -1, 2, 7, "a\0")
    assert r.value() == Value(Tag.INT, 3)
    assert r.location() == Location(1, 2, 3, 4)
    assert r.tagged_object() == TaggedObjectID(Tag.THREAD, 5)
    r.finish()
