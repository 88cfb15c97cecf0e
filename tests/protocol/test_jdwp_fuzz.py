"""Decoders meet garbage: only ProtocolError subclasses may come out, never a crash or a wrong value."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jdwp_strategies import SIZES, instances, message_classes, top_class

from protocol import JdwpConnection, Role, messages, spec
from protocol.wire import DecodeError, ProtocolError, RawValues, Reader

PAIRS = message_classes()
FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _decode(cs, direction, body, sizes):
    fn = messages.decode_command if direction == "out" else messages.decode_reply
    return fn(cs, body, sizes)


def _encode(cs, direction, msg, sizes):
    fn = messages.encode_command if direction == "out" else messages.encode_reply
    return fn(cs, msg, sizes)


def _check(cs, direction, body, sizes):
    try:
        msg = _decode(cs, direction, body, sizes)
    except ProtocolError as e:
        assert isinstance(e, DecodeError)
        assert cs.label in str(e) and e.field
        return
    # Whatever decodes re-encodes, and one pass reaches a fixed point.  Not always the
    # same bytes: a boolean byte 2 is True (as in the reference), standard UTF-8 from
    # JDI (raw NUL, 4-byte sequences) comes back in the JVM's modified form, and a
    # float's signalling NaN comes back quiet.
    again = _encode(cs, direction, msg, sizes)
    assert _encode(cs, direction, _decode(cs, direction, again, sizes), sizes) == again


@FUZZ
@given(st.sampled_from(PAIRS), st.sampled_from(SIZES), st.binary(max_size=64))
def test_random_bytes(pair, sizes, body):
    cs, direction = pair
    _check(cs, direction, body, sizes)


@st.composite
def mutated(draw):
    cs, direction = draw(st.sampled_from(PAIRS))
    sizes = draw(st.sampled_from(SIZES))
    msg = draw(instances(top_class(cs, direction), sizes))
    body = bytearray(_encode(cs, direction, msg, sizes))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "cut", "grow", "set"]))
        if op == "flip" and body:
            i = draw(st.integers(0, len(body) - 1))
            body[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "set" and body:
            i = draw(st.integers(0, len(body) - 1))
            body[i] = draw(st.sampled_from([0x00, 0x7F, 0x80, 0xFF, 0xC0, 0xED, ord("Z"), ord("L")]))
        elif op == "cut" and body:
            del body[draw(st.integers(0, len(body) - 1)) :]
        else:
            body += draw(st.binary(min_size=1, max_size=4))
    return cs, direction, sizes, bytes(body)


@FUZZ
@given(mutated())
def test_mutated_valid_bodies(case):
    cs, direction, sizes, body = case
    _check(cs, direction, body, sizes)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=80))
def test_connection_fed_garbage(data):
    for role in Role:
        conn = JdwpConnection(role, max_packet_size=1 << 16)
        conn.receive_data(b"JDWP-Handshake" + data)
        conn.receive_data(b"")
        try:
            for _ in range(100):
                ev = conn.next_event()
                if type(ev).__name__ == "ConnectionClosed":
                    break
        except ProtocolError:
            pass


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40), st.sampled_from([73, 74, 76, 90, 66, 70, 68, 1, 200]))
def test_untagged_values_garbage(data, tag):
    try:
        messages.decode_untagged_values(RawValues(data, 3), tag)
    except DecodeError:
        pass
    try:
        messages.decode_untagged_values(RawValues(data, 2), lambda fid: tag)
    except DecodeError:
        pass


@pytest.mark.parametrize(
    ("label", "body", "field", "reason"),
    [
        (("ThreadReference", "Frames", "out"), b"\0" * 10, "start_frame", "truncated"),
        (("VirtualMachine", "AllThreads", "reply"), b"\xff\xff\xff\xff", "threads", "negative count"),
        (("VirtualMachine", "Version", "reply"), b"\x80\0\0\0", "description", "negative string length"),
        (("VirtualMachine", "Version", "reply"), b"\0\0\0\x09abc", "description", "overruns"),
        (("ReferenceType", "GetValues", "reply"), b"\0\0\0\x01Q", "values[0].value", "unknown value tag"),
        (("ThreadReference", "CurrentContendedMonitor", "reply"), b"I" + b"\0" * 8, "monitor", "not an object tag"),
        (("EventRequest", "Set", "out"), b"\x02\x02\0\0\0\x01\x63", "modifiers[0].mod_kind", "unknown modKind 99"),
        (("Event", "Composite", "out"), b"\x02\0\0\0\x01\x05", "events[0].event_kind", "unknown eventKind 5"),
        (("Event", "Composite", "out"), b"\x02\0\0\0\x01\x02\0\0\0\x01", "events[0].thread", "truncated"),
        (("ArrayReference", "GetValues", "reply"), b"I\0\0\0\x02\0\0\0\x01", "values", "do not fit"),
        (("ArrayReference", "GetValues", "reply"), b"V\0\0\0\x01", "values", "bad array region tag"),
        (("VirtualMachine", "IDSizes", "reply"), b"\0" * 21, "<end>", "1 trailing bytes"),
        (("Method", "Bytecodes", "reply"), b"\0\0\0\x05ab", "bytes", "overrun"),
    ],
)
def test_error_messages_name_command_and_field(label, body, field, reason):
    set_name, cmd, direction = label
    cs = spec.by_name(set_name, cmd)
    with pytest.raises(DecodeError) as info:
        _decode(cs, direction, body, None)
    assert info.value.field == field
    assert reason in info.value.reason
    assert str(info.value).startswith(f"{set_name}.{cmd} {'command' if direction == 'out' else 'reply'}")


def test_sticky_reader():
    r = Reader(b"\x00\x00\x00\x05ab", context="test body")
    assert r.string("name") == ""
    assert r.int("after") == 0  # harmless default once broken
    with pytest.raises(DecodeError) as info:
        r.finish()
    assert info.value.field == "name"
    r = Reader(b"\x00\x01\x02")
    r.byte("a")
    with pytest.raises(DecodeError, match="2 trailing bytes"):
        r.finish()
