"""The fast lane's hand-over of the socket (jdwpd/daemon/fast/lane.py), on a socket pair: no JVM.

The lane answers memo hits, gives the first packet it cannot answer (with every byte after it)
to the session's reader, stops reading, and reads again only when the session gives the socket
back.  The live behaviour is in tests/differential/test_reply_memo.py and
tests/robustness/test_debugger_leaves.py.
"""

from __future__ import annotations

import socket
import struct
import types

import trio

from jdwpd.daemon.fast.lane import FastLane
from jdwpd.daemon.fast.memo import ReplyMemo
from jdwpd.daemon.fast.writer import Writer
from jdwpd.daemon.model.threads import ThreadTable
from protocol.wire import IDSizes

SIGNATURE = (2, 1, (0x55).to_bytes(8, "big"))
BODY = struct.pack(">I", 3) + b"LX;"


def command(packet_id: int, set_id: int, cmd_id: int, data: bytes = b"") -> bytes:
    return struct.pack(">IIBBB", 11 + len(data), packet_id, 0, set_id, cmd_id) + data


def fake_session(memo: ReplyMemo, sock: socket.socket) -> types.SimpleNamespace:
    vm = types.SimpleNamespace(memo=memo, dead=False, id_sizes=IDSizes(), threads=ThreadTable())
    stream = trio.SocketStream(trio.socket.from_stdlib_socket(sock))
    return types.SimpleNamespace(vm=vm, commands_answered=0, closing=False, writer=Writer(stream), number=1,
                                 flush_soon=lambda: None)


def read_reply(sock: socket.socket) -> tuple[int, int, bytes]:
    head = sock.recv(11, socket.MSG_WAITALL)
    length, packet_id, flags, error = struct.unpack(">IIBH", head)
    assert flags == 0x80
    return packet_id, error, sock.recv(length - 11, socket.MSG_WAITALL) if length > 11 else b""


async def answered(lane: FastLane, count: int) -> bool:
    """The lane counts an answer just after writing it: the reader may see the reply first."""
    while lane.answered < count:
        await trio.sleep(0.001)
    return lane.answered == count


async def test_the_lane_answers_hands_over_and_takes_the_socket_back():
    memo = ReplyMemo()
    memo.offer(SIGNATURE, BODY, memo.epochs(), None)
    debugger, ours = socket.socketpair()
    ours.setblocking(False)  # as trio leaves a socket it owns
    session = fake_session(memo, ours)
    debugger.settimeout(10)
    lane = FastLane(ours, session, trio.lowlevel.current_trio_token(), session_read=0)
    lane.start()
    try:
        with trio.fail_after(10):
            # a hit: answered by the lane, with the command's packet id
            debugger.sendall(command(7, 2, 1, SIGNATURE[2]))
            assert await trio.to_thread.run_sync(read_reply, debugger) == (7, 0, BODY)
            assert lane.owns_socket and await answered(lane, 1)

            # a miss and a hit behind it in one write: both go to the session, in order, with the socket
            miss, hit = command(8, 1, 1), command(9, 2, 1, SIGNATURE[2])
            debugger.sendall(miss + hit)
            handed = b""
            while len(handed) < len(miss + hit):
                handed += await lane.inbound.receive_some(65536)
            assert handed == miss + hit
            assert not lane.owns_socket and lane.answered == 1

            # the lane no longer reads: the next packet waits in the socket for the session's reader
            debugger.sendall(command(10, 2, 1, SIGNATURE[2]))
            await trio.sleep(0.2)
            assert ours.recv(100) == command(10, 2, 1, SIGNATURE[2])

            # given back: the lane answers again, but only once the session has answered what it read
            session.commands_answered = 1
            lane.reclaim(commands_read=3)
            debugger.sendall(command(11, 2, 1, SIGNATURE[2]))
            handed = await lane.inbound.receive_some(65536)  # two of the session's commands unanswered
            assert handed == command(11, 2, 1, SIGNATURE[2]) and not lane.owns_socket

            session.commands_answered = 4
            lane.reclaim(commands_read=4)
            debugger.sendall(command(12, 2, 1, SIGNATURE[2]))
            assert await trio.to_thread.run_sync(read_reply, debugger) == (12, 0, BODY)
            assert lane.owns_socket and await answered(lane, 2)

            # a write gate held by the session: the lane does not write, it hands the command on
            assert session.writer.gate.take_nowait()
            debugger.sendall(command(13, 2, 1, SIGNATURE[2]))
            assert await lane.inbound.receive_some(65536) == command(13, 2, 1, SIGNATURE[2])
            session.writer.gate.give()
    finally:
        await lane.stop()
        debugger.close()
        ours.close()


async def test_the_end_of_the_stream_reaches_the_session():
    debugger, ours = socket.socketpair()
    ours.setblocking(False)
    session = fake_session(ReplyMemo(), ours)
    lane = FastLane(ours, session, trio.lowlevel.current_trio_token(), session_read=0)
    lane.start()
    try:
        with trio.fail_after(10):
            debugger.close()
            assert await lane.inbound.receive_some(65536) == b""
    finally:
        await lane.stop()
        ours.close()
