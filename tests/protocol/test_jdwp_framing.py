"""Framing and the connection state machine: handshake, arbitrary chunking, bad headers, roles."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import (
    HANDSHAKE,
    NEED_DATA,
    BadFlagsError,
    CommandPacket,
    ConnectionClosed,
    FramingError,
    HandshakeDone,
    HandshakeError,
    JdwpConnection,
    LocalProtocolError,
    PacketLengthError,
    PacketParser,
    RemoteProtocolError,
    ReplyPacket,
    Role,
    UnexpectedPacketError,
    encode_packet,
)

PACKETS = [
    CommandPacket(1, 0, 1, 7, b""),
    CommandPacket(2, 0, 11, 6, b"\x00" * 8 + b"\x00\x00\x00\x00\xff\xff\xff\xff"),
    ReplyPacket(2, 0x80, 0, b"\x00\x00\x00\x00"),
    ReplyPacket(3, 0x80, 112, b""),
    CommandPacket(0x7FFFFFFF, 0, 64, 100, bytes(range(40))),
]


def events(conn: JdwpConnection) -> list:
    out = []
    while True:
        ev = conn.next_event()
        if ev is NEED_DATA:
            return out
        out.append(ev)
        if isinstance(ev, ConnectionClosed):
            return out


def test_header_layout():
    assert encode_packet(CommandPacket(5, 0, 1, 7, b"ab")) == b"\x00\x00\x00\x0d\x00\x00\x00\x05\x00\x01\x07ab"
    assert encode_packet(ReplyPacket(5, 0x80, 0x1FF, b"")) == b"\x00\x00\x00\x0b\x00\x00\x00\x05\x80\x01\xff"


def test_encode_rejects_wrong_flags():
    with pytest.raises(LocalProtocolError):
        encode_packet(CommandPacket(1, 0x80, 1, 1, b""))
    with pytest.raises(LocalProtocolError):
        encode_packet(ReplyPacket(1, 0, 0, b""))


def test_every_split_point_yields_the_same_packets():
    stream = b"".join(encode_packet(p) for p in PACKETS)
    for cut in range(len(stream) + 1):
        parser = PacketParser()
        got = []
        for chunk in (stream[:cut], stream[cut:]):
            parser.feed(chunk)
            while (p := parser.next_packet()) is not None:
                got.append(p)
        assert got == PACKETS, cut


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=30))
def test_arbitrary_chunking(sizes):
    stream = b"".join(encode_packet(p) for p in PACKETS) * 2
    parser = PacketParser()
    got = []
    pos = 0
    for n in sizes * 20:
        if pos >= len(stream):
            break
        parser.feed(stream[pos : pos + n])
        pos += n
        while (p := parser.next_packet()) is not None:
            got.append(p)
    parser.feed(stream[pos:])
    while (p := parser.next_packet()) is not None:
        got.append(p)
    assert got == PACKETS * 2
    assert parser.buffered == 0


@pytest.mark.parametrize("length", [0, 1, 10])
def test_length_below_header_is_refused(length):
    parser = PacketParser()
    parser.feed(struct.pack(">IIBBB", length, 1, 0, 1, 1))
    with pytest.raises(PacketLengthError) as info:
        parser.next_packet()
    assert info.value.length == length
    assert isinstance(info.value, RemoteProtocolError)


def test_length_above_maximum_is_refused_before_the_body_arrives():
    parser = PacketParser(max_packet_size=100)
    parser.feed(struct.pack(">IIBBB", 101, 1, 0, 1, 1))
    with pytest.raises(PacketLengthError, match="maximum of 100"):
        parser.next_packet()
    ok = PacketParser(max_packet_size=100)
    ok.feed(struct.pack(">IIBBB", 100, 1, 0, 1, 1) + b"x" * 89)
    assert ok.next_packet() == CommandPacket(1, 0, 1, 1, b"x" * 89)


@pytest.mark.parametrize("flags", [0x01, 0x40, 0x81, 0xFF, ord("T")])
def test_flags_other_than_0_and_0x80_are_refused(flags):
    parser = PacketParser()
    parser.feed(struct.pack(">IIBBB", 11, 9, flags, 1, 1))
    with pytest.raises(BadFlagsError) as info:
        parser.next_packet()
    assert info.value.flags == flags


def _server() -> JdwpConnection:
    conn = JdwpConnection(Role.SERVER)
    conn.receive_data(HANDSHAKE)
    assert events(conn) == [HandshakeDone()]
    assert conn.send_handshake() == HANDSHAKE
    return conn


def test_server_handshake_split_at_every_offset_with_packets_behind_it():
    stream = HANDSHAKE + b"".join(encode_packet(p) for p in PACKETS if isinstance(p, CommandPacket))
    for cut in range(len(stream) + 1):
        conn = JdwpConnection(Role.SERVER)
        got = []
        for chunk in (stream[:cut], stream[cut:]):
            if chunk:  # b"" would mean EOF
                conn.receive_data(chunk)
            got += events(conn)
        assert got[0] == HandshakeDone()
        assert got[1:] == [p for p in PACKETS if isinstance(p, CommandPacket)]


def test_client_handshake_then_replies_and_events():
    conn = JdwpConnection(Role.CLIENT)
    with pytest.raises(LocalProtocolError):
        conn.send(PACKETS[0])
    assert conn.send_handshake() == HANDSHAKE
    assert conn.send(PACKETS[0]) == encode_packet(PACKETS[0])
    conn.receive_data(HANDSHAKE + b"".join(encode_packet(p) for p in PACKETS))
    assert events(conn) == [HandshakeDone(), *PACKETS]
    with pytest.raises(LocalProtocolError):
        conn.send(PACKETS[2])  # a debugger never sends replies


def test_server_may_not_answer_before_the_debugger_greets():
    conn = JdwpConnection(Role.SERVER)
    with pytest.raises(LocalProtocolError):
        conn.send_handshake()
    with pytest.raises(LocalProtocolError):
        conn.send(PACKETS[2])


def test_wrong_handshake_is_refused_at_the_first_wrong_byte():
    conn = JdwpConnection(Role.SERVER)
    conn.receive_data(b"GET /")
    with pytest.raises(HandshakeError):
        conn.next_event()
    # errors are sticky
    with pytest.raises(HandshakeError):
        conn.next_event()


def test_server_refuses_replies_like_the_reference():
    conn = _server()
    conn.receive_data(encode_packet(ReplyPacket(1, 0x80, 0, b"")))
    with pytest.raises(UnexpectedPacketError):
        conn.next_event()


def test_server_refuses_bad_flags_and_bad_lengths():
    conn = _server()
    conn.receive_data(struct.pack(">IIBBB", 11, 1, 0x20, 1, 1))
    with pytest.raises(BadFlagsError):
        conn.next_event()
    conn = JdwpConnection(Role.SERVER, max_packet_size=64)
    conn.receive_data(HANDSHAKE + struct.pack(">IIBBB", 65, 1, 0, 1, 1))
    assert conn.next_event() == HandshakeDone()
    with pytest.raises(PacketLengthError):
        conn.next_event()


def test_eof_at_a_packet_boundary_closes():
    conn = _server()
    conn.receive_data(encode_packet(PACKETS[0]))
    conn.receive_data(b"")
    assert events(conn) == [PACKETS[0], ConnectionClosed()]
    assert conn.next_event() == ConnectionClosed()
    assert conn.closed


def test_eof_inside_a_packet_is_an_error():
    conn = _server()
    conn.receive_data(encode_packet(PACKETS[1])[:-1])
    assert conn.next_event() is NEED_DATA
    conn.receive_data(b"")
    with pytest.raises(FramingError):
        conn.next_event()


def test_eof_during_handshake():
    conn = JdwpConnection(Role.SERVER)
    conn.receive_data(b"")
    assert conn.next_event() == ConnectionClosed()
    conn = JdwpConnection(Role.SERVER)
    conn.receive_data(b"JDWP-")
    conn.receive_data(b"")
    with pytest.raises(HandshakeError):
        conn.next_event()


def test_need_data_is_a_sentinel():
    assert repr(NEED_DATA) == "NEED_DATA"
    assert JdwpConnection(Role.CLIENT).next_event() is NEED_DATA
