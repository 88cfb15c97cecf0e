"""Round trips timed with a blocking loop on the raw client's socket.

The raw client (jdwpd/testing/client.py) is built for tests: a reader task, an event per
reply, a send lock.  It costs about 100 us per command by itself, which is most of a round
trip to the reference (110-120 us on a quiet machine): measured through it, any server
looks like the client.  This loop writes one encoded command and reads its reply with
poll()/recv() on the same socket, blocking the client's event loop meanwhile (the client's
reader task simply finds nothing to read afterwards), so a round trip is the server's part
plus a few microseconds.  Same loop for both servers.
"""

from __future__ import annotations

import select
import struct
import time
from typing import Any

from jdwpd.testing.client import JdwpClient
from protocol import messages, spec

from .common import MeasurementFailed

_HEADER = struct.Struct(">IIBBB")
_REPLY = struct.Struct(">IIBH")
WAIT_MS = 10_000


def _open(client: JdwpClient) -> tuple[Any, Any]:
    sock = client.stream.socket._sock  # the trio socket's stdlib socket: non-blocking
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    return sock, poller


def _exchange(client: JdwpClient, sock: Any, poller: Any, cs: Any, data: bytes) -> tuple[int, bytes]:
    """Send one command, read until its reply: (error code, reply body).  Events that arrive
    meanwhile are dropped (the measurements using this set no request that has any)."""
    pid = client.next_packet_id()
    packet = _HEADER.pack(11 + len(data), pid, 0, cs.set_id, cs.cmd_id) + data
    if sock.send(packet) != len(packet):
        raise MeasurementFailed("a command did not fit the socket at once")
    buf = b""
    while True:
        while len(buf) < 11 or len(buf) < _REPLY.unpack_from(buf)[0]:
            if not poller.poll(WAIT_MS):
                raise MeasurementFailed(f"no reply to {cs.label} within {WAIT_MS} ms")
            try:
                chunk = sock.recv(65536)
            except BlockingIOError:
                continue
            if not chunk:
                raise MeasurementFailed("the server closed the connection")
            buf += chunk
        length, reply_id, flags, error = _REPLY.unpack_from(buf)
        if flags == 0x80 and reply_id == pid:
            if len(buf) != length:
                raise MeasurementFailed(f"{cs.label}: {len(buf) - length} bytes after its reply")
            return error, buf[11:length]
        if flags == 0x80:
            raise MeasurementFailed(f"{cs.label}: a reply to {reply_id}, not to {pid}")
        buf = buf[length:]  # an event


def call(client: JdwpClient, set_name: str, cmd_name: str, **fields: Any) -> Any:
    """One command through the blocking loop: its decoded reply (the same for both servers)."""
    cs = spec.by_name(set_name, cmd_name)
    sock, poller = _open(client)
    error, body = _exchange(client, sock, poller, cs, messages.encode_command(cs, fields, client.sizes))
    if error:
        raise MeasurementFailed(f"{cs.label} answered error {error}")
    return messages.decode_reply(cs, body, client.sizes)


def roundtrips(client: JdwpClient, set_name: str, cmd_name: str, n: int, **fields: Any) -> float:
    """Mean microseconds per round trip of ``n`` identical commands, one in flight at a time."""
    cs = spec.by_name(set_name, cmd_name)
    data = messages.encode_command(cs, fields, client.sizes)
    sock, poller = _open(client)
    t0 = time.perf_counter()
    for _ in range(n):
        error, _body = _exchange(client, sock, poller, cs, data)
        if error:
            raise MeasurementFailed(f"{cs.label} answered error {error}")
    return (time.perf_counter() - t0) / n * 1e6
