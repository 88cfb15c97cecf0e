"""Bad input to a live daemon: mutated, truncated, oversized and out-of-order packets, wrong IDs and types.

Every answer is a JDWP error (or success) with a code the specification defines, or the connection is
closed; the daemon and the JVM live on, and a well-formed session afterwards works.

The default run sends a few hundred packets; the long run is

    JDWPD_FUZZ_PACKETS=50000 python -m pytest tests/robustness/test_fuzz_daemon.py
"""

from __future__ import annotations

import os
import random
import struct

import pytest
import trio

from jdwpd.testing.client import open_jdwp_client
from protocol import spec
from protocol.constants import ErrorCode, EventKind, ModKind, SuspendPolicy, TypeTag
from protocol.jdwp import NEED_DATA, ConnectionClosed, HandshakeDone, JdwpConnection, Role
from protocol.packets import CommandPacket, ReplyPacket
from protocol.wire import Location
from tests.robustness.daemon_support import inprocess_daemon, loaded_class, marker, robustness_classes

pytestmark = pytest.mark.jvm
PACKETS = int(os.environ.get("JDWPD_FUZZ_PACKETS", "400"))
SEED = int(os.environ.get("JDWPD_FUZZ_SEED", "20261121"))
# Commands that end the program or run arbitrary code by design: a fuzzer that finds them harmful proves nothing.
DESTRUCTIVE = {
    ("VirtualMachine", "Exit"), ("VirtualMachine", "Dispose"), ("ThreadReference", "Stop"),
    ("ThreadReference", "Interrupt"), ("ThreadReference", "ForceEarlyReturn"), ("StackFrame", "PopFrames"),
    ("ClassType", "SetValues"), ("ObjectReference", "SetValues"), ("ArrayReference", "SetValues"),
    ("StackFrame", "SetValues"), ("ClassType", "InvokeMethod"), ("ClassType", "NewInstance"),
    ("InterfaceType", "InvokeMethod"), ("ObjectReference", "InvokeMethod"), ("VirtualMachine", "RedefineClasses"),
}
VALID_CODES = {int(c) for c in ErrorCode}


def random_body(rng: random.Random, ids: list[int]) -> bytes:
    """Plausible-looking bodies: real IDs, small ints, counts, strings, tags, garbage."""
    parts = []
    for _ in range(rng.randint(0, 6)):
        kind = rng.randint(0, 6)
        if kind == 0:
            parts.append(struct.pack(">Q", rng.choice(ids)))
        elif kind == 1:
            parts.append(struct.pack(">i", rng.choice([0, 1, -1, 2, 7, 2**31 - 1, -2**31])))
        elif kind == 2:
            text = rng.choice([b"", b"java.*", b"Ticker", b"\xc0\x80", b"\xff\xfe", b"x" * 300])
            parts.append(struct.pack(">i", len(text) + rng.choice([0, 0, 3, -5])) + text)
        elif kind == 3:
            parts.append(bytes([rng.choice(b"BCDFIJSZLs[tglcV?\0")]))
        elif kind == 4:
            parts.append(struct.pack(">Q", rng.getrandbits(64)))
        elif kind == 5:
            parts.append(bytes([rng.randint(0, 255)]))
        else:
            parts.append(rng.randbytes(rng.randint(1, 24)))
    return b"".join(parts)


def mutate_frame(rng: random.Random, packet_id: int, set_id: int, cmd_id: int, body: bytes) -> tuple[bytes, bool]:
    """(bytes to send, whether the framing itself is broken)."""
    length = 11 + len(body)
    roll = rng.random()
    if roll < 0.03:
        return struct.pack(">IIBBB", rng.choice([0, 5, 10]), packet_id, 0, set_id, cmd_id), True
    if roll < 0.05:
        return struct.pack(">IIBBB", 2**31 - 1, packet_id, 0, set_id, cmd_id) + body, True
    if roll < 0.07:
        return struct.pack(">IIBBB", length, packet_id, rng.choice([1, 0x40, 0x80]), set_id, cmd_id) + body, True
    return struct.pack(">IIBBB", length, packet_id, 0, set_id, cmd_id) + body, False


