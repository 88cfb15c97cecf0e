"""The remote link's own frames, between the far side (beside the JVM) and the near side (beside
the debugger), sans I/O.  Everything else that crosses is the agent link unchanged (protocol/link.py).

A STOP_BUNDLE goes from the far side right before an EVENT that suspended every thread: the link
requests the near side's daemon is about to make after such a stop (threads, frames, locals,
``this``, fields, strings, class facts), each with the agent's reply, read by the far side next to
the agent.  The near side answers those requests from it without crossing; it drops the bundle at
the first request that may change what the agent would answer (``invalidates``).

Ordering: the far side counts the near side's requests it wrote to the agent.  ``after`` is that
count when it wrote its first read of the bundle; a bundle is valid only if no request the near
side sent from that count on may change state (the near side knows which it sent), and the far side
sends none at all if such a request reached the agent while it was reading.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator

from . import link as L

STOP_BUNDLE = 0xF001  # far -> near, id 0: u32 after, u32 n, n x entry
# Far-side request ids: the near side's daemon counts up from 1 and never gets near this bit.
FAR_ID_BIT = 0x8000_0000

_ENTRY = struct.Struct(">HHII")
_U32x2 = struct.Struct(">II")


def invalidates(kind: int) -> bool:
    """May this request change an answer a bundle holds?  Unknown kinds may."""
    spec = L.MESSAGES.get(kind)
    if spec is None:
        return True
    return spec.thaws or spec.suspends or spec.name == "RELEASE_IDS"


def encode_bundle(after: int, entries: Iterable[tuple[int, bytes, int, bytes]]) -> bytes:
    """entries: (kind, request body, status, reply body).  The whole frame."""
    parts = []
    n = 0
    for kind, request, status, reply in entries:
        parts.append(_ENTRY.pack(kind, status, len(request), len(reply)))
        parts.append(request)
        parts.append(reply)
        n += 1
    return L.frame(0, STOP_BUNDLE, 0, _U32x2.pack(after, n) + b"".join(parts))


def decode_bundle(body: bytes) -> tuple[int, Iterator[tuple[int, bytes, int, bytes]]]:
    if len(body) < _U32x2.size:
        raise L.LinkError("short STOP_BUNDLE")
    after, n = _U32x2.unpack_from(body, 0)

    def entries() -> Iterator[tuple[int, bytes, int, bytes]]:
        pos = _U32x2.size
        for _ in range(n):
            if pos + _ENTRY.size > len(body):
                raise L.LinkError("short STOP_BUNDLE entry")
            kind, status, req_len, rep_len = _ENTRY.unpack_from(body, pos)
            pos += _ENTRY.size
            if pos + req_len + rep_len > len(body):
                raise L.LinkError("short STOP_BUNDLE entry")
            yield kind, body[pos:pos + req_len], status, body[pos + req_len:pos + req_len + rep_len]
            pos += req_len + rep_len

    return after, entries()
