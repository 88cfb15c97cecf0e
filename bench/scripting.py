"""Scripted sessions on a hot line (issue 30): the same script on jdwpd and on the reference agent.

    python -m bench.scripting [--hits N] [--late N]

- ``logpoint``: a logpoint ``i={i}`` on a hot line through the standard path (``in_vm=False``:
  stop, render here over JDWP, resume), lines per second on both servers, and jdwpd's in-VM
  capture beside them.
- ``late``: a conditional breakpoint whose condition turns true at the Nth call of a hot method:
  seconds to the hit, in the VM (jdwpd) against the standard path (jdwpd with ``in_vm=False``),
  the latter measured on a shorter run and scaled (it is linear in the hits).

Ratios, never timed assertions; the numbers depend on the machine (say how busy it was).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import trio

import jdwpd
from jdwpd.testing import debuggees, jvm

TOKENS = Path(__file__).resolve().parents[1] / "tests" / "java" / "tokens"


def _argv(classes: Path, calls: int) -> list[str]:
    return [jvm.java_executable(), "-cp", str(classes), "tokens.Main", "1", str(calls)]


async def logpoint_rate(kind: str, classes: Path, hot: str, hits: int, in_vm: bool) -> float:
    """Lines per second of a logpoint on the hot line, first line to last."""
    async def run(vm: jdwpd.VM) -> float:
        log = await vm.logpoint(hot, "i={i}", in_vm=in_vm)
        await vm.resume()
        await log.wait_lines(1, timeout=120)
        t0 = time.perf_counter()
        lines = await log.wait_lines(hits, timeout=600)
        took = time.perf_counter() - t0
        assert lines[hits - 1] == f"i={hits - 1}", lines[hits - 1]
        await log.clear()
        return (hits - 1) / took

    if kind == "jdwpd":
        async with jdwpd.launch(_argv(classes, hits), suspend=True) as vm:
            return await run(vm)
    async with jvm.open_reference_jvm(classes, "tokens.Main", ["1", str(hits)]) as debuggee, \
            jdwpd.attach(debuggee.address) as vm:
        return await run(vm)


async def time_to_late_hit(classes: Path, hot: str, calls: int, in_vm: bool) -> float:
    async with jdwpd.launch(_argv(classes, calls), suspend=True) as vm:
        bp = await vm.breakpoint(hot, condition=f"i == {calls - 1}L", in_vm=in_vm)
        t0 = time.perf_counter()
        await vm.resume()
        hit = await bp.wait(timeout=3600)
        took = time.perf_counter() - t0
        await bp.clear()
        await hit.resume()
        return took


async def main_async(hits: int, late: int, standard_late: int) -> None:
    classes = debuggees.compile_sources(TOKENS)
    hot = f"Hot.java:{debuggees.all_markers(TOKENS)['tokens_hot']}"
    rates = {}
    for kind, in_vm in (("reference", False), ("jdwpd", False), ("jdwpd", True)):
        rates[(kind, in_vm)] = await logpoint_rate(kind, classes, hot, hits, in_vm)
    ref = rates[("reference", False)]
    print(f"logpoint on a hot line, {hits} lines, same script:")
    print(f"  reference, standard path: {ref:9.0f} lines/s")
    print(f"  jdwpd, standard path:     {rates[('jdwpd', False)]:9.0f} lines/s "
          f"({rates[('jdwpd', False)] / ref:.2f}x the reference's rate)")
    print(f"  jdwpd, in the VM:         {rates[('jdwpd', True)]:9.0f} lines/s "
          f"({rates[('jdwpd', True)] / ref:.1f}x)")
    in_vm = await time_to_late_hit(classes, hot, late, True)
    standard = await time_to_late_hit(classes, hot, standard_late, False)
    scaled = standard * late / standard_late
    print(f"condition true at call {late:,} of a hot method: in the VM {in_vm:.2f} s; the standard path "
          f"{standard:.2f} s for {standard_late:,} calls, so {scaled:.0f} s for {late:,} "
          f"(the VM {scaled / in_vm:.0f}x faster)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hits", type=int, default=3000, help="logpoint lines (default 3000)")
    p.add_argument("--late", type=int, default=20_000_000, help="the call at which the condition holds")
    p.add_argument("--standard-late", type=int, default=2000, help="calls the standard path is timed over")
    a = p.parse_args()
    trio.run(main_async, a.hits, a.late, a.standard_late)


if __name__ == "__main__":
    main()