async def fuzz_connection(port: int, rng: random.Random, ids: list[int], budget: int,
                          tally: dict[str, int]) -> int:
    """Send up to ``budget`` packets on one connection; return how many were sent."""
    commands = [cs for cs in spec.COMMANDS.values() if (cs.set_name, cs.name) not in DESTRUCTIVE
                and cs.set_id != 64]
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = JdwpConnection(Role.CLIENT)
    sent = 0
    outstanding: set[int] = set()
    closed = False

    async def read_until_answered() -> None:
        nonlocal closed
        with trio.fail_after(15):
            while outstanding and not closed:
                chunk = await stream.receive_some(65536)
                conn.receive_data(chunk)
                while (event := conn.next_event()) is not NEED_DATA:
                    if isinstance(event, ReplyPacket):
                        assert event.error_code in VALID_CODES, event
                        tally["errors" if event.error_code else "successes"] += 1
                        outstanding.discard(event.id)
                    elif isinstance(event, ConnectionClosed):
                        tally["closed"] += 1
                        closed = True
                        break
                    else:
                        assert isinstance(event, HandshakeDone | CommandPacket), event

    async with stream:
        await stream.send_all(conn.send_handshake())
        while sent < budget and not closed:
            if rng.random() < 0.1:  # commands of sets and numbers that do not exist
                set_id, cmd_id = rng.choice([(0, 0), (1, 99), (19, 1), (64, 1), (255, 255), (11, 16)])
            else:
                cs = rng.choice(commands)
                set_id, cmd_id = cs.set_id, cs.cmd_id
            data, broken = mutate_frame(rng, sent + 1, set_id, cmd_id, random_body(rng, ids))
            try:
                await stream.send_all(data)
            except trio.BrokenResourceError:
                break  # closed on us after a broken frame: allowed
            outstanding.add(sent + 1)
            sent += 1
            if broken:
                # broken framing: whatever was answered before, the connection must end
                outstanding.add(-1)
                try:
                    await read_until_answered()
                except trio.BrokenResourceError:
                    closed = True
                assert closed, "a broken frame did not end the connection"
            elif rng.random() < 0.3:  # sometimes pipeline, sometimes wait
                await read_until_answered()
        if not closed:
            await read_until_answered()
    return sent


async def well_formed_session(port: int, line: int) -> None:
    async with open_jdwp_client("127.0.0.1", port, timeout=20) as c:
        ref = await loaded_class(c, "LTicker;")
        tick = next(m for m in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared
                    if m.name == "tick")
        table = await c.command("Method", "LineTable", ref_type=ref, method_id=tick.method_id)
        index = min(r.line_code_index for r in table.lines if r.line_number == line)
        await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.ALL,
                        modifiers=[{"mod_kind": ModKind.LOCATION_ONLY,
                                    "loc": Location(TypeTag.CLASS, ref, tick.method_id, index)}])
        await c.wait_for_event(EventKind.BREAKPOINT, 20)


async def test_fuzzed_packets_never_harm_the_daemon_or_the_jvm(tmp_path):
    classes = robustness_classes()
    rng = random.Random(SEED)
    async with inprocess_daemon(["-cp", str(classes), "Ticker", "1000000", "20"]) as d:
        async with open_jdwp_client("127.0.0.1", d.port, timeout=20) as c:
            threads = [t.thread for t in (await c.command("VirtualMachine", "AllThreads")).threads]
            classes_ = [k.type_id for k in (await c.command("VirtualMachine", "AllClasses")).classes]
        ids = threads + classes_[:200] + [0, 1, 2, 3, 2**63, 2**64 - 1, 0xDEADBEEF]
        sent = 0
        tally = {"errors": 0, "successes": 0, "closed": 0}
        while sent < PACKETS:
            sent += await fuzz_connection(d.port, rng, ids, min(60, PACKETS - sent), tally)
            assert d.jvm.returncode is None, "the JVM died"
        # the fuzzer really reached the command handlers, and really broke some framing
        print(tally)
        assert tally["errors"] > PACKETS // 3 and tally["closed"] > 0, tally
        await well_formed_session(d.port, marker("tick"))
        assert d.jvm.returncode is None


