"""Sans-I/O JDWP: framing and handshake, the command table, typed messages in both directions.

No sockets, no trio, no clocks here: callers feed bytes and get typed values back.
The agent-link codec lives in ``protocol.link`` and is not re-exported.
"""
from __future__ import annotations

import importlib
from typing import Any

# Imported at first use (PEP 562): `jdwpd launch` reads the link's constants (protocol.link) before
# it starts the JVM, and the codecs' tables cost 40 ms it need not wait for.
_HOME = {
    "ClassStatus": "constants",
    "CommandSet": "constants",
    "ErrorCode": "constants",
    "EventKind": "constants",
    "InvokeOptions": "constants",
    "ModKind": "constants",
    "StepDepth": "constants",
    "StepSize": "constants",
    "SuspendPolicy": "constants",
    "SuspendStatus": "constants",
    "Tag": "constants",
    "ThreadStatus": "constants",
    "TypeTag": "constants",
    "NEED_DATA": "jdwp",
    "ConnectionClosed": "jdwp",
    "HandshakeDone": "jdwp",
    "JdwpConnection": "jdwp",
    "Role": "jdwp",
    "UnexpectedPacketError": "jdwp",
    "Events": "messages",
    "Modifiers": "messages",
    "decode_command": "messages",
    "decode_composite": "messages",
    "decode_reply": "messages",
    "decode_untagged_values": "messages",
    "encode_command": "messages",
    "encode_composite": "messages",
    "encode_reply": "messages",
    "modifiers": "messages",
    "HANDSHAKE": "packets",
    "BadFlagsError": "packets",
    "CommandPacket": "packets",
    "FramingError": "packets",
    "HandshakeError": "packets",
    "PacketLengthError": "packets",
    "PacketParser": "packets",
    "ReplyPacket": "packets",
    "encode_packet": "packets",
    "COMMANDS": "spec",
    "CommandSpec": "spec",
    "by_name": "spec",
    "lookup": "spec",
    "ArrayRegion": "wire",
    "DecodeError": "wire",
    "EncodeError": "wire",
    "IDSizes": "wire",
    "LocalProtocolError": "wire",
    "Location": "wire",
    "ProtocolError": "wire",
    "RawValues": "wire",
    "Reader": "wire",
    "RemoteProtocolError": "wire",
    "TaggedObjectID": "wire",
    "Value": "wire",
    "Writer": "wire",
    "decode_mutf8": "wire",
    "encode_mutf8": "wire",
}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'protocol' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


__all__ = [
    "ClassStatus",
    "CommandSet",
    "ErrorCode",
    "EventKind",
    "InvokeOptions",
    "ModKind",
    "StepDepth",
    "StepSize",
    "SuspendPolicy",
    "SuspendStatus",
    "Tag",
    "ThreadStatus",
    "TypeTag",
    "NEED_DATA",
    "ConnectionClosed",
    "HandshakeDone",
    "JdwpConnection",
    "Role",
    "UnexpectedPacketError",
    "Events",
    "Modifiers",
    "modifiers",
    "decode_command",
    "decode_composite",
    "decode_reply",
    "decode_untagged_values",
    "encode_command",
    "encode_composite",
    "encode_reply",
    "HANDSHAKE",
    "BadFlagsError",
    "CommandPacket",
    "FramingError",
    "HandshakeError",
    "PacketLengthError",
    "PacketParser",
    "ReplyPacket",
    "encode_packet",
    "COMMANDS",
    "CommandSpec",
    "by_name",
    "lookup",
    "ArrayRegion",
    "DecodeError",
    "EncodeError",
    "IDSizes",
    "LocalProtocolError",
    "Location",
    "ProtocolError",
    "RawValues",
    "Reader",
    "RemoteProtocolError",
    "TaggedObjectID",
    "Value",
    "Writer",
    "decode_mutf8",
    "encode_mutf8",
]
