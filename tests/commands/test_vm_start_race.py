"""The VM start and a debugger's first Resume: the cause of the rare "TooSlowError waiting for CLASS_PREPARE".

The reference (suspend=y) makes its VM-start suspension on its event helper thread, while its command
loop already reads the debugger's commands: a Resume that comes before that suspension resumes nothing,
the suspension follows, and the VM stays suspended for good (a second Resume frees it).  Measured here
with a client that sends EventRequest.Set and Resume right after the handshake: 2 hangs in 90 sessions.
JDI and jdb wait for VMStart before they resume; the test kit's run_to_line did not, so about once in
a few thousand differential runs the reference side hung.  run_to_line now waits for VMStart (the first
test keeps it so), and jdwpd does not depend on the debugger's patience: a start owner's resume waits
for the agent's start event, which the agent sends once its suspension is made (the second test).
"""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import time

import pytest
import trio

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from protocol import spec
from protocol.constants import EventKind, ModKind, SuspendPolicy
from protocol.messages import encode_command
from tests.commands.types_support import TIMEOUT, Transcript

pytestmark = pytest.mark.jvm


async def test_run_to_line_resumes_only_after_vm_start(sample_classes, sample_markers):
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jvm("reference", sample_classes, "Sample") as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                order: list[tuple] = []
                send, wait_event = client.send_packet, client.next_event

                async def send_packet(set_id, cmd_id, data=b"", packet_id=None):
                    order.append(("sent", set_id, cmd_id))
                    return await send(set_id, cmd_id, data, packet_id)

                async def next_event(timeout=TIMEOUT):
                    policy, events = await wait_event(timeout)
                    order.append(("event", *(int(e.event_kind) for e in events)))
                    return policy, events

                client.send_packet, client.next_event = send_packet, next_event
                await Transcript(client, "reference").run_to_line("Sample", sample_markers["COMPUTE_TOTAL"])
                first_change = next(i for i, o in enumerate(order) if o in (("sent", 15, 1), ("sent", 1, 9)))
                assert ("event", EventKind.VM_START) in order[:first_change], order


def _packet(packet_id: int, set_name: str, cmd_name: str, fields: dict) -> bytes:
    cs = spec.by_name(set_name, cmd_name)
    data = encode_command(cs, fields)
    return struct.pack(">IIBBB", 11 + len(data), packet_id, 0, cs.set_id, cs.cmd_id) + data


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((jvm.HOST, 0))
        return s.getsockname()[1]


def _events_of(buf: bytes) -> list[int]:
    """The first event kind of every composite in what the server sent (after its handshake)."""
    kinds, pos = [], 14
    while len(buf) >= pos + 11:
        length, _, flags = struct.unpack_from(">IIB", buf, pos)
        if len(buf) < pos + length:
            break
        if flags == 0 and buf[pos + 9:pos + 11] == b"\x40\x64":
            kinds.append(buf[pos + 16])
        pos += length
    return kinds


def _early_resume_session(classes) -> list[int]:
    """jdwpd launched; a debugger connected as soon as the port takes connections (before the daemon
    serves) sends handshake, Set(ClassPrepare Sample) and Resume in one write: the events it gets."""
    port = _free_port()
    cmd = [*jdwpd_argv(), "launch", "--jdwp", f"{jvm.HOST}:{port}", "--suspend", "--",
           jvm.java_executable(), "-cp", str(classes), "Sample"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                sock = socket.create_connection((jvm.HOST, port), timeout=5)
                break
            except OSError:
                assert time.monotonic() < deadline, "jdwpd never took the connection"
                time.sleep(0.005)
        with sock:
            sock.sendall(b"JDWP-Handshake" + _packet(1, "EventRequest", "Set", {
                "event_kind": EventKind.CLASS_PREPARE, "suspend_policy": SuspendPolicy.ALL,
                "modifiers": [{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "Sample"}]})
                + _packet(2, "VirtualMachine", "Resume", {}))
            buf = b""
            end = time.monotonic() + 20
            while EventKind.CLASS_PREPARE not in _events_of(buf) and time.monotonic() < end:
                sock.settimeout(max(end - time.monotonic(), 0.01))
                try:
                    data = sock.recv(65536)
                except TimeoutError:
                    break
                if not data:
                    break
                buf += data
            return _events_of(buf)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def test_jdwpd_starts_however_early_the_resume(sample_classes):
    """A bounded stress: every session gets its VMStart and then its ClassPrepare."""
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    for _ in range(5):
        assert _early_resume_session(sample_classes) == [EventKind.VM_START, EventKind.CLASS_PREPARE]