# --- jdwpd's extension (docs/extensions.md) ------------------------------------------------------
_ATOMS = ["n", "ticks", "0", "1", "-1", "2147483647", "-2147483648", "9223372036854775807L", "1.5", "0.0",
          "'x'", '"s"', "null", "true", "false", "this", "args", "Ticker.ticks", "Math.PI", "Integer.MAX_VALUE",
          "nosuch", "n.x", "new int[3]", "s.length()", "ticks.foo", "(String) null", "Integer.valueOf(n)",
          "String.valueOf(n).length()", "(\"a\" + n).length()"]
_BINARY = ["+", "-", "*", "/", "%", "<<", ">>", ">>>", "<", ">", "<=", ">=", "==", "!=", "&", "|", "^", "&&", "||"]


def hostile_expression(rng: random.Random, depth: int = 0) -> str:
    """Java-ish text: valid and invalid, typed and ill-typed, deep, zero divisors, nulls, bad indexes."""
    roll = rng.random()
    if depth > 6 or roll < 0.3:
        return rng.choice(_ATOMS)
    if roll < 0.55:
        return f"{hostile_expression(rng, depth + 1)} {rng.choice(_BINARY)} {hostile_expression(rng, depth + 1)}"
    if roll < 0.65:
        return f"({rng.choice(['int', 'long', 'byte', 'char', 'double', 'Object', 'String'])}) " \
               f"{hostile_expression(rng, depth + 1)}"
    if roll < 0.75:
        return f"{rng.choice(['!', '-', '~'])}({hostile_expression(rng, depth + 1)})"
    if roll < 0.82:
        return f"{hostile_expression(rng, depth + 1)} ? {hostile_expression(rng, depth + 1)} : " \
               f"{hostile_expression(rng, depth + 1)}"
    if roll < 0.88:
        return f"{hostile_expression(rng, depth + 1)} instanceof {rng.choice(['String', 'Integer', 'Nope', 'int'])}"
    if roll < 0.93:  # deep nesting: refused for the agent (its stack), never a crash
        k = rng.randint(20, 120)
        return "(" * k + "n" + "".join(f" + {i})" for i in range(k))
    return rng.choice(["n / 0 == 1", "n % 0 == 0", "args[5] == null", "args.length / (n - n) > 0",
                       "((String) null).length() == 0", "1 +", ")", "\"unterminated", "n ==== 1", "a" * 5000])


