"""Conditions in the agent: exactly the hits where the condition is true, Java as the oracle.

Each condition is compiled by the daemon (Jdwpd.CompileCondition) and attached to a breakpoint
through JDWP's Conditional modifier; the debuggee evaluates the same text in Java at the same
place and prints where it is true.  Errors (null, index, /0) are false with a reason counted.
"""

from __future__ import annotations

import pytest
import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import ErrorCode, EventKind, SuspendPolicy
from tests.ext.ext_support import (
    TIMEOUT,
    breakpoint_mods,
    compile_cond,
    conditional,
    location_of_line,
    oracle,
    prepare,
)

pytestmark = pytest.mark.jvm

CONDITIONS = [
    "i % 3 == 0",
    "i > 5 && i < 12",
    "l * 2 > 30L",
    "d / 2 < 3.5",
    's.equals("x4")',
    "s.length() == 3",
    "s == null",
    "arr.length > 2 && arr[2] == i",
    "arr[i] > 0",
    "f == i * 3",
    'name.equals("alpha") && i == 1',
    "o instanceof String",
    "o instanceof Integer",
    "boxed != null && boxed > 10",
    "boxed == null",
    "next != null && next.f == 0",
    "next.f == 3",
    "10 / (i - 4) > 1",
    "(int) d == 2",
    "-i < -15 || ~i == -3",
    "i << 28 < 0",
    "(i & 1) == 1 ^ (i & 2) == 2",
    "c == 'b'",
    "b < 0",
    "!(i >= 2) ? true : l == 7",
    "this.f > 20",
    "sf + i == 10",
    "Math.PI > 3 && i == 2",
    "i == 3 ? s.isEmpty() : false",
    "s.charAt(1) == '3'",
    "(long) i * 1000000000 > 5000000000L",
    "d != d",
    "Integer.MAX_VALUE + i < 0 == false && i > 20",
    "(byte) (i * 20) == b && (char) (i + 97) > 'm'",
    "d * 1e308 * 10 > 1e308",
    "(float) d / 3 == 1.0f",
    "arr == null || arr.length == 0",
    "s != null && s.equals(name)",
]
REFUSED = {  # not for the agent (status 2) or not Java (status 1), with the column
    "s.hashCode() == 0": 2,
    "s + 1 == null": 2,
    "i +": 1,
    "nosuch > 1": 1,
    "i": 1,
}


@pytest.fixture(scope="module")
def cond_classes(tmp_path_factory):
    return compile_cond(tmp_path_factory.mktemp("cond"), CONDITIONS)


async def test_conditions_give_exactly_the_true_hits(cond_classes):
    classes, lines = cond_classes
    with trio.fail_after(4 * TIMEOUT):
        async with jvm.open_jvm("jdwpd", classes, "Cond") as debuggee, \
                open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as c:
            hello = await c.command("VirtualMachine", "JdwpdHello", client_version=1, timeout=TIMEOUT)
            # 16: catch filters (version 3); 32: pushed stops (version 4)
            assert hello.version == 4 and hello.features == 1 | 2 | 4 | 8 | 16 | 32
            ref = await prepare(c, "Cond")
            method, index = await location_of_line(c, ref, lines["bp"])
            by_request = {}
            for k, text in enumerate(CONDITIONS):
                r = await c.command("Jdwpd", "CompileCondition", ref_type=ref, method_id=method, index=index,
                                    expression=text, timeout=TIMEOUT)
                assert r.status == 0, (text, r.message, r.column)
                req = await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                      suspend_policy=SuspendPolicy.EVENT_THREAD,
                                      modifiers=breakpoint_mods(ref, method, index, conditional(r.expr_id)),
                                      timeout=TIMEOUT)
                by_request[req.request_id] = k
            for text, status in REFUSED.items():
                r = await c.command("Jdwpd", "CompileCondition", ref_type=ref, method_id=method, index=index,
                                    expression=text, timeout=TIMEOUT)
                assert (r.status, r.expr_id) == (status, 0), (text, r)
                assert r.message and r.column >= 1, (text, r)
            # An id nobody defined: refused for a session of the extension.
            code, _ = await c.command_raw("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                          suspend_policy=SuspendPolicy.NONE,
                                          modifiers=breakpoint_mods(ref, method, index, conditional(987654)),
                                          timeout=TIMEOUT)
            assert code == ErrorCode.ILLEGAL_ARGUMENT
            done_method, done_index = await location_of_line(c, ref, lines["done"])
            await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.ALL,
                            modifiers=breakpoint_mods(ref, done_method, done_index), timeout=TIMEOUT)
            await c.command("VirtualMachine", "Resume", timeout=TIMEOUT)
            seen = set()
            while True:
                _, events = await c.next_event(TIMEOUT)
                bps = [e for e in events if int(e.event_kind) == EventKind.BREAKPOINT]
                assert bps, events
                thread = bps[0].thread
                if bps[0].location.method_id == done_method:
                    break
                frames = await c.command("ThreadReference", "Frames", thread=thread, start_frame=0, length=1,
                                         timeout=TIMEOUT)
                values = await c.command("StackFrame", "GetValues", thread=thread, frame=frames.frames[0].frame_id,
                                         slots=[{"slot": 1, "sigbyte": ord("I")}], timeout=TIMEOUT)
                i = values.values[0].slot_value.value
                for e in bps:
                    seen.add((by_request[e.request_id], i))
                await c.command("ThreadReference", "Resume", thread=thread, timeout=TIMEOUT)
            stats = {}
            for rid, k in by_request.items():
                stats[CONDITIONS[k]] = await c.command("Jdwpd", "RequestStats", request_id=rid, timeout=TIMEOUT)
            await c.command("VirtualMachine", "Resume", timeout=TIMEOUT)
            await debuggee.wait_exit(TIMEOUT)
            want = oracle(debuggee.output.lines("stdout"))
            assert want, debuggee.output.describe()
            names = {k: t for k, t in enumerate(CONDITIONS)}
            assert sorted((names[k], i) for k, i in seen - want) == [], "hit where Java says false"
            assert sorted((names[k], i) for k, i in want - seen) == [], "missed where Java says true"
            # Errors are false with a reason: index, null, /0.
            assert stats["arr[i] > 0"].index_errors > 0
            assert stats["next.f == 3"].null_errors > 0
            assert stats["10 / (i - 4) > 1"].arithmetic_errors == 1
            assert all(s.evaluations == 24 for s in stats.values()), stats
            assert all(s.trues == s.hits for s in stats.values())
