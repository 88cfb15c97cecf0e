"""Run every benchmark, jdwpd and the reference agent interleaved; print medians and ratios.

    python -m bench                  # everything, 5 repetitions
    python -m bench --quick          # 2 repetitions, shorter kernels (< 5 min)
    python -m bench --only startup --only throughput --reps 3

Repetition r runs every measurement, and within it every variant, in a rotated order, so
that a noisy neighbour on the machine hurts all variants alike.  A variant that fails is
recorded with its error and the run goes on.  Results: a table on stdout and
bench/results/latest.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path

if __package__ in (None, ""):  # `python bench/run.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    __package__ = "bench"  # noqa: A001

from bench.common import BENCH, REPO, Config, Measurement, Target  # noqa: E402

PACKAGES = ("jdwpd", "protocol")


def prepare_bytecode(compiled: bool) -> str:
    """Start every daemon as an installed jdwpd starts: `pip install .` writes the bytecode of every
    module, while an editable checkout under PYTHONDONTWRITEBYTECODE=1 (as on our CI machines) never
    gets it, and each daemon then compiles its ~60 modules again (~60-70 ms of `jdwpd launch`).
    compiled=False measures that (the libraries keep theirs, as pip installed them)."""
    if compiled:
        import compileall

        for name in PACKAGES:
            compileall.compile_dir(str(REPO / name), quiet=1)
        return "bytecode compiled, as `pip install .` does"
    import shutil

    for name in PACKAGES:
        for cache in (REPO / name).rglob("__pycache__"):
            shutil.rmtree(cache, ignore_errors=True)
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    return "no bytecode of jdwpd's own: every daemon compiles its modules (--no-bytecode)"


def all_measurements() -> list[Measurement]:
    from bench.api import API
    from bench.debugger import DEBUGGER_MEASUREMENTS
    from bench.jdi_roundtrips import JDI_ROUNDTRIPS
    from bench.startup import STARTUP
    from bench.throughput import THROUGHPUT

    return [STARTUP, THROUGHPUT, *DEBUGGER_MEASUREMENTS, JDI_ROUNDTRIPS, API]


def java_version(java: str) -> str:
    out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    return (out.stderr or out.stdout).strip().splitlines()[0] if (out.stderr or out.stdout) else "?"


def rotated(items: tuple[str, ...], r: int) -> list[str]:
    k = r % len(items)
    return list(items[k:] + items[:k])


def run_all(measurements: list[Measurement], cfg: Config, reps: int, log=print) -> dict:
    data: dict = {m.name: {"variants": {v: {} for v in m.variants}, "errors": {}} for m in measurements}
    for r in range(reps):
        for m in measurements:
            for variant in rotated(m.variants, r):
                t0 = time.monotonic()
                try:
                    values = m.run(variant, cfg)
                except Exception as e:  # a failed measurement is a result, not the end of the run
                    detail = "".join(traceback.format_exception_only(e)).strip()
                    data[m.name]["errors"].setdefault(variant, []).append(detail[-1500:])
                    log(f"[{r + 1}/{reps}] {m.name}/{variant}: FAILED {detail.splitlines()[0][:200]}")
                    continue
                for metric, value in values.items():
                    data[m.name]["variants"][variant].setdefault(metric, []).append(value)
                shown = ", ".join(f"{k}={v:.4g}" for k, v in values.items())
                log(f"[{r + 1}/{reps}] {m.name}/{variant} ({time.monotonic() - t0:.1f}s): {shown}")
    return data


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def spread(values: list[float]) -> float | None:
    """(max - min) / median: the noise between repetitions, in the table as +-%."""
    if len(values) < 2:
        return None
    mid = statistics.median(values)
    return (max(values) - min(values)) / mid if mid else None


def evaluate(target: Target, medians: dict[str, dict[str, float]]) -> dict:
    num = medians.get(target.num, {}).get(target.metric)
    den = medians.get(target.den, {}).get(target.metric)
    if num is None or den is None:
        return {"value": None, "ok": None}
    value = num - den if target.kind == "delta_ms" else (num / den if den else None)
    return {"value": value, "ok": None if value is None else value <= target.limit}


def summarize(measurements: list[Measurement], data: dict) -> list[dict]:
    rows = []
    for m in measurements:
        variants = data[m.name]["variants"]
        medians = {v: {k: median(vals) for k, vals in metrics.items()} for v, metrics in variants.items()}
        for t in m.targets:
            res = evaluate(t, medians)
            num_vals = variants.get(t.num, {}).get(t.metric, [])
            den_vals = variants.get(t.den, {}).get(t.metric, [])
            errors = data[m.name]["errors"]
            failed = [v for v in (t.num, t.den) if v in errors and not variants.get(v, {}).get(t.metric)]
            rows.append({
                "measurement": m.name, "metric": t.metric, "unit": m.units.get(t.metric, ""),
                "num": t.num, "den": t.den, "kind": t.kind, "limit": t.limit,
                "num_median": median(num_vals), "den_median": median(den_vals),
                "num_spread": spread(num_vals), "den_spread": spread(den_vals),
                "n": min(len(num_vals), len(den_vals)),
                "value": res["value"], "ok": res["ok"],
                "failed": {v: errors[v][-1] for v in failed},
            })
    return rows


def _fmt(x: float | None, spread_: float | None = None) -> str:
    if x is None:
        return "-"
    text = f"{x:.4g}"
    if spread_ is not None:
        text += f" ±{spread_ * 50:.0f}%"  # half the range: what one repetition may be off by
    return text


def format_table(rows: list[dict]) -> str:
    head = ("metric", "unit", "jdwpd side", "median", "baseline", "median", "result", "target", "ok")
    lines = [head]
    for row in rows:
        if row["kind"] == "delta_ms":
            result = "-" if row["value"] is None else f"{row['value']:+.1f} ms"
            target = f"<= +{row['limit']:g} ms"
        else:
            result = "-" if row["value"] is None else f"{row['value']:.2f}"
            target = f"<= {row['limit']:g}"
        ok = {True: "yes", False: "NO", None: "FAILED" if row["failed"] else "-"}[row["ok"]]
        lines.append((f"{row['measurement']}.{row['metric']}", row["unit"], row["num"],
                      _fmt(row["num_median"], row["num_spread"]), row["den"],
                      _fmt(row["den_median"], row["den_spread"]), result, target, ok))
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    out = []
    for i, line in enumerate(lines):
        out.append("  ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    failures = [(r, v, e) for r in rows for v, e in r["failed"].items()]
    seen = set()
    for r, v, e in failures:
        if (r["measurement"], v) in seen:
            continue
        seen.add((r["measurement"], v))
        out.append(f"FAILED {r['measurement']}/{v}: {e.splitlines()[0][:300]}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="2 repetitions and shorter kernels (< 5 min)")
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help="run only this measurement (repeatable); see --list")
    p.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # smoke tests: api, jdi_roundtrips
    p.add_argument("--reps", type=int, help="repetitions (default 5, or 2 with --quick)")
    p.add_argument("--list", action="store_true", help="list the measurements and exit")
    p.add_argument("--java", default="java", help="the java launcher to measure (default: java on PATH)")
    p.add_argument("--out", default=str(BENCH / "results" / "latest.json"), help="where the JSON goes")
    p.add_argument("--no-bytecode", action="store_true",
                   help="start daemons without compiled bytecode (an editable checkout that may not write it)")
    p.add_argument("--cpus", metavar="LIST", help="run the bench and everything it starts on these CPUs only "
                   "(e.g. 0): latency without cross-CPU wake-ups, which on a VM swing medians x2-3")
    args = p.parse_args(argv)
    if args.cpus:
        cpus = {int(c) for c in args.cpus.split(",")}
        os.sched_setaffinity(0, cpus)  # inherited by every JVM and daemon started from here
    measurements = all_measurements()
    if args.list:
        for m in measurements:
            print(f"{m.name:20} {m.doc}")
        return 0
    if args.only:
        known = {m.name for m in measurements}
        unknown = [n for n in args.only if n not in known]
        if unknown:
            p.error(f"unknown measurement(s) {unknown}; known: {sorted(known)}")
        measurements = [m for m in measurements if m.name in args.only]
    cfg = Config(quick=args.quick or args.tiny, java=args.java, tiny=args.tiny)
    reps = args.reps or (2 if args.quick else 5)
    started = time.time()
    jdk = java_version(args.java)
    bytecode = prepare_bytecode(not args.no_bytecode)
    print(f"jdwpd bench: {len(measurements)} measurement(s), {reps} repetition(s), {jdk}; {bytecode}", flush=True)
    data = run_all(measurements, cfg, reps, log=lambda s: print(s, flush=True))
    rows = summarize(measurements, data)
    print()
    print(format_table(rows))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "jdk": jdk, "python": sys.version.split()[0], "bytecode": not args.no_bytecode,
        "quick": args.quick, "reps": reps, "cpus": args.cpus,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(started)),
        "seconds": round(time.time() - started, 1), "ratios": rows, "raw": data,
    }, indent=1))
    print(f"\nwrote {out} ({time.time() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
