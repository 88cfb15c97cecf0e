"""JdwpConnection: the handshake and packet stream of one JDWP connection, h11-style.

Bytes in (``receive_data``), events out (``next_event``); packets in (``send``),
bytes out.  No sockets, no clocks: the caller owns the I/O.

Handshake order mirrors the reference: the debugger (CLIENT) writes
``JDWP-Handshake`` first; the VM side (SERVER) reads it and answers with the same
14 bytes.  So a server may only ``send_handshake()`` after ``HandshakeDone``, and
neither side may send packets before its own handshake is out.

Roles: a server receives commands only (the reference drops the connection on a
packet whose flags are not 0 there, we raise ``RemoteProtocolError``); a client
receives replies and commands (Event.Composite).  Errors are sticky: once the
peer has broken the protocol, every later ``next_event`` raises again.
"""

from __future__ import annotations

import enum

import attrs

from .packets import (
    DEFAULT_MAX_PACKET_SIZE,
    HANDSHAKE,
    CommandPacket,
    FramingError,
    HandshakeError,
    PacketParser,
    ReplyPacket,
    encode_packet,
)
from .wire import LocalProtocolError, ProtocolError, RemoteProtocolError

__all__ = [
    "Role",
    "JdwpConnection",
    "HandshakeDone",
    "ConnectionClosed",
    "NEED_DATA",
    "LocalProtocolError",
    "RemoteProtocolError",
    "UnexpectedPacketError",
]


class Role(enum.Enum):
    CLIENT = "client"  # the debugger
    SERVER = "server"  # the debuggee side: us, in the daemon


class _Sentinel(type):
    def __repr__(cls) -> str:
        return cls.__name__


class NEED_DATA(metaclass=_Sentinel):
    """Returned by ``next_event`` when more bytes are needed (a class used as a sentinel, as in h11)."""


@attrs.frozen
class HandshakeDone:
    """The peer's ``JDWP-Handshake`` arrived intact."""


@attrs.frozen
class ConnectionClosed:
    """The peer closed its side (EOF) at a packet boundary."""


class UnexpectedPacketError(RemoteProtocolError):
    """A well-formed packet the role does not allow (a reply sent to a server)."""


class _State(enum.Enum):
    HANDSHAKE = 1
    OPEN = 2
    CLOSED = 3
    ERROR = 4


class JdwpConnection:
    def __init__(self, role: Role, max_packet_size: int = DEFAULT_MAX_PACKET_SIZE) -> None:
        self.role = role
        self.max_packet_size = max_packet_size
        self._parser = PacketParser(max_packet_size)
        self._handshake_buf = b""
        self._state = _State.HANDSHAKE
        self._eof = False
        self._error: ProtocolError | None = None
        self.handshake_sent = False
        self.handshake_received = False

    # ---- receiving

    def receive_data(self, data: bytes | bytearray) -> None:  # trio streams give either
        """Feed bytes from the peer; ``b""`` means EOF."""
        if self._eof:
            if data:
                raise LocalProtocolError("receive_data after EOF")
            return
        if not data:
            self._eof = True
            return
        if self._state is _State.HANDSHAKE:
            self._handshake_buf += data
        else:
            self._parser.feed(data)

    def next_event(self) -> type[NEED_DATA] | HandshakeDone | CommandPacket | ReplyPacket | ConnectionClosed:
        if self._error is not None:
            raise self._error
        try:
            return self._next_event()
        except RemoteProtocolError as e:
            self._state = _State.ERROR
            self._error = e
            raise

    def _next_event(self) -> type[NEED_DATA] | HandshakeDone | CommandPacket | ReplyPacket | ConnectionClosed:
        if self._state is _State.HANDSHAKE:
            buf = self._handshake_buf
            n = len(HANDSHAKE)
            # Compare the prefix as it arrives: an HTTP request or a stray client
            # is refused at its first wrong byte, not after 14 bytes.
            if buf[:n] != HANDSHAKE[: len(buf[:n])]:
                raise HandshakeError(buf[:n])
            if len(buf) < n:
                if self._eof:
                    if buf:
                        raise HandshakeError(buf)
                    self._state = _State.CLOSED
                    return ConnectionClosed()
                return NEED_DATA
            self._state = _State.OPEN
            self.handshake_received = True
            self._parser.feed(buf[n:])
            self._handshake_buf = b""
            return HandshakeDone()
        if self._state is _State.CLOSED:
            return ConnectionClosed()
        packet = self._parser.next_packet()
        if packet is None:
            if self._eof:
                if self._parser.buffered:
                    raise FramingError(f"connection closed inside a packet ({self._parser.buffered} bytes pending)")
                self._state = _State.CLOSED
                return ConnectionClosed()
            return NEED_DATA
        if self.role is Role.SERVER and type(packet) is ReplyPacket:
            raise UnexpectedPacketError(
                f"packet {packet.id} has flags {packet.flags:#04x}: a debugger sends commands only"
            )
        return packet

    # ---- sending

    def send_handshake(self) -> bytes:
        if self.handshake_sent:
            raise LocalProtocolError("handshake already sent")
        if self.role is Role.SERVER and not self.handshake_received:
            raise LocalProtocolError("a server answers the debugger's handshake; it has not arrived yet")
        self.handshake_sent = True
        return HANDSHAKE

    def send(self, packet: CommandPacket | ReplyPacket) -> bytes:
        if not self.handshake_sent:
            raise LocalProtocolError("send_handshake() first")
        if self.role is Role.CLIENT and type(packet) is ReplyPacket:
            raise LocalProtocolError("a debugger sends commands only")
        return encode_packet(packet)

    @property
    def at_packet_boundary(self) -> bool:
        """Open, and every byte received so far was a whole packet already handed out: a reader
        may take over the byte stream from here (the daemon's fast lane does)."""
        return self._state is _State.OPEN and not self._eof and self._parser.buffered == 0

    @property
    def closed(self) -> bool:
        return self._state is _State.CLOSED
