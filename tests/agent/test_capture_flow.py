"""Captures read outside the agent lock, and never waiting for the daemon (docs/extensions.md,
"Captures and a slow daemon"), straight over the link with our own AgentLink as the daemon.

- many threads hit a capture request at once while another thread hits a plain breakpoint that
  suspends it: every plain hit arrives and is resumed, every capture arrives whole, the program
  ends, and the capture request is cleared while threads are still in it;
- a daemon that reads nothing: the program's threads still finish, the captures the full queue
  could not take are dropped and counted (EXT_STATS "dropped"), and every capture that was not
  dropped arrives once the daemon reads again.
"""

from __future__ import annotations

import subprocess

from jdwpd.testing.debuggees import javac_argv

import pytest
import trio
from agent_support import run_jvm

from protocol.agent_code import decode_capture, encode_budget, encode_capture
from protocol.constants import EventKind

pytestmark = pytest.mark.jvm
BREAKPOINT, JDWPD_CAPTURE, NONE, EVENT_THREAD = 2, 200, 0, 1

SOURCE = """\
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Burst {
    static volatile long sink;

    static void hit(int t, int i, String big) {
        sink += t + i + big.length(); // @CAP
    }

    static void plain(int i) {
        sink += i; // @PLAIN
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]), each = Integer.parseInt(args[1]);
        int plains = Integer.parseInt(args[2]), bigLen = Integer.parseInt(args[3]);
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < bigLen; k++) sb.append((char) ('a' + k % 26));
        String big = sb.toString();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("ready");
        in.readLine();
        Thread[] ts = new Thread[threads + 1];
        for (int t = 0; t < threads; t++) {
            final int tt = t;
            ts[t] = new Thread(() -> { for (int i = 0; i < each; i++) hit(tt, i, big); }, "cap-" + t);
        }
        ts[threads] = new Thread(() -> { for (int i = 0; i < plains; i++) plain(i); }, "plain");
        for (Thread t : ts) t.start();
        for (Thread t : ts) t.join();
        System.out.println("done");
        in.readLine();
    }
}
"""


@pytest.fixture(scope="module")
def burst(tmp_path_factory):
    out = tmp_path_factory.mktemp("burst")
    (out / "Burst.java").write_text(SOURCE)
    subprocess.run([*javac_argv(), "-g", "-d", str(out), str(out / "Burst.java")], check=True, timeout=120)
    lines = {text.split("// @")[1].strip(): n for n, text in enumerate(SOURCE.splitlines(), 1) if "// @" in text}
    return out, lines


def capture_mods(loc, rid: int, max_string: int) -> list[dict]:
    cap = encode_capture(frames=3, locals_frames=1, depth=1, max_string=max_string, max_items=4,
                         max_bytes=1 << 20, max_micros=0, this=False, watches=[])
    return [{"mod_kind": 7, "args": {"location": loc}},
            {"mod_kind": 2, "args": {"expr_id": rid, "program": cap}},
            {"mod_kind": 2, "args": {"expr_id": 0, "program": encode_budget(cpu_ppm=0)}}]


def stats_of(reply: dict) -> dict[str, int]:
    return {c["name"]: c["value"] for c in reply["counters"]}