async def test_fuzzed_extension_never_harms_the_daemon_or_the_jvm(tmp_path):
    """Hostile expressions compiled and run in the agent on a live breakpoint, random bodies for the
    set's commands, Conditional modifiers with defined, forgotten and made-up ids: every answer is a
    JDWP error code or a reply, the program goes on ticking, no thread is left suspended."""
    classes = robustness_classes()
    rng = random.Random(SEED + 20)
    rounds = max(100, PACKETS // 4)
    async with inprocess_daemon(["-cp", str(classes), "Ticker", "1000000", "2"]) as d:
        async with open_jdwp_client("127.0.0.1", d.port, timeout=20) as c:
            hello = await c.command("VirtualMachine", "JdwpdHello", client_version=1)
            assert hello.version == 4
            ref = await loaded_class(c, "LTicker;")
            tick = next(m for m in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared
                        if m.name == "tick")
            table = await c.command("Method", "LineTable", ref_type=ref, method_id=tick.method_id)
            index = min(r.line_code_index for r in table.lines if r.line_number == marker("tick"))
            where = {"mod_kind": ModKind.LOCATION_ONLY, "loc": Location(TypeTag.CLASS, ref, tick.method_id, index)}
            ids = [0, -1, 2**31 - 1]
            statuses = {0: 0, 1: 0, 2: 0}
            requests = []
            ext = [cs for cs in spec.COMMANDS.values() if cs.set_id == 128]
            for _ in range(rounds):
                roll = rng.random()
                if roll < 0.5:
                    text = hostile_expression(rng)
                    r = await c.command("Jdwpd", rng.choice(["CompileCondition", "CompileExpression"]), ref_type=ref,
                                        method_id=tick.method_id, index=index, expression=text)
                    statuses[r.status] += 1
                    assert (r.status == 0) == (r.expr_id > 0), (text, r)
                    if r.status:
                        assert r.message, text
                    else:
                        ids.append(r.expr_id)
                elif roll < 0.55:
                    code, reply = await c.command_raw(
                        "Jdwpd", "DefineCapture", frames=rng.choice([0, 1, 5, 300]), locals_frames=rng.choice([0, 5]),
                        depth=rng.choice([0, 2, 20]), max_string=rng.choice([0, 3, 256]), max_items=rng.choice([0, 5]),
                        max_bytes=rng.choice([0, 100, 65536]), max_micros=rng.choice([0, 1, 10_000]),
                        this_object=rng.random() < 0.5, object_ids=rng.random() < 0.5,
                        watches=[{"expr_id": rng.choice(ids)} for _ in range(rng.randint(0, 2))])
                    assert code in (0, ErrorCode.ILLEGAL_ARGUMENT), code
                    if code == 0:
                        ids.append(reply.capture_id)
                elif roll < 0.6:
                    flags = rng.choice([0, 1, 2])  # 2: no such flag
                    code, b = await c.command_raw(
                        "Jdwpd", "DefineBudget", hit_cap=rng.choice([0, 1, 3]), expires_millis=rng.choice([0, 5, 1000]),
                        rate_per_second=rng.choice([0, 2]), cpu_ppm=rng.choice([0, 10, 10_000]), flags=flags)
                    assert code == (ErrorCode.ILLEGAL_ARGUMENT if flags == 2 else 0), (flags, code)
                    if code == 0:
                        ids.append(b.budget_id)
                elif roll < 0.85:
                    mods = [where] + [{"mod_kind": ModKind.CONDITIONAL, "expr_id": rng.choice(ids)}
                                      for _ in range(rng.randint(1, 3))]
                    code, reply = await c.command_raw("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                                      suspend_policy=SuspendPolicy.NONE, modifiers=mods)
                    assert code in (0, ErrorCode.ILLEGAL_ARGUMENT), code
                    if code == 0:
                        requests.append(reply.request_id)
                        code, _ = await c.command_raw("Jdwpd", "RequestStats", request_id=reply.request_id)
                        assert code in (0, ErrorCode.INVALID_EVENT_TYPE)
                elif roll < 0.9 and ids:
                    await c.command("Jdwpd", "Forget", id=rng.choice(ids))
                else:
                    cs = rng.choice(ext)
                    data = random_body(rng, [ref, tick.method_id, *[i & 0xFFFFFFFF for i in ids]])
                    reply = await c.reply(await c.send_packet(cs.set_id, cs.cmd_id, data), 20)
                    assert reply.error_code in VALID_CODES, reply
                if rng.random() < 0.1:
                    await trio.sleep(0.01)  # let the ticker hit the breakpoints
            assert statuses[0] > 0 and statuses[1] > 0 and statuses[2] > 0, statuses
            await trio.sleep(0.2)
            for rid in requests:
                await c.command("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=rid)
            # nothing left suspended: the main thread is running
            for t in (await c.command("VirtualMachine", "AllThreads")).threads:
                status = await c.command("ThreadReference", "Status", thread=t.thread)
                assert status.suspend_status == 0
        assert d.jvm.returncode is None, "the JVM died"
        await well_formed_session(d.port, marker("tick"))
        assert d.jvm.returncode is None

