"""Throughput of the sans-I/O JDWP codecs on one core.  Run: python bench/bench_protocol.py

Targets (issue 3): >= 100,000 small packets/s decoded + encoded; an AllClasses reply
of 20,000 classes encoded and decoded in < 100 ms.  Prints numbers; not a test.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol import (  # noqa: E402 - after the path tweak, so the checkout is measured
    HANDSHAKE,
    CommandPacket,
    JdwpConnection,
    Location,
    ReplyPacket,
    Role,
    by_name,
    decode_command,
    decode_reply,
    encode_command,
    encode_packet,
    encode_reply,
)


def best_of(fn, repeat: int = 5) -> float:
    """Best wall time of ``repeat`` runs: the least disturbed by the rest of the machine."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def small_packets(n: int = 50_000) -> None:
    # A debugger's typical chatter: a thread's frames (count 1), its name, a line table lookup.
    frames = by_name("ThreadReference", "Frames")
    name = by_name("ThreadReference", "Name")
    status = by_name("ThreadReference", "Status")
    cmds = [
        (frames, encode_command(frames, (0x1234, 0, 1)), {"frames": [(0x77, Location(1, 0x55, 0x66, 12))]}),
        (name, encode_command(name, (0x1234,)), ("main",)),
        (status, encode_command(status, (0x1234,)), (1, 1)),
    ]
    wire = b"".join(
        encode_packet(CommandPacket(i, 0, c.set_id, c.cmd_id, data)) for i, (c, data, _) in enumerate(cmds * (n // 3))
    )
    replies = {(c.set_id, c.cmd_id): (c, r) for c, _, r in cmds}
    count = len(cmds * (n // 3))

    def codec_only():
        for c, data, reply in cmds * (n // 3):
            decode_command(c, data)
            encode_reply(c, reply)

    def full_path():
        # bytes from the socket -> framing -> decode -> encode -> framed reply bytes
        conn = JdwpConnection(Role.SERVER)
        conn.receive_data(HANDSHAKE)
        conn.next_event()
        conn.send_handshake()
        out = []
        for off in range(0, len(wire), 4096):
            conn.receive_data(wire[off : off + 4096])
            while True:
                pkt = conn.next_event()
                if type(pkt) is not CommandPacket:
                    break
                c, reply = replies[(pkt.command_set, pkt.command)]
                decode_command(c, pkt.data)
                out.append(conn.send(ReplyPacket(pkt.id, 0x80, 0, encode_reply(c, reply))))
        assert len(out) == count

    t = best_of(codec_only)
    print(f"small packets, decode_command + encode_reply:        {count / t:>10,.0f} packets/s")
    t = best_of(full_path)
    print(f"small packets, bytes -> framing -> codecs -> bytes:  {count / t:>10,.0f} packets/s")


def all_classes(n: int = 20_000) -> None:
    spec = by_name("VirtualMachine", "AllClasses")
    classes = [(1, 0x10000 + i, f"Lcom/example/pkg{i % 97}/Class{i};", 7) for i in range(n)]
    reply = {"classes": classes}
    body = encode_reply(spec, reply)
    decoded = decode_reply(spec, body)
    assert len(decoded.classes) == n

    te = best_of(lambda: encode_reply(spec, reply))
    td = best_of(lambda: decode_reply(spec, body))
    tr = best_of(lambda: encode_reply(spec, decoded))
    print(f"AllClasses reply, {n:,} classes ({len(body) / 1e6:.2f} MB):")
    print(f"  encode (tuples):     {te * 1000:7.1f} ms")
    print(f"  decode:              {td * 1000:7.1f} ms")
    print(f"  encode (instances):  {tr * 1000:7.1f} ms")
    print(f"  encode + decode:     {(te + td) * 1000:7.1f} ms   (target < 100 ms)")


if __name__ == "__main__":
    print(f"Python {sys.version.split()[0]}")
    small_packets()
    all_classes()