async def test_captures_on_many_threads_and_a_plain_breakpoint(agent_so, burst):
    classes, lines = burst
    threads, each, plains = 6, 300, 40
    async with run_jvm(agent_so, classes, "Burst", (str(threads), str(each), str(plains), "40")) as jvm:
        await jvm.expect("ready")
        ref = await jvm.class_id("LBurst;")
        cap_loc = await jvm.location_of_line(ref, "hit", lines["CAP"])
        plain_loc = await jvm.location_of_line(ref, "plain", lines["PLAIN"])
        await jvm.request("SET_REQUEST", request_id=11, event_kind=BREAKPOINT, suspend_policy=NONE,
                          modifiers=capture_mods(cap_loc, 11, 64))
        await jvm.request("SET_REQUEST", request_id=12, event_kind=BREAKPOINT, suspend_policy=EVENT_THREAD,
                          modifiers=[{"mod_kind": 7, "args": {"location": plain_loc}}])
        await jvm.send("go")
        captures, plain_hits = 0, 0
        with trio.fail_after(60):
            while plain_hits < plains or captures < threads * each:
                msg = await jvm.event(timeout=30)
                for h in msg["hits"]:
                    if h["request_id"] == 11:
                        assert h["event_kind"] == JDWPD_CAPTURE
                        cap = decode_capture(h["data"]["data"])
                        assert len(cap["frames"][0]["locals"]["big"]) == 40  # kept whole
                        assert set(cap["frames"][0]["locals"]) == {"t", "i", "big"}
                        captures += 1
                    elif h["request_id"] == 12:
                        assert msg["suspend_policy"] == EVENT_THREAD
                        plain_hits += 1
                        await jvm.request("THREAD_RESUME", thread=msg["thread"])
        stats = stats_of(await jvm.request("EXT_STATS", request_id=11))
        assert stats["hits"] == captures == threads * each and stats["dropped"] == 0, stats
        await jvm.expect("done", timeout=30)

        # Cleared while threads are inside it: no capture of it after the clear's reply, no crash.
        await jvm.request("SET_REQUEST", request_id=13, event_kind=BREAKPOINT, suspend_policy=NONE,
                          modifiers=capture_mods(cap_loc, 13, 64))
        await jvm.request("CLEAR_REQUEST", request_id=13)
        assert (await jvm.request("EXT_STATS", request_id=13))["counters"]  # its counters kept a while
        await jvm.send("exit")
        assert await jvm.wait_exit(30) == 0


async def _hits(jvm, request_id: int) -> int:
    counters = (await jvm.request("EXT_STATS", request_id=request_id))["counters"]
    return next(c["value"] for c in counters if c["name"] == "hits")


async def test_clear_while_many_threads_capture(agent_so, burst):
    classes, lines = burst
    threads, each = 6, 2000
    async with run_jvm(agent_so, classes, "Burst", (str(threads), str(each), "0", "40")) as jvm:
        await jvm.expect("ready")
        ref = await jvm.class_id("LBurst;")
        cap_loc = await jvm.location_of_line(ref, "hit", lines["CAP"])
        await jvm.request("SET_REQUEST", request_id=21, event_kind=BREAKPOINT, suspend_policy=NONE,
                          modifiers=capture_mods(cap_loc, 21, 64))
        await jvm.send("go")
        seen = 0
        with trio.fail_after(30):
            while seen < 200:
                msg = await jvm.event()
                seen += sum(1 for h in msg["hits"] if h["request_id"] == 21)
        await jvm.request("CLEAR_REQUEST", request_id=21)  # threads are mid-capture now
        hits_at_clear = await _hits(jvm, 21)
        await jvm.expect("done", timeout=60)
        after = 0
        with trio.move_on_after(0.5):
            while True:
                msg = await jvm.event()
                after += sum(1 for h in msg["hits"] if h["request_id"] == 21)
        # Captures sent or queued before the clear may trail it (with locals read by a walk, many
        # are in flight); none is matched after it, and none arrives that was not matched before.
        assert await _hits(jvm, 21) == hits_at_clear
        assert seen + after <= hits_at_clear, (seen, after, hits_at_clear)
        await jvm.send("exit")
        assert await jvm.wait_exit(30) == 0


