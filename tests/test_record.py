"""The recording proxy, and decoding of real traffic recorded between jdb and the reference agent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import trio

from jdwpd.cli.record import Tracer, record
from protocol import spec
from protocol.jdwp import HandshakeDone, JdwpConnection, Role
from protocol.messages import decode_reply, encode_command
from protocol.packets import CommandPacket, PacketParser, ReplyPacket
from protocol.wire import IDSizes

RECORDINGS = sorted((Path(__file__).parent / "fixtures" / "recordings").glob("*.jsonl"))
SAMPLE = Path(__file__).resolve().parents[1] / "jdwpd" / "samples" / "Sample.java"


def packets(path: Path):
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        parser = PacketParser()
        parser.feed(bytes.fromhex(rec["hex"]))
        packet = parser.next_packet()
        assert packet is not None and parser.buffered == 0
        yield rec["dir"], packet


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda p: p.stem)
def test_recorded_jdb_traffic_decodes_completely(recording):
    lines: list[str] = []
    tracer = Tracer(lines.append, None)
    seen_commands = set()
    for direction, packet in packets(recording):
        assert (direction == "c2s") == (isinstance(packet, CommandPacket) and packet.command_set != 64)
        if isinstance(packet, CommandPacket):
            seen_commands.add((packet.command_set, packet.command))
        tracer.packet(direction, packet, b"")
    assert len(lines) > 100
    assert not [line for line in lines if "UNDECODABLE" in line or "unknown" in line]
    # jdb's attach sequence and a stop: the recordings really exercise the codecs
    assert spec.by_name("VirtualMachine", "IDSizes").cmd_id in {c for s, c in seen_commands if s == 1}
    assert (64, 100) in seen_commands
    assert any("Breakpoint(" in line or "SingleStep(" in line for line in lines)
    # every reply found the command it answers
    assert not [line for line in lines if line.startswith("<-") and " reply " in line]


@pytest.mark.jvm
async def test_record_proxy_forwards_and_traces_a_live_session(tmp_path):
    subprocess.run(["javac", "-g", "-d", str(tmp_path), str(SAMPLE)], check=True, timeout=120)
    vm = subprocess.Popen(["java", "-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0",
                           "-cp", str(tmp_path), "Sample"], stdout=subprocess.PIPE, text=True)
    try:
        with trio.fail_after(30):
            banner = await trio.to_thread.run_sync(vm.stdout.readline)
            vm_port = int(banner.strip().rsplit(":", 1)[1])
            lines: list[str] = []
            async with trio.open_nursery() as nursery:
                proxy_port = await nursery.start(lambda task_status: record(
                    ("127.0.0.1", 0), ("127.0.0.1", vm_port), out=str(tmp_path / "raw.jsonl"), once=True,
                    write_line=lines.append, task_status=task_status))
                stream = await trio.open_tcp_stream("127.0.0.1", proxy_port)
                conn = JdwpConnection(Role.CLIENT)
                await stream.send_all(conn.send_handshake())
                replies = {}
                version = spec.by_name("VirtualMachine", "Version")
                exit_cmd = spec.by_name("VirtualMachine", "Exit")
                await stream.send_all(conn.send(CommandPacket(1, 0, 1, version.cmd_id, b"")))
                while 1 not in replies:
                    conn.receive_data(await stream.receive_some(65536))
                    while isinstance(event := conn.next_event(), (HandshakeDone, ReplyPacket, CommandPacket)):
                        if isinstance(event, ReplyPacket):
                            replies[event.id] = event
                reply = decode_reply(version, replies[1].data, IDSizes())
                data = encode_command(exit_cmd, {"exit_code": 3}, IDSizes())
                await stream.send_all(conn.send(CommandPacket(2, 0, 1, exit_cmd.cmd_id, data)))
                await stream.aclose()
        assert await trio.to_thread.run_sync(vm.wait) == 3
    finally:
        if vm.poll() is None:
            vm.kill()
            vm.wait()
    assert reply.jdwp_major >= 1
    assert any(line.startswith("-> [1] VirtualMachine.Version") for line in lines)
    assert any(line.startswith("<- [1] VirtualMachine.Version") and "Java Debug Wire Protocol" in line
               for line in lines)
    assert any(line.startswith("-> [2] VirtualMachine.Exit") and "exit_code=3" in line for line in lines)
    raw = [json.loads(x) for x in (tmp_path / "raw.jsonl").read_text().splitlines()]
    assert [r["dir"] for r in raw].count("c2s") == 2  # Version and Exit, byte for byte
    assert bytes.fromhex(raw[[r["dir"] for r in raw].index("c2s")]["hex"])[9:11] == bytes([1, version.cmd_id])
