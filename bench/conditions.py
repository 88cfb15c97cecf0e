"""Conditions in the agent vs a debugger evaluating them over JDWP (issue 20, docs/extensions.md).

    python -m bench.conditions [--quick]

Three ways to run CondLoop's hot loop (a breakpoint on the line the loop calls every iteration):

- plain: no agent, no breakpoint;
- jdwpd, the condition in the agent: Jdwpd.CompileCondition + the Conditional modifier, suspend
  policy NONE, no CPU quota (the budget would otherwise disable the request within milliseconds:
  that is its job, and tests/ext/test_budgets.py checks it);
- reference + a client evaluating the condition over JDWP, as an IDE does it: each hit suspends
  the thread, the client reads the local (Frames, GetValues), evaluates, resumes.  Twice: with
  JDI (bench/jdi_java/BenchJdi.java, mode `cond`: the client IDEs use, and the issue's baseline)
  and with jdwpd's raw Python JDWP client (jdwpd.testing.client), whose own cost per command is
  higher.

Reports the loop's ns per iteration for each and the ratios; for a true condition (a logpoint
without a capture: one event per hit, suspend NONE) the hits per second the client receives,
against the reference's suspend-read-resume per hit.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, ModKind, SuspendPolicy

from .common import compiled_classes, marker
from .jdi_roundtrips import need, run_jdi_client, spawned

NS = re.compile(r"NS_PER_ITER ([0-9.eE+-]+)")
TIMEOUT = 300


def _loc(ref: int, method: int, index: int) -> dict:
    return {"mod_kind": ModKind.LOCATION_ONLY, "loc": {"type_tag": 1, "class_id": ref, "method_id": method,
                                                        "index": index}}


async def _prepare(c) -> tuple[int, int, int]:
    await c.wait_for_event(EventKind.VM_START, timeout=60)
    prep = await c.command("EventRequest", "Set", event_kind=EventKind.CLASS_PREPARE, suspend_policy=SuspendPolicy.ALL,
                           modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "CondLoop"}])
    await c.command("VirtualMachine", "Resume")
    _, events = await c.wait_for_event(EventKind.CLASS_PREPARE, timeout=60)
    await c.command("EventRequest", "Clear", event_kind=EventKind.CLASS_PREPARE, request_id=prep.request_id)
    ref = next(e for e in events if int(e.event_kind) == EventKind.CLASS_PREPARE).type_id
    line = marker("COND_BP")
    for m in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared:
        code, table = await c.command_raw("Method", "LineTable", ref_type=ref, method_id=m.method_id)
        if code == 0:
            for e in table.lines:
                if e.line_number == line:
                    return ref, m.method_id, e.line_code_index
    raise RuntimeError("no COND_BP")


def plain(n: int) -> float:
    out = subprocess.run(["java", "-cp", str(compiled_classes()), "CondLoop", str(n)], capture_output=True,
                         text=True, timeout=TIMEOUT, check=True).stdout
    return float(NS.search(out).group(1))


async def in_agent(n: int, condition: str) -> tuple[float, int, float]:
    """(ns per iteration, events received, seconds the loop took by the client's clock)."""
    async with jvm.open_jvm("jdwpd", compiled_classes(), "CondLoop", [str(n)]) as vm, \
            open_jdwp_client(vm.host, vm.port, timeout=60) as c:
        await c.command("VirtualMachine", "JdwpdHello", client_version=1)
        ref, method, index = await _prepare(c)
        r = await c.command("Jdwpd", "CompileCondition", ref_type=ref, method_id=method, index=index,
                            expression=condition)
        assert r.status == 0, r
        budget = await c.command("Jdwpd", "DefineBudget", hit_cap=0, expires_millis=0, rate_per_second=0, cpu_ppm=0,
                                 flags=0)
        await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.NONE,
                        modifiers=[_loc(ref, method, index), {"mod_kind": ModKind.CONDITIONAL, "expr_id": r.expr_id},
                                   {"mod_kind": ModKind.CONDITIONAL, "expr_id": budget.budget_id}])
        t0 = time.perf_counter()
        await c.command("VirtualMachine", "Resume")
        events = 0
        while True:
            _, evs = await c.next_event(TIMEOUT)
            events += sum(1 for e in evs if int(e.event_kind) == EventKind.BREAKPOINT)
            if any(int(e.event_kind) == EventKind.VM_DEATH for e in evs):
                break
        took = time.perf_counter() - t0
        await vm.wait_exit(60)
        return float(NS.search(vm.output.text("stdout")).group(1)), events, took


