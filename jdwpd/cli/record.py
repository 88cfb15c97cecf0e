"""`jdwpd record`: a JDWP proxy that forwards a session unchanged and traces it.

The trace is readable (one line a packet, decoded through protocol/), the
optional ``--out`` file keeps the raw packets as JSON lines so that a session
can be replayed or decoded again: tests/protocol/fixtures holds such
recordings of jdb against the reference agent.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import IO, Any

import trio

from protocol import messages, spec
from protocol.packets import HANDSHAKE, CommandPacket, PacketParser, ReplyPacket, encode_packet
from protocol.wire import IDSizes, ProtocolError

EVENT_SET, COMPOSITE = 64, 100


class Tracer:
    """Decodes both directions of one session; remembers which command each reply answers."""

    def __init__(self, write_line: Callable[[str], object], raw_out: IO[str] | None) -> None:
        self.write_line = write_line
        self.raw_out = raw_out
        self.sizes = IDSizes()
        self.pending: dict[int, Any] = {}

    def packet(self, direction: str, packet: CommandPacket | ReplyPacket, raw: bytes) -> None:
        if self.raw_out is not None:
            self.raw_out.write(json.dumps({"dir": direction, "hex": raw.hex()}) + "\n")
        self.write_line(describe(self, direction, packet))


def describe(tracer: Tracer, direction: str, packet: CommandPacket | ReplyPacket) -> str:
    arrow = "->" if direction == "c2s" else "<-"
    if isinstance(packet, CommandPacket):
        cmd = spec.lookup(packet.command_set, packet.command)
        if cmd is None:
            return f"{arrow} [{packet.id}] unknown command {packet.command_set}/{packet.command} {packet.data.hex()}"
        if direction == "c2s":
            tracer.pending[packet.id] = cmd
        try:
            if (packet.command_set, packet.command) == (EVENT_SET, COMPOSITE):
                policy, events = messages.decode_composite(packet.data, tracer.sizes)
                body = f"suspend_policy={policy} {list(events)}"
            else:
                body = repr(messages.decode_command(cmd, packet.data, tracer.sizes))
        except ProtocolError as e:
            body = f"UNDECODABLE ({e}) {packet.data.hex()}"
        return f"{arrow} [{packet.id}] {cmd.set_name}.{cmd.name} {body}"
    cmd = tracer.pending.pop(packet.id, None)
    name = f"{cmd.set_name}.{cmd.name}" if cmd else "reply"
    if packet.error_code:
        return f"{arrow} [{packet.id}] {name} ERROR {packet.error_code}"
    if cmd is None:
        return f"{arrow} [{packet.id}] reply to an unknown command {packet.data.hex()}"
    try:
        reply = messages.decode_reply(cmd, packet.data, tracer.sizes)
    except ProtocolError as e:
        return f"{arrow} [{packet.id}] {name} UNDECODABLE ({e}) {packet.data.hex()}"
    if (cmd.set_name, cmd.name) == ("VirtualMachine", "IDSizes"):
        tracer.sizes = IDSizes(reply.field_idsize, reply.method_idsize, reply.object_idsize,
                               reply.reference_type_idsize, reply.frame_idsize)
    return f"{arrow} [{packet.id}] {name} {reply!r}"


async def _pump(src: trio.SocketStream, dst: trio.SocketStream, direction: str, tracer: Tracer) -> None:
    parser = PacketParser()
    handshake = b""
    while True:
        data = await src.receive_some(65536)
        if not data:
            await dst.send_eof()
            return
        await dst.send_all(data)
        if len(handshake) < len(HANDSHAKE):
            need = len(HANDSHAKE) - len(handshake)
            handshake += data[:need]
            data = data[need:]
            if len(handshake) == len(HANDSHAKE):
                arrow = "->" if direction == "c2s" else "<-"
                tracer.write_line(f"{arrow} handshake {handshake.decode(errors='replace')}")
        parser.feed(data)
        while (packet := parser.next_packet()) is not None:
            tracer.packet(direction, packet, encode_packet(packet))


async def proxy_session(client: trio.SocketStream, target: tuple[str, int], tracer: Tracer) -> None:
    try:
        server = await trio.open_tcp_stream(*target)
    except OSError as e:
        tracer.write_line(f"!! cannot connect to {target[0]}:{target[1]}: {e}")
        await client.aclose()
        return
    async with client, server:
        async with trio.open_nursery() as nursery:
            async def one_way(src: trio.SocketStream, dst: trio.SocketStream, direction: str) -> None:
                try:
                    await _pump(src, dst, direction, tracer)
                except (trio.BrokenResourceError, trio.ClosedResourceError, ProtocolError) as e:
                    tracer.write_line(f"!! {direction}: {e}")
                nursery.cancel_scope.cancel()

            nursery.start_soon(one_way, client, server, "c2s")
            nursery.start_soon(one_way, server, client, "s2c")
    tracer.write_line("-- session ended")


async def record(listen: tuple[str, int], target: tuple[str, int], *, out: str | None, once: bool,
                 write_line: Callable[[str], object] | None = None,
                 task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    write_line = write_line or (lambda line: print(line, flush=True))
    raw_out = open(out, "w") if out else None  # noqa: SIM115 - closed below
    try:
        listeners = await trio.open_tcp_listeners(listen[1], host=listen[0])
        port = listeners[0].socket.getsockname()[1]
        print(f"jdwpd record: listening at {listen[0]}:{port}, forwarding to {target[0]}:{target[1]}",
              file=sys.stderr, flush=True)
        task_status.started(port)
        while True:
            stream = await listeners[0].accept()
            await proxy_session(stream, target, Tracer(write_line, raw_out))
            if raw_out is not None:
                raw_out.flush()
            if once:
                return
    finally:
        if raw_out is not None:
            raw_out.close()


def run_record(listen: tuple[str, int], target: tuple[str, int], *, out: str | None, once: bool) -> int:
    import socket

    from jdwpd.usage import UsageError

    probe = socket.socket(socket.AF_INET6 if ":" in listen[0] else socket.AF_INET)
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:  # a busy or foreign address is the user's to fix: say so before any task starts
        probe.bind(listen)
    except OSError as e:
        raise UsageError(f"cannot listen for debuggers on {listen[0]}:{listen[1]}: {e.strerror}") from None
    finally:
        probe.close()
    if out is not None:
        try:
            open(out, "a").close()
        except OSError as e:
            raise UsageError(f"cannot write --out {out}: {e.strerror}") from None
    trio.run(lambda: record(listen, target, out=out, once=once))
    return 0
