"""The JDWP server side of the daemon over real sockets: handshake, probes, many debuggers, Dispose, events.

No JVM here: the VM object is the real one, with no agent link behind it, so only commands
that never reach the agent are used.  Everything that needs a JVM is in test_virtual_machine.py.
"""

import socket
import struct

import pytest
import trio

from jdwpd.daemon.server import serve_jdwp
from jdwpd.daemon.vm import VM
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import ErrorCode, EventKind, SuspendPolicy
from protocol.messages import Events
from protocol.packets import HANDSHAKE

TIMEOUT = 10


@pytest.fixture
async def server(nursery):
    vm = VM(None)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    await nursery.start(serve_jdwp, listeners, vm)
    port = listeners[0].socket.getsockname()[1]
    return vm, port


async def _wait_sessions(vm, n):
    with trio.fail_after(TIMEOUT):
        while len(vm.sessions) != n:
            await trio.sleep(0.01)


async def test_handshake_one_byte_at_a_time(server):
    vm, port = server
    with trio.fail_after(TIMEOUT):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        for b in HANDSHAKE:
            await stream.send_all(bytes([b]))
            await trio.sleep(0.001)
        got = b""
        while len(got) < len(HANDSHAKE):
            got += await stream.receive_some(64)
        assert got == HANDSHAKE
        # IDSizes, written a byte at a time as well
        packet = struct.pack(">IIBBB", 11, 1, 0, 1, 7)
        for b in packet:
            await stream.send_all(bytes([b]))
        reply = b""
        while len(reply) < 31:
            reply += await stream.receive_some(64)
        assert struct.unpack(">IIBH", reply[:11]) == (31, 1, 0x80, 0)
        assert struct.unpack(">5i", reply[11:]) == (8, 8, 8, 8, 8)
        await stream.aclose()


async def test_probes_never_disturb_the_listener(server):
    vm, port = server
    with trio.fail_after(TIMEOUT):
        for probe in (b"", b"GET / HTTP/1.0\r\n\r\n", b"JDWP-Hand"):
            s = await trio.open_tcp_stream("127.0.0.1", port)
            if probe:
                await s.send_all(probe)
            await s.aclose()
        async with open_jdwp_client("127.0.0.1", port) as c:
            r = await c.command("VirtualMachine", "IDSizes")
            assert r.object_idsize == 8


async def test_a_garbage_handshake_is_refused(server):
    vm, port = server
    with trio.fail_after(TIMEOUT):
        s = await trio.open_tcp_stream("127.0.0.1", port)
        await s.send_all(b"HELLO-Handshake")
        assert await s.receive_some(64) == b""  # closed without an answer
        await s.aclose()


async def test_several_debuggers_at_once_and_pipelined_commands(server):
    vm, port = server
    async with open_jdwp_client("127.0.0.1", port) as a, open_jdwp_client("127.0.0.1", port) as b:
        await _wait_sessions(vm, 2)
        ids = [await a.send_packet(1, 7) for _ in range(50)] + [await a.send_packet(1, 99)]
        other = await b.command("VirtualMachine", "IDSizes")
        assert other.frame_idsize == 8
        replies = [await a.reply(i, TIMEOUT) for i in ids]
        assert [r.error_code for r in replies] == [0] * 50 + [ErrorCode.NOT_IMPLEMENTED]


async def test_dispose_answers_then_closes_and_a_new_debugger_can_attach(server):
    vm, port = server
    for _ in range(3):
        async with open_jdwp_client("127.0.0.1", port) as c:
            await _wait_sessions(vm, 1)
            await c.command("VirtualMachine", "Dispose")
            await c.wait_closed(TIMEOUT)
        await _wait_sessions(vm, 0)


async def test_held_events_wait_for_release(server):
    vm, port = server
    async with open_jdwp_client("127.0.0.1", port) as c:
        await _wait_sessions(vm, 1)
        session = vm.sessions[0]
        await c.command("VirtualMachine", "HoldEvents")
        await session.send_event(SuspendPolicy.NONE, (Events.ThreadStart(request_id=5, thread=42),))
        with trio.move_on_after(0.3):
            await c.next_event(TIMEOUT)
            pytest.fail("an event went out while events were held")
        await c.command("VirtualMachine", "ReleaseEvents")
        policy, events = await c.next_event(TIMEOUT)
        assert policy == SuspendPolicy.NONE
        assert events[0].event_kind == EventKind.THREAD_START and events[0].thread == 42


async def test_a_broken_packet_drops_that_debugger_only(server):
    vm, port = server
    async with open_jdwp_client("127.0.0.1", port) as good:
        await _wait_sessions(vm, 1)
        async with open_jdwp_client("127.0.0.1", port) as bad:
            await _wait_sessions(vm, 2)
            await bad.send_raw(struct.pack(">IIBBB", 5, 9, 0, 1, 7))  # length shorter than a header
            await bad.wait_closed(TIMEOUT)
        async with open_jdwp_client("127.0.0.1", port) as bad:
            await bad.send_raw(struct.pack(">IIBH", 11, 9, 0x80, 0))  # a reply sent to the server
            await bad.wait_closed(TIMEOUT)
        await _wait_sessions(vm, 1)
        assert (await good.command("VirtualMachine", "IDSizes")).frame_idsize == 8


async def test_a_debugger_that_leaves_without_reading_its_replies(server):
    vm, port = server
    for _ in range(5):
        with trio.fail_after(TIMEOUT):
            s = await trio.open_tcp_stream("127.0.0.1", port)
            await s.send_all(HANDSHAKE)
            await s.send_all(b"".join(struct.pack(">IIBBB", 11, i, 0, 1, 7) for i in range(1, 200)))
            s.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
            await s.aclose()
    await _wait_sessions(vm, 0)
    async with open_jdwp_client("127.0.0.1", port) as c:
        assert (await c.command("VirtualMachine", "IDSizes")).object_idsize == 8
