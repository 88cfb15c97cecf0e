"""The one writer (jdwpd/daemon/fast/writer.py), on socket pairs: at once when free, in order when not,
a part-written packet's rest always next."""

from __future__ import annotations

import socket
import threading

import trio
import trio.testing

from jdwpd.daemon.fast.writer import Writer, Wrote


def pair() -> tuple[socket.socket, Writer]:
    peer, ours = socket.socketpair()
    ours.setblocking(False)
    return peer, Writer(trio.SocketStream(trio.socket.from_stdlib_socket(ours)))


def drain(peer: socket.socket, size: int) -> bytes:
    peer.settimeout(10)
    out = b""
    while len(out) < size:
        out += peer.recv(1 << 20)
    return out


async def test_a_free_writer_writes_at_once_and_a_busy_one_says_so():
    peer, writer = pair()
    assert writer.write_now(b"one") is Wrote.ALL
    assert writer.gate.take_nowait()  # someone else writes now
    assert writer.write_now(b"two") is Wrote.NONE
    writer.gate.give()
    assert drain(peer, 3) == b"one"


async def test_the_rest_of_a_part_written_packet_goes_before_anything_queued_after_it():
    peer, writer = pair()
    big = bytes(range(256)) * 40_000  # more than a socket pair's buffers hold
    assert writer.write_now(big) is Wrote.PART
    assert writer.write_now(b"next") is Wrote.NONE  # the rest waits first in line

    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.write, b"after")  # queued behind the rest
        nursery.start_soon(writer.flush)
        got = await trio.to_thread.run_sync(drain, peer, len(big) + 5)
    assert got == big + b"after"


async def test_packets_that_wait_go_out_together_in_the_order_they_came():
    peer, writer = pair()
    writer.gate.take_nowait()
    async with trio.open_nursery() as nursery:
        for word in (b"a", b"b", b"c"):
            nursery.start_soon(writer.write, word)
            await trio.testing.wait_all_tasks_blocked()
        writer.gate.give()
    assert drain(peer, 3) == b"abc"


async def test_a_write_cancelled_before_its_turn_never_goes_out():
    peer, writer = pair()
    writer.gate.take_nowait()
    with trio.move_on_after(0.01):
        await writer.write(b"never")
    writer.gate.give()
    await writer.write(b"ok")
    assert drain(peer, 2) == b"ok"


async def test_a_thread_writes_only_when_free_and_its_rest_goes_first():
    peer, writer = pair()
    token = trio.lowlevel.current_trio_token()
    big = b"x" * 5_000_000
    results = []
    thread = threading.Thread(target=lambda: results.append(writer.write_from_thread(big, token)))
    thread.start()
    await trio.to_thread.run_sync(thread.join)
    assert results == [Wrote.PART]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer.write, b"!")
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(writer.flush)
        got = await trio.to_thread.run_sync(drain, peer, len(big) + 1)
    assert got == big + b"!"
