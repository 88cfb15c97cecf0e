"""Debuggers leave in every way a debugger can; the JVM runs on and nothing they caused is left behind."""

from __future__ import annotations

import socket
import struct

import pytest
import trio

from jdwpd.testing.client import open_jdwp_client
from protocol import messages, spec
from protocol.constants import EventKind, ModKind, SuspendPolicy, Tag, TypeTag
from protocol.wire import Location, Value
from tests.robustness.daemon_support import inprocess_daemon, loaded_class, marker, robustness_classes

pytestmark = pytest.mark.jvm

WAYS = ["dispose", "close", "killed", "killed holding events", "killed during an invocation"]


def reset_on_close(stream) -> None:
    """Make close() send RST, as a killed debugger's kernel would."""
    stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


async def one_debugger(port: int, line: int, way: str, vm=None) -> None:
    """``vm`` given: the debugger leaves while the session's fast lane reads its socket."""
    async with open_jdwp_client("127.0.0.1", port, timeout=20) as c:
        ref = await loaded_class(c, "LTicker;")
        methods = {m.name: m.method_id for m in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared}
        table = await c.command("Method", "LineTable", ref_type=ref, method_id=methods["tick"])
        index = min(r.line_code_index for r in table.lines if r.line_number == line)
        await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.ALL,
                        modifiers=[{"mod_kind": ModKind.LOCATION_ONLY,
                                    "loc": Location(TypeTag.CLASS, ref, methods["tick"], index)}])
        await c.command("EventRequest", "Set", event_kind=EventKind.THREAD_START,
                        suspend_policy=SuspendPolicy.EVENT_THREAD, modifiers=[])
        _, events = await c.wait_for_event(EventKind.BREAKPOINT, 20)
        thread = events[0].thread
        await c.command("ObjectReference", "DisableCollection", object=thread)  # a pin to undo
        if vm is not None:
            # Memo answers in a row: the lane takes the socket (jdwpd/daemon/fast/lane.py).  A reply computed
            # across an event's new suspension is not kept, so it may take more than the lane's two.
            for _ in range(20):
                assert (await c.command("ReferenceType", "Signature", ref_type=ref)).signature == "LTicker;"
                lane = vm.sessions[-1].reader.lane
                if lane is not None and lane.owns_socket and lane.answered >= 1:
                    break
            assert lane is not None and lane.owns_socket and lane.answered >= 1
        if way == "dispose":
            await c.command("VirtualMachine", "Dispose")
            return
        if way == "killed holding events":
            await c.command("VirtualMachine", "HoldEvents")
        if way == "killed during an invocation":
            cs = spec.by_name("ClassType", "InvokeMethod")
            data = messages.encode_command(cs, {"clazz": ref, "thread": thread, "method_id": methods["slow"],
                                                "arguments": [Value(Tag.INT, 400)], "options": 0}, c.sizes)
            await c.send_packet(cs.set_id, cs.cmd_id, data)
            await trio.sleep(0.1)  # the invocation is under way in the JVM
        if way != "close":
            reset_on_close(c.stream)


@pytest.mark.parametrize("lane", [False, True], ids=["", "lane"])
@pytest.mark.parametrize("ways", [WAYS[:4], WAYS[4:]], ids=["dispose-close-killed-holding", "during-invocation"])
async def test_debuggers_leave_and_leave_nothing_behind(tmp_path, ways, lane):
    classes = robustness_classes()
    line = marker("tick")
    async with inprocess_daemon(["-cp", str(classes), "Ticker", "100000", "5"]) as d:
        await trio.sleep(0.5)
        fds, threads = d.jvm_fds(), d.jvm_threads()
        after_first = None
        for round_ in range(max(8, 2 * len(ways))):
            with trio.fail_after(30):
                await one_debugger(d.port, line, ways[round_ % len(ways)], d.vm if lane else None)
                # the daemon undoes the session; give it a moment, then look inside
                for _ in range(100):
                    stats = await d.agent_stats()
                    if stats["filters"] == 0 and stats["pins"] == 0 and not d.vm.sessions:
                        break
                    await trio.sleep(0.05)
            assert stats["filters"] == 0, (ways[round_ % len(ways)], stats)
            assert stats["breakpoints"] == 0 and stats["events_enabled"] == 0, stats
            assert stats["pins"] == 0 and stats["suspend_all_depth"] == 0, stats
            if after_first is None:
                after_first = stats
        # the same objects keep their ids: sessions that touch the same things do not grow the table
        assert stats["ids"] <= after_first["ids"] + 5, (after_first, stats)
        await trio.sleep(0.5)  # the invoked method's sleep and the threads it woke are over
        assert d.jvm_fds() == fds
        assert d.jvm_threads() == threads
        assert d.jvm.returncode is None  # and the JVM runs on
