"""Snapshots and logpoints captured in the agent vs over standard JDWP (issue 20 item 6).

    python -m bench.snapshots [--quick]

- snapshot: SnapLoop calls a method five frames deep; a breakpoint there captures 5 frames with
  their locals, `this`, objects to depth 2.  The program measures each call, so the number is the
  thread's pause.  jdwpd: a JdwpdCapture request, suspend NONE (the agent reads and sends; nothing
  waits for the daemon).  Reference: the same capture the standard way, jdwpd's scripting API
  against the reference agent (`hit.snapshot(Limits(frames=5, locals_frames=5, depth=2))`: suspend,
  Frames, variable tables, GetValues, ThisObject, fields, resume); plain: no debugger.
- logpoint: CondLoop's loop with a logpoint printing `i`; hits per second.  jdwpd: a capture of the
  watch `i`, suspend NONE; reference: the API's logpoint (suspend, read `i`, resume).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

import trio

import jdwpd
from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, ModKind, SuspendPolicy

from .common import compiled_classes, marker
from .conditions import NS, reference_jdi

PAUSE = re.compile(r"PAUSE_US ([0-9.]+) ([0-9.]+)")
TIMEOUT = 600


def _loc(ref: int, method: int, index: int) -> dict:
    return {"mod_kind": ModKind.LOCATION_ONLY, "loc": {"type_tag": 1, "class_id": ref, "method_id": method,
                                                        "index": index}}


async def _prepare(c, cls: str, line: int) -> tuple[int, int, int]:
    await c.wait_for_event(EventKind.VM_START, timeout=60)
    prep = await c.command("EventRequest", "Set", event_kind=EventKind.CLASS_PREPARE, suspend_policy=SuspendPolicy.ALL,
                           modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": cls}])
    await c.command("VirtualMachine", "Resume")
    _, events = await c.wait_for_event(EventKind.CLASS_PREPARE, timeout=60)
    await c.command("EventRequest", "Clear", event_kind=EventKind.CLASS_PREPARE, request_id=prep.request_id)
    ref = next(e for e in events if int(e.event_kind) == EventKind.CLASS_PREPARE).type_id
    for m in (await c.command("ReferenceType", "Methods", ref_type=ref)).declared:
        code, table = await c.command_raw("Method", "LineTable", ref_type=ref, method_id=m.method_id)
        if code == 0:
            for e in table.lines:
                if e.line_number == line:
                    return ref, m.method_id, e.line_code_index
    raise RuntimeError(f"no line {line}")


async def jdwpd_capture(main: str, args: list[str], line: int, limits: dict,
                        watches: list[str]) -> tuple[str, int, float]:
    """(stdout, captures received, seconds from resume to the VM's death)."""
    async with jvm.open_jvm("jdwpd", compiled_classes(), main, args) as vm, \
            open_jdwp_client(vm.host, vm.port, timeout=60) as c:
        await c.command("VirtualMachine", "JdwpdHello", client_version=1)
        ref, method, index = await _prepare(c, main, line)
        ids = []
        for w in watches:
            r = await c.command("Jdwpd", "CompileExpression", ref_type=ref, method_id=method, index=index, expression=w)
            ids.append({"expr_id": r.expr_id})
        cap = await c.command("Jdwpd", "DefineCapture", watches=ids, **limits)
        budget = await c.command("Jdwpd", "DefineBudget", hit_cap=0, expires_millis=0, rate_per_second=0, cpu_ppm=0,
                                 flags=0)
        await c.command("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.NONE,
                        modifiers=[_loc(ref, method, index),
                                   {"mod_kind": ModKind.CONDITIONAL, "expr_id": cap.capture_id},
                                   {"mod_kind": ModKind.CONDITIONAL, "expr_id": budget.budget_id}])
        t0 = time.perf_counter()
        await c.command("VirtualMachine", "Resume")
        n = 0
        while True:
            _, evs = await c.next_event(TIMEOUT)
            n += sum(1 for e in evs if int(e.event_kind) == EventKind.JDWPD_CAPTURE)
            if any(int(e.event_kind) == EventKind.VM_DEATH for e in evs):
                break
        took = time.perf_counter() - t0
        await vm.wait_exit(60)
        return vm.output.text("stdout"), n, took


async def reference_snapshots(n: int) -> str:
    line = marker("SNAP_BP")
    async with jvm.open_reference_jvm(compiled_classes(), "SnapLoop", [str(n)]) as debuggee, \
            jdwpd.attach(debuggee.address) as vm:
        bp = await vm.breakpoint(f"SnapLoop.java:{line}")
        await vm.resume()
        for _ in range(n):
            hit = await bp.wait(TIMEOUT)
            await hit.snapshot(jdwpd.Limits(frames=5, locals_frames=5, depth=2, items=10))
            await hit.resume()
        await debuggee.wait_exit(60)
        return debuggee.output.text("stdout")


async def reference_logpoint(n: int) -> tuple[int, float]:
    line = marker("COND_BP")
    async with jvm.open_reference_jvm(compiled_classes(), "CondLoop", [str(n)]) as debuggee, \
            jdwpd.attach(debuggee.address) as vm:
        log = await vm.logpoint(f"CondLoop.java:{line}", "i={i}")
        t0 = time.perf_counter()
        await vm.resume()
        await log.wait_lines(n, TIMEOUT)
        took = time.perf_counter() - t0
        await debuggee.wait_exit(60)
        return n, took


async def main(quick: bool) -> None:
    n_snap, n_ref, n_log, n_reflog = (2000, 200, 20000, 1000) if quick else (10000, 500, 100000, 3000)
    plain = subprocess.run(["java", "-cp", str(compiled_classes()), "SnapLoop", str(n_snap)], capture_output=True,
                           text=True, timeout=TIMEOUT, check=True).stdout
    limits = {"frames": 5, "locals_frames": 5, "depth": 2, "max_string": 256, "max_items": 10, "max_bytes": 65536,
              "max_micros": 0, "this_object": True, "object_ids": False}
    ours, got, _ = await jdwpd_capture("SnapLoop", [str(n_snap)], marker("SNAP_BP"), limits, [])
    ref = await reference_snapshots(n_ref)
    p, o, r = (PAUSE.search(x).groups() for x in (plain, ours, ref))
    print(f"snapshot of 5 frames, locals, depth 2 ({got} captures): thread pause median/p90 us: plain {p[0]}/{p[1]}  "
          f"jdwpd in-agent {o[0]}/{o[1]}  reference + API over JDWP {r[0]}/{r[1]};  "
          f"ratio {float(r[0]) / float(o[0]):.0f}x")
    log_limits = {**limits, "frames": 1, "locals_frames": 0, "depth": 0, "this_object": False}
    out, events, took = await jdwpd_capture("CondLoop", [str(n_log)], marker("COND_BP"), log_limits, ["i"])
    if events != n_log:
        raise RuntimeError(f"the logpoint delivered {events} of {n_log} lines: the ratio below would flatter it")
    rn, rtook = await reference_logpoint(n_reflog)
    jdi_ns, jn, jtook = reference_jdi(n_reflog, log=True)
    # The program's rate through the logpoint line (the loop hits it once per iteration), every
    # line delivered (checked above); the client's receiving rate, which lags behind, is shown too.
    program = 1e9 / float(NS.search(out).group(1))
    jdi_rate = 1e9 / jdi_ns
    print(f"logpoint of i: the program passes it at {program:.0f} hits/s with jdwpd (all {events} lines "
          f"received, at {events / took:.0f}/s), at {jdi_rate:.0f} hits/s with reference + JDI "
          f"(ratio {program / jdi_rate:.1f}x), at {rn / rtook:.0f} hits/s with reference + API "
          f"(ratio {program / (rn / rtook):.1f}x)")


if __name__ == "__main__":
    trio.run(main, "--quick" in sys.argv)
