"""Scripted sessions on a hot line (issue 30): the same script on jdwpd and on the reference agent.

    python -m bench.scripting [--hits N] [--reps N] [--late N] [--only logpoint|late]

- ``logpoint``: a logpoint ``i={i}`` on a hot line through the standard path (``in_vm=False``:
  stop, render here, resume), lines per second on both servers, ``--reps`` runs each, alternated
  (the reference first in every other pair), with the ratio of each pair and the median time of
  each JDWP command the script sent (client side, reply included); jdwpd as it is (its stops pushed
  with their events: docs/extensions.md, PushStops) and with ``JDWPD_FAST=push_stops=off`` (the
  script asks for the frame and the locals over JDWP, as of the reference); and jdwpd's in-VM
  capture beside them.
- ``late``: a conditional breakpoint whose condition turns true at the Nth call of a hot method:
  seconds to the hit, in the VM (jdwpd) against the standard path (jdwpd with ``in_vm=False``),
  the latter measured on a shorter run and scaled (it is linear in the hits).

Ratios, never timed assertions; the numbers depend on the machine (say how busy it was).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

import trio

import jdwpd
from jdwpd.testing import debuggees, jvm

TOKENS = Path(__file__).resolve().parents[1] / "tests" / "java" / "tokens"


def _argv(classes: Path, calls: int) -> list[str]:
    return [jvm.java_executable(), "-cp", str(classes), "tokens.Main", "1", str(calls)]


class CommandTimes:
    """The script's JDWP commands timed where it sends them (Connection.request), by label."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = {}
        self.on = False

    def install(self) -> None:
        from jdwpd.api import connection

        original = connection.Connection.request
        times = self

        async def request(conn: Any, set_id: int, cmd_id: int, data: bytes, label: str,
                          timeout: float | None = None) -> Any:
            t0 = time.perf_counter()
            try:
                return await original(conn, set_id, cmd_id, data, label, timeout)
            finally:
                if times.on:
                    times.times.setdefault(label, []).append(time.perf_counter() - t0)

        connection.Connection.request = request  # type: ignore[method-assign]

    def take(self) -> dict[str, float]:
        """Median ms per command since the last take."""
        out = {label: statistics.median(v) * 1e3 for label, v in self.times.items()}
        self.times = {}
        return out


TIMES = CommandTimes()


async def logpoint_rate(kind: str, classes: Path, hot: str, hits: int, in_vm: bool) -> tuple[float, dict[str, float]]:
    """Lines per second of a logpoint on the hot line, first line to last, and ms per command."""
    async def run(vm: jdwpd.VM) -> tuple[float, dict[str, float]]:
        log = await vm.logpoint(hot, "i={i}", in_vm=in_vm)
        await vm.resume()
        await log.wait_lines(1, timeout=120)
        TIMES.take()
        TIMES.on = True
        t0 = time.perf_counter()
        lines = await log.wait_lines(hits, timeout=600)
        took = time.perf_counter() - t0
        TIMES.on = False
        assert lines[hits - 1] == f"i={hits - 1}", lines[hits - 1]
        await log.clear()
        return (hits - 1) / took, TIMES.take()

    if kind.startswith("jdwpd"):
        fast = os.environ.get("JDWPD_FAST")
        if kind == "jdwpd-asked":
            os.environ["JDWPD_FAST"] = "push_stops=off"  # the daemon started below reads it
        try:
            async with jdwpd.launch(_argv(classes, hits), suspend=True) as vm:
                return await run(vm)
        finally:
            if fast is None:
                os.environ.pop("JDWPD_FAST", None)
            else:
                os.environ["JDWPD_FAST"] = fast
    async with jvm.open_reference_jvm(classes, "tokens.Main", ["1", str(hits)]) as debuggee, \
            jdwpd.attach(debuggee.address) as vm:
        return await run(vm)


async def logpoints(classes: Path, hot: str, hits: int, reps: int) -> None:
    TIMES.install()
    kinds = ("reference", "jdwpd", "jdwpd-asked")
    rates: dict[str, list[float]] = {k: [] for k in kinds}
    per_command: dict[str, dict[str, list[float]]] = {k: {} for k in kinds}
    for rep in range(reps):
        for kind in (kinds if rep % 2 == 0 else kinds[::-1]):
            rate, ms = await logpoint_rate(kind, classes, hot, hits, False)
            rates[kind].append(rate)
            for label, v in ms.items():
                per_command[kind].setdefault(label, []).append(v)
        r = rates["reference"][-1]
        print(f"  round {rep + 1}: reference {r:6.0f}, jdwpd {rates['jdwpd'][-1]:6.0f} "
              f"({rates['jdwpd'][-1] / r:.2f}x), jdwpd asking {rates['jdwpd-asked'][-1]:6.0f} lines/s "
              f"({rates['jdwpd-asked'][-1] / r:.2f}x)", flush=True)
    in_vm, _ = await logpoint_rate("jdwpd", classes, hot, hits, True)
    ref = statistics.median(rates["reference"])
    print(f"logpoint on a hot line, {hits} lines, same script, {reps} rounds alternated (medians):")
    print(f"  reference, standard path:  {ref:9.0f} lines/s")
    for kind, what in (("jdwpd", "jdwpd, standard path:     "), ("jdwpd-asked", "jdwpd, asking (no push): ")):
        ours = statistics.median(rates[kind])
        pairs = sorted(j / r for j, r in zip(rates[kind], rates["reference"], strict=True))
        print(f"  {what}{ours:9.0f} lines/s ({ours / ref:.2f}x the reference's rate; "
              f"rounds {pairs[0]:.2f}-{pairs[-1]:.2f})")
    print(f"  jdwpd, in the VM:          {in_vm:9.0f} lines/s ({in_vm / ref:.1f}x)")
    for label in sorted(per_command["reference"]):
        r = statistics.median(per_command["reference"][label])
        cells = []
        for kind in kinds[1:]:
            got = per_command[kind].get(label)
            cells.append(f"{kind} {statistics.median(got):.3f} ms" if got else f"{kind} none sent")
        print(f"  {label:28s} reference {r:.3f} ms, {', '.join(cells)} per command (client side)")


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


async def main_async(hits: int, reps: int, late: int, standard_late: int, only: str | None) -> None:
    classes = debuggees.compile_sources(TOKENS)
    hot = f"Hot.java:{debuggees.all_markers(TOKENS)['tokens_hot']}"
    if only in (None, "logpoint"):
        await logpoints(classes, hot, hits, reps)
    if only in (None, "late"):
        in_vm = await time_to_late_hit(classes, hot, late, True)
        standard = await time_to_late_hit(classes, hot, standard_late, False)
        scaled = standard * late / standard_late
        print(f"condition true at call {late:,} of a hot method: in the VM {in_vm:.2f} s; the standard path "
              f"{standard:.2f} s for {standard_late:,} calls, so {scaled:.0f} s for {late:,} "
              f"(the VM {scaled / in_vm:.0f}x faster)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hits", type=int, default=3000, help="logpoint lines (default 3000)")
    p.add_argument("--reps", type=int, default=5, help="logpoint runs on each server, alternated (default 5)")
    p.add_argument("--only", choices=("logpoint", "late"), help="one of the two measurements")
    p.add_argument("--late", type=int, default=20_000_000, help="the call at which the condition holds")
    p.add_argument("--standard-late", type=int, default=2000, help="calls the standard path is timed over")
    a = p.parse_args()
    trio.run(main_async, a.hits, a.reps, a.late, a.standard_late, a.only)


if __name__ == "__main__":
    main()