async def test_a_daemon_that_reads_nothing_makes_captures_drop_not_wait(agent_so, burst):
    classes, lines = burst
    threads, each, big = 4, 500, 60000  # ~120 KB a capture: the 32 MiB queue is full after ~270
    async with run_jvm(agent_so, classes, "Burst", (str(threads), str(each), "0", str(big))) as jvm:
        await jvm.expect("ready")
        ref = await jvm.class_id("LBurst;")
        cap_loc = await jvm.location_of_line(ref, "hit", lines["CAP"])
        await jvm.request("SET_REQUEST", request_id=31, event_kind=BREAKPOINT, suspend_policy=NONE,
                          modifiers=capture_mods(cap_loc, 31, 65535))
        await jvm.send("go")
        # Nothing reads the link now: the program's threads must finish all the same.
        await jvm.expect("done", timeout=60)
        received = 0
        with trio.fail_after(60):
            stats = stats_of(await jvm.request("EXT_STATS", request_id=31))
            assert stats["hits"] == threads * each, stats
            assert 0 < stats["dropped"] < threads * each, stats
            while received < stats["hits"] - stats["dropped"]:
                msg = await jvm.event(timeout=30)
                for h in msg["hits"]:
                    if h["request_id"] == 31:
                        cap = decode_capture(h["data"]["data"])
                        assert len(cap["frames"][0]["locals"]["big"]) == big
                        received += 1
        with trio.move_on_after(0.5):
            while True:
                msg = await jvm.event()
                received += sum(1 for h in msg["hits"] if h["request_id"] == 31)
        assert received == stats["hits"] - stats["dropped"], (received, stats)
        await jvm.send("exit")
        assert await jvm.wait_exit(30) == 0


async def test_a_failed_condition_said_with_its_capture_is_dropped_with_it(agent_so, burst):
    """STOP_ON_ERROR: each hit is a JdwpdConditionError then its capture.  With nothing reading the
    link the program still ends (the pair never waits for the daemon), and a dropped capture takes
    its error with it: every error that arrives comes just before its own capture."""
    from test_ext_programs import i32, op, program

    from protocol.agent_code import ArithOp, BudgetFlag, Op, Reason

    classes, lines = burst
    threads, each, big = 4, 500, 60000
    async with run_jvm(agent_so, classes, "Burst", (str(threads), str(each), "0", str(big))) as jvm:
        await jvm.expect("ready")
        ref = await jvm.class_id("LBurst;")
        cap_loc = await jvm.location_of_line(ref, "hit", lines["CAP"])
        divide_by_zero = program(cap_loc.method, op(Op.CONST_I, i32(1)) + op(Op.CONST_I, i32(0)) +
                                 op(Op.ARITH, b"I", bytes([ArithOp.DIV])) + op(Op.END))
        mods = capture_mods(cap_loc, 41, 65535)
        mods[2]["args"]["program"] = encode_budget(cpu_ppm=0, flags=BudgetFlag.STOP_ON_ERROR)
        mods.insert(1, {"mod_kind": 2, "args": {"expr_id": 42, "program": divide_by_zero}})
        await jvm.request("SET_REQUEST", request_id=41, event_kind=BREAKPOINT, suspend_policy=NONE, modifiers=mods)
        await jvm.send("go")
        await jvm.expect("done", timeout=60)
        pairs = errors = 0
        with trio.fail_after(60):
            stats = stats_of(await jvm.request("EXT_STATS", request_id=41))
            assert stats["hits"] == threads * each and stats["arithmetic"] == threads * each, stats
            assert 0 < stats["dropped"] < threads * each, stats
            with trio.move_on_after(2):
                while pairs < stats["hits"] - stats["dropped"]:
                    msg = await jvm.event(timeout=30)
                    kinds = [(h["request_id"], h["event_kind"]) for h in msg["hits"]]
                    errors += kinds.count((41, EventKind.JDWPD_CONDITION_ERROR))
                    assert kinds == [(41, EventKind.JDWPD_CONDITION_ERROR), (41, EventKind.JDWPD_CAPTURE)], kinds
                    assert msg["hits"][0]["data"]["reason"] == Reason.ARITHMETIC
                    pairs += 1
        assert pairs == errors == stats["hits"] - stats["dropped"], (pairs, errors, stats)
        await jvm.send("exit")
        assert await jvm.wait_exit(30) == 0
