"""CPU time per command and per breakpoint hit, from /proc: robust where wall time is not.

    python -m bench.cpu [--n 1000] [--reps 3] [--only jdwpd|reference]

On a machine whose cores other work shares, a round trip's wall time mostly measures the
scheduler; the CPU a server burns per command does not depend on who else runs.  For each
server, the same raw-client session as bench.profile (at Target's breakpoint): n sequential
ReferenceType.Signature, Method.LineTable (answered from jdwpd's caches),
ThreadReference.Name, FrameCount (need the VM), then n breakpoint hit -> Resume cycles; and in
another session n/5 LINE steps as jdb takes them (Set, Resume all, the event, Clear).
Per operation: the server's CPU (jdwpd: daemon + JVM; reference: the JVM, which is the
whole server), split for jdwpd, and the client's wall time.  Medians over the repetitions;
the servers alternate, repetition after repetition.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from protocol.constants import EventKind, StepSize, SuspendPolicy

from .dbg import Debugger, debug_target, now
from .profile import child_pids, cpu_seconds

OPS = ("signature", "line_table", "thread_name", "frame_count", "bp_hit", "step_line")


def measure(kind: str, n: int) -> dict[str, dict[str, float]]:
    async def body(d: Debugger) -> dict[str, dict[str, float]]:
        if kind == "jdwpd":
            daemon_pid, jvm_pid = d.vm.pid, child_pids(d.vm.pid)[0]
        else:
            daemon_pid, jvm_pid = None, d.vm.pid
        thread, loc = await d.run_to("HIT")
        c = d.c
        calls = {
            "signature": lambda: c.command("ReferenceType", "Signature", ref_type=d.target),
            "line_table": lambda: c.command("Method", "LineTable", ref_type=d.target, method_id=loc.method_id),
            "thread_name": lambda: c.command("ThreadReference", "Name", thread=thread),
            "frame_count": lambda: c.command("ThreadReference", "FrameCount", thread=thread),
        }

        def sample() -> tuple[float, float, float]:
            return (cpu_seconds(daemon_pid) if daemon_pid else 0.0, cpu_seconds(jvm_pid), now())

        def per_op(before: tuple[float, float, float]) -> dict[str, float]:
            after = sample()
            daemon, jvm, wall = ((a - b) / n * 1e6 for a, b in zip(after, before, strict=True))
            return {"server_cpu": daemon + jvm, "daemon_cpu": daemon, "jvm_cpu": jvm, "wall": wall}

        out = {}
        for name, call in calls.items():
            await call()
            before = sample()
            for _ in range(n):
                await call()
            out[name] = per_op(before)
        await c.command("VirtualMachine", "Resume")
        await d.breakpoint("HIT", SuspendPolicy.EVENT_THREAD)
        _, events = await c.wait_for_event(EventKind.BREAKPOINT, timeout=30)
        before = sample()
        for _ in range(n):
            await c.command("ThreadReference", "Resume", thread=events[0].thread)
            _, events = await c.wait_for_event(EventKind.BREAKPOINT, timeout=30)
        out["bp_hit"] = per_op(before)
        return out

    out = debug_target(kind, ["hits"], body, timeout=60 + n * 0.05)

    async def steps(d: Debugger) -> dict[str, dict[str, float]]:
        daemon_pid, jvm_pid = (d.vm.pid, child_pids(d.vm.pid)[0]) if kind == "jdwpd" else (None, d.vm.pid)
        thread, _ = await d.run_to("STEP_START")
        await d.step(thread, StepSize.LINE)
        m = max(1, n // 5)
        before = (cpu_seconds(daemon_pid) if daemon_pid else 0.0, cpu_seconds(jvm_pid), now())
        for _ in range(m):
            await d.step(thread, StepSize.LINE)
        after = (cpu_seconds(daemon_pid) if daemon_pid else 0.0, cpu_seconds(jvm_pid), now())
        daemon, jvm, wall = ((a - b) / m * 1e6 for a, b in zip(after, before, strict=True))
        return {"step_line": {"server_cpu": daemon + jvm, "daemon_cpu": daemon, "jvm_cpu": jvm, "wall": wall}}

    out.update(debug_target(kind, ["steps"], steps, timeout=60 + n * 0.05))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.cpu", description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--only", choices=["jdwpd", "reference"])
    args = p.parse_args(argv)
    kinds = [args.only] if args.only else ["reference", "jdwpd"]
    runs: dict[str, list[dict]] = {k: [] for k in kinds}
    for r in range(args.reps):
        for kind in kinds[r % len(kinds):] + kinds[:r % len(kinds)]:
            runs[kind].append(measure(kind, args.n))
            print(f"[{r + 1}/{args.reps}] {kind}: " + ", ".join(
                f"{op} {runs[kind][-1][op]['server_cpu']:.0f}" for op in OPS), file=sys.stderr, flush=True)

    def med(kind: str, op: str, key: str) -> float:
        return statistics.median(run[op][key] for run in runs[kind])

    print("| operation | jdwpd daemon CPU | jdwpd JVM CPU | jdwpd server CPU | reference CPU | CPU ratio |"
          " client wall jdwpd / reference |")
    print("|---|---|---|---|---|---|---|")
    for op in OPS:
        if "jdwpd" in runs and "reference" in runs:
            j, ref = med("jdwpd", op, "server_cpu"), med("reference", op, "server_cpu")
            print(f"| {op} | {med('jdwpd', op, 'daemon_cpu'):.0f} µs | {med('jdwpd', op, 'jvm_cpu'):.0f} µs |"
                  f" {j:.0f} µs | {ref:.0f} µs | {j / ref:.2f} |"
                  f" {med('jdwpd', op, 'wall'):.0f} / {med('reference', op, 'wall'):.0f} µs |")
        else:
            k = kinds[0]
            print(f"| {op} | {med(k, op, 'daemon_cpu'):.0f} µs | {med(k, op, 'jvm_cpu'):.0f} µs |"
                  f" {med(k, op, 'server_cpu'):.0f} µs | | | {med(k, op, 'wall'):.0f} µs |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
