"""Round trips timed with a blocking loop on the raw client's socket.

The raw client (jdwpd/testing/client.py) is built for tests: a reader task, a condition per
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


def roundtrips(client: JdwpClient, set_name: str, cmd_name: str, n: int, **fields: Any) -> float:
    """Mean microseconds per round trip of ``n`` identical commands, one in flight at a time."""
    cs = spec.by_name(set_name, cmd_name)
    data = messages.encode_command(cs, fields, client.sizes)
    sock = client.stream.socket._sock  # the trio socket's stdlib socket: non-blocking
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    t0 = time.perf_counter()
    for _ in range(n):
        pid = client.next_id()
        packet = _HEADER.pack(11 + len(data), pid, 0, cs.set_id, cs.cmd_id) + data
        if sock.send(packet) != len(packet):
            raise MeasurementFailed("a command did not fit the socket at once")
        buf = b""
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
        if (reply_id, flags, error, len(buf)) != (pid, 0x80, 0, length):
            raise MeasurementFailed(f"{cs.label}: expected only its reply, got id {reply_id} flags {flags:#x} "
                                    f"error {error}, {len(buf)} bytes for {length}")
    return (time.perf_counter() - t0) / n * 1e6