async def over_jdwp(n: int, condition) -> tuple[float, int, float]:
    """The reference agent, a client that evaluates the condition at each hit (suspend, read i, resume)."""
    async with jvm.open_jvm("reference", compiled_classes(), "CondLoop", [str(n)]) as vm, \
            open_jdwp_client(vm.host, vm.port, timeout=60) as c:
        ref, method, index = await _prepare(c)
        await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                        suspend_policy=SuspendPolicy.EVENT_THREAD, modifiers=[_loc(ref, method, index)])
        t0 = time.perf_counter()
        await c.command("VirtualMachine", "Resume")
        hits = 0
        while True:
            _, evs = await c.next_event(TIMEOUT)
            if any(int(e.event_kind) == EventKind.VM_DEATH for e in evs):
                break
            bp = next((e for e in evs if int(e.event_kind) == EventKind.BREAKPOINT), None)
            if bp is None:
                continue
            frames = await c.command("ThreadReference", "Frames", thread=bp.thread, start_frame=0, length=1)
            vals = await c.command("StackFrame", "GetValues", thread=bp.thread, frame=frames.frames[0].frame_id,
                                   slots=[{"slot": 0, "sigbyte": ord("I")}])
            if condition(vals.values[0].slot_value.value):
                hits += 1
            await c.command("ThreadReference", "Resume", thread=bp.thread)
        took = time.perf_counter() - t0
        await vm.wait_exit(60)
        return float(NS.search(vm.output.text("stdout")).group(1)), hits, took


def reference_jdi(n: int, log: bool = False) -> tuple[float, int, float]:
    """The reference agent and a JDI client evaluating `i < 0` at every hit (``log``: formatting a
    line of `i` instead): (the loop's ns per iteration, hits, seconds from resume to VMDeath)."""
    with spawned("reference", "CondLoop", [str(n)], suspend=True) as (port, log_out):
        v = run_jdi_client(["cond", "127.0.0.1", port, marker("COND_BP"), "i", *(["log"] if log else [])],
                           timeout=TIMEOUT)
        need(v, "hits", "seconds")
        deadline = time.monotonic() + 60
        while (m := NS.search(log_out.text("stdout"))) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if m is None:
            raise RuntimeError(f"CondLoop printed no NS_PER_ITER: {log_out.describe()[-1000:]}")
        return float(m.group(1)), int(v["hits"]), v["seconds"]


async def main(quick: bool) -> None:
    big, small = (2_000_000, 2_000) if quick else (10_000_000, 5_000)
    base = plain(big)
    jdi, _, _ = reference_jdi(small)
    ref, _, _ = await over_jdwp(small, lambda i: i < 0)
    print(f"plain loop {base:.2f} ns/iteration; reference + JDI evaluating i < 0: {jdi:.0f} ns/iteration; "
          f"reference + Python JDWP client: {ref:.0f} ns/iteration")
    # A local costs HotSpot a VM operation per read (JVMTI GetLocal* on a platform thread, even the
    # current one); a static field costs a JNI read.
    for condition, n in (("i < 0", big // 20), ("limit > 0", big)):
        ours, _, _ = await in_agent(n, condition)
        print(f"false condition {condition!r} in the agent: {ours:.1f} ns/iteration, "
              f"{(ours - base) / 1000:.2f} us per hit over plain; throughput {jdi / ours:.0f}x reference + JDI, "
              f"{ref / ours:.0f}x reference + Python client")
    hits_n = small * 20
    _, events, took = await in_agent(hits_n, "i >= 0")
    _, rhits, rtook = await over_jdwp(small, lambda i: i >= 0)
    ours_rate, ref_rate = events / took, rhits / rtook
    print(f"true condition (event per hit, suspend NONE): jdwpd {ours_rate:.0f} hits/s ({events} events)  "
          f"reference suspend-read-resume {ref_rate:.0f} hits/s;  ratio {ours_rate / ref_rate:.1f}x")


if __name__ == "__main__":
    trio.run(main, "--quick" in sys.argv)
