"""Profile the jdwpd daemon with py-spy on the command path and on the event path.

    python -m bench.profile [--what commands|events|vm|steps|both] [--seconds 8] [--top 25] [--idle]

Starts bench/java's Target under `jdwpd launch`, attaches `py-spy record` (pip install py-spy)
to the daemon's PID (only samples that hold the GIL: a blocked epoll_wait is idle time, which
py-spy otherwise counts as busy; --idle for every sample), drives one workload through the raw
client while it samples, and prints the functions with the most samples: self (where the time
is spent) and inclusive (which call paths cost it).  The collapsed stacks are kept in bench/results/profile-WHAT.txt.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from protocol.constants import EventKind, StepSize, SuspendPolicy

from . import lean
from .common import BENCH, kill_group
from .dbg import Debugger, debug_target, now


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_pids(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


async def _repeat(seconds: float, what: str, one_round: Callable[[], Awaitable[int]]) -> str:
    """Run rounds (each returns how many operations it did) for ``seconds``; say what it cost."""
    n, t0 = 0, now()
    while now() - t0 < seconds:
        n += await one_round()
    elapsed = now() - t0
    return f"{n} {what} in {elapsed:.1f} s: {elapsed / n * 1e6:.0f} us each"


async def commands_workload(d: Debugger, seconds: float) -> str:
    thread, loc = await d.run_to("HIT")
    c = d.c

    async def four() -> int:
        await c.command("ReferenceType", "Signature", ref_type=d.target)
        await c.command("Method", "LineTable", ref_type=d.target, method_id=loc.method_id)
        await c.command("ThreadReference", "Name", thread=thread)
        await c.command("ThreadReference", "FrameCount", thread=thread)
        return 4

    return await _repeat(seconds, "commands", four)


async def events_workload(d: Debugger, seconds: float) -> str:
    await d.breakpoint("HIT", SuspendPolicy.EVENT_THREAD)
    await d.c.command("VirtualMachine", "Resume")
    _, events = await d.c.wait_for_event(EventKind.BREAKPOINT, timeout=30)
    thread = events[0].thread

    async def hit() -> int:
        await d.c.command("ThreadReference", "Resume", thread=thread)
        await d.c.wait_for_event(EventKind.BREAKPOINT, timeout=30)
        return 1

    return await _repeat(seconds, "breakpoint hits", hit)


async def vm_workload(d: Debugger, seconds: float) -> str:
    """ThreadReference.Status (never memoized: the VM path every time) through bench/lean.py."""
    thread, _ = await d.run_to("HIT")

    async def statuses() -> int:
        lean.roundtrips(d.c, "ThreadReference", "Status", 500, thread=thread)
        return 500

    return await _repeat(seconds, "ThreadReference.Status", statuses)


async def steps_workload(d: Debugger, seconds: float) -> str:
    """LINE steps as jdb takes them (Set, Resume all, the event, Clear)."""
    thread, _ = await d.run_to("HIT")

    async def step() -> int:
        await d.step(thread, StepSize.LINE)
        return 1

    return await _repeat(seconds, "LINE steps", step)


def profiled(what: str, seconds: float, out: Path, gil: bool = True) -> str:
    pyspy = shutil.which("py-spy")
    if pyspy is None:
        raise SystemExit("py-spy is not installed: pip install py-spy")
    workload = {"commands": commands_workload, "events": events_workload, "vm": vm_workload,
                "steps": steps_workload}[what]

    async def body(d: Debugger) -> str:
        # The launch process is the daemon (the JVM is its child): that is the PID to sample.
        spy = await trio.lowlevel.open_process(
            [pyspy, "record", "--pid", str(d.vm.pid), "--rate", "500", "--format", "raw", "--output", str(out),
             "--nonblocking", *(["--gil"] if gil else []), "--duration", str(int(seconds) + 2)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            await trio.sleep(1.0)  # py-spy attaching
            jvm_pid = child_pids(d.vm.pid)[0]
            daemon0, jvm0, t0 = cpu_seconds(d.vm.pid), cpu_seconds(jvm_pid), now()
            summary = await workload(d, seconds)
            wall = now() - t0
            # CPU shares over the workload: what each process burns, py-spy's sampling included.
            summary += (f"; daemon CPU {(cpu_seconds(d.vm.pid) - daemon0) / wall:.0%} of one core,"
                        f" JVM CPU {(cpu_seconds(jvm_pid) - jvm0) / wall:.0%}")
            with trio.fail_after(30):
                await spy.wait()
        finally:
            kill_group(spy.pid)
        return summary

    return debug_target("jdwpd", ["hits"], body, timeout=seconds + 90)


def summarize(collapsed: Path, top: int) -> str:
    self_counts: collections.Counter[str] = collections.Counter()
    incl_counts: collections.Counter[str] = collections.Counter()
    total = 0
    for line in collapsed.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        n = int(count)
        frames = [f.split(" (")[0] + " " + f.split(" (")[1].split(":")[0].rsplit("/", 1)[-1]
                  if " (" in f else f for f in stack.split(";")]
        total += n
        self_counts[frames[-1]] += n
        for f in set(frames):
            incl_counts[f] += n
    lines = [f"{total} samples", "", "self:"]
    lines += [f"  {c / total:6.1%}  {f}" for f, c in self_counts.most_common(top)]
    lines += ["", "inclusive (jdwpd/protocol frames):"]
    ours = [(f, c) for f, c in incl_counts.most_common() if any(k in f for k in (".py",))
            and not f.startswith(("run ", "_run", "<module>"))]
    lines += [f"  {c / total:6.1%}  {f}" for f, c in ours[:top]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.split("\n\n")[0])
    p.add_argument("--what", choices=["commands", "events", "vm", "steps", "both"], default="both")
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--idle", action="store_true",
                   help="sample every thread, not only the one holding the GIL (epoll's idle waits then show)")
    args = p.parse_args(argv)
    results = BENCH / "results"
    results.mkdir(exist_ok=True)
    for what in (["commands", "events"] if args.what == "both" else [args.what]):
        out = results / f"profile-{what}.txt"
        summary = profiled(what, args.seconds, out, gil=not args.idle)
        print(f"== {what}: {summary}\n{summarize(out, args.top)}\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
