"""JDWP framing: the handshake and the 11-byte packet header.

Header: ``length:u32 id:u32 flags:u8`` then ``command_set:u8 command:u8`` for a
command or ``error_code:u16`` for a reply; ``length`` counts the header.

Flags: the reference transport tells a reply by bit 0x80 and its reader drops the
connection on any packet whose flags are not 0 where it expects a command.  We
accept exactly 0 (command) and 0x80 (reply) and reject every other value,
whichever role we play; a server additionally refuses replies (jdwp.py).
"""

from __future__ import annotations

import struct
from typing import final

import attrs

from .wire import LocalProtocolError, RemoteProtocolError

__all__ = [
    "HANDSHAKE",
    "HEADER_SIZE",
    "REPLY_FLAG",
    "DEFAULT_MAX_PACKET_SIZE",
    "CommandPacket",
    "ReplyPacket",
    "FramingError",
    "PacketLengthError",
    "BadFlagsError",
    "HandshakeError",
    "PacketParser",
    "encode_packet",
]

HANDSHAKE = b"JDWP-Handshake"
HEADER_SIZE = 11
REPLY_FLAG = 0x80
# Big enough for RedefineClasses of large class files and for huge array regions,
# small enough that a hostile length cannot make us buffer gigabytes.
DEFAULT_MAX_PACKET_SIZE = 64 * 1024 * 1024

_HEADER = struct.Struct(">IIBBB")
_REPLY_HEADER = struct.Struct(">IIBH")


@final  # so that a checker reads encode_packet's `type(packet) is CommandPacket` as exhaustive
@attrs.frozen
class CommandPacket:
    id: int
    flags: int
    command_set: int
    command: int
    data: bytes = b""


@final
@attrs.frozen
class ReplyPacket:
    id: int
    flags: int
    error_code: int
    data: bytes = b""


class FramingError(RemoteProtocolError):
    """The byte stream is not a sequence of JDWP packets."""


class PacketLengthError(FramingError):
    def __init__(self, length: int, maximum: int) -> None:
        self.length = length
        self.maximum = maximum
        if length < HEADER_SIZE:
            msg = f"packet length {length} is shorter than the {HEADER_SIZE}-byte header"
        else:
            msg = f"packet length {length} exceeds the maximum of {maximum}"
        super().__init__(msg)


class BadFlagsError(FramingError):
    def __init__(self, flags: int, packet_id: int) -> None:
        self.flags = flags
        self.packet_id = packet_id
        super().__init__(f"packet {packet_id} has flags {flags:#04x}; only 0x00 (command) and 0x80 (reply) exist")


class HandshakeError(FramingError):
    def __init__(self, received: bytes) -> None:
        self.received = received
        super().__init__(f"expected {HANDSHAKE!r}, received {received!r}")


def encode_packet(packet: CommandPacket | ReplyPacket) -> bytes:
    """Frame a packet.  The flags written are the packet's own, so they must be valid."""
    data = packet.data
    length = HEADER_SIZE + len(data)
    if type(packet) is CommandPacket:
        if packet.flags != 0:
            raise LocalProtocolError(f"a command packet has flags 0, not {packet.flags:#x}")
        return _HEADER.pack(length, packet.id, 0, packet.command_set, packet.command) + data
    if packet.flags != REPLY_FLAG:
        raise LocalProtocolError(f"a reply packet has flags 0x80, not {packet.flags:#x}")
    return _REPLY_HEADER.pack(length, packet.id, REPLY_FLAG, packet.error_code) + data


class PacketParser:
    """Incremental packet parser: ``feed`` bytes split anywhere, ``next_packet`` until None.

    Errors are raised when the offending header is complete, not when the whole
    packet has arrived, so a bogus length never makes us wait or buffer.
    """

    def __init__(self, max_packet_size: int = DEFAULT_MAX_PACKET_SIZE) -> None:
        self.max_packet_size = max_packet_size
        self._buf = bytearray()
        self._pos = 0

    def feed(self, data: bytes | bytearray) -> None:
        if self._pos:
            # Compact lazily: only when consumed bytes dominate, so many small
            # packets in one chunk do not cost a copy each.
            if self._pos > len(self._buf) // 2:
                del self._buf[: self._pos]
                self._pos = 0
        self._buf += data

    @property
    def buffered(self) -> int:
        return len(self._buf) - self._pos

    def next_packet(self) -> CommandPacket | ReplyPacket | None:
        buf = self._buf
        pos = self._pos
        if len(buf) - pos < HEADER_SIZE:
            return None
        length, pid, flags, b9, b10 = _HEADER.unpack_from(buf, pos)
        if length < HEADER_SIZE or length > self.max_packet_size:
            raise PacketLengthError(length, self.max_packet_size)
        if flags != 0 and flags != REPLY_FLAG:
            raise BadFlagsError(flags, pid)
        end = pos + length
        if len(buf) < end:
            return None
        data = bytes(buf[pos + HEADER_SIZE : end])
        self._pos = end
        if end == len(buf):
            buf.clear()
            self._pos = 0
        if flags:
            return ReplyPacket(pid, flags, (b9 << 8) | b10, data)
        return CommandPacket(pid, flags, b9, b10, data)
