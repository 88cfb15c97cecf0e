"""What `jdwpd ci` costs a real test suite, beside the reference agent (issue 31.5 and 31.10).

    python -m bench.ci_cost [--reps 3] [--select org.jsoup.select ...] [--only VARIANT ...]

jsoup's own JUnit 5 suite (Debian's source package, jdwpd.testing.thirdparty), run by the console
launcher in these variants, alternating, repetition after repetition:

- ``plain``: java alone;
- ``reference``: java with ``-agentlib:jdwp=server=y,suspend=n`` (no debugger attached: what a
  debuggable CI JVM costs with the reference);
- ``ci-failures``: ``jdwpd ci --on-test-failure --on-uncaught``;
- ``reference-hot`` / ``ci-assert``: the same with a breakpoint-like probe on a hot line of
  jsoup (``Tokeniser.read``'s loop): the reference with jdb-style nothing attached (its run is the
  floor a debugger can reach), ``jdwpd ci --assert`` on that line (evaluated in the VM).

CPU time (user + system) of the whole process tree (the JVM, and for jdwpd ci the daemon too),
from the children's rusage: robust where wall time on a shared machine is not.  Medians, and
ratios to ``reference``: the ratio of the medians, and the median of each repetition's own ratio
(its runs follow each other, so a load that drifts over minutes hits both alike).  Where GNU time
is at /usr/bin/time, the JVM runs under it, which splits a jdwpd ci run's CPU into the JVM's and
jdwpd ci's own process (Python, trio, the daemon, the API's attach: ``own``), the two parts that
can cost more than the reference.  The load average is recorded before and after.  No timed
assertion anywhere: numbers to read, in bench/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import thirdparty

REFERENCE = "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0"
RESULTS = Path(__file__).resolve().parent / "results"


#: GNU time, which writes the CPU of the command it runs (the JVM) to a file.
GNU_TIME = Path("/usr/bin/time")


def run_tree(argv: list[str], timeout: float) -> tuple[float, float, subprocess.CompletedProcess]:
    """(CPU seconds of the process tree, wall seconds, the result)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc


def timed_jvm(java: list[str], record: Path) -> list[str]:
    """The JVM's command line under GNU time (its user and system seconds to ``record``), or as it
    is where there is none."""
    if not GNU_TIME.is_file():
        return java
    return [str(GNU_TIME), "-f", "%U %S", "-o", str(record), *java]


def jvm_cpu(record: Path) -> float | None:
    """The JVM's CPU seconds GNU time wrote (its last line), None without one."""
    try:
        user, system = record.read_text().split()[-2:]
        record.unlink()
        return float(user) + float(system)
    except (OSError, ValueError):
        return None


def hot_line(suite: thirdparty.TestSuite) -> str:
    """A line of jsoup's tokeniser that every parse runs many times."""
    line = suite.library.line("org.jsoup.parser.Tokeniser", "state.read(this, reader);")
    return f"org.jsoup.parser.Tokeniser:{line}"


def variants(suite: thirdparty.TestSuite, select: list[str], out: Path) -> dict[str, list[str]]:
    reports = out / "reports"

    def junit(jvm_args: tuple[str, ...] = ()) -> list[str]:
        return timed_jvm(thirdparty.junit_command(suite, reports, select=select, jvm_args=jvm_args, details="none"),
                         out / "jvm-time")

    ci = [*jdwpd_argv(), "ci", "--out", str(out / "ci")]
    return {
        "plain": junit(),
        "reference": junit((REFERENCE,)),
        "ci-failures": [*ci, "--on-test-failure", "--on-uncaught", "--", *junit()],
        # where ci-failures' cost goes: the daemon and the full profile alone, then uncaught only
        "ci-full-idle": [*ci, "--profile", "full", "--", *junit()],
        "ci-uncaught": [*ci, "--on-uncaught", "--", *junit()],
        "ci-test-failure": [*ci, "--on-test-failure", "--", *junit()],
        "ci-assert": [*ci, "--assert", f"{hot_line(suite)}:reader != null", "--", *junit()],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--select", action="append", default=[], metavar="PACKAGE",
                   help="run this package of jsoup's tests (repeatable; default: all of org.jsoup)")
    p.add_argument("--only", action="append", default=[])
    args = p.parse_args(argv)
    suite = thirdparty.build_tests()
    # every jdwpd ci starts as an installed jdwpd does, from bytecode (bench/run.py's reason)
    from bench.run import prepare_bytecode

    print(prepare_bytecode(True), flush=True)
    load_before = os.getloadavg()
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="jdwpd-ci-cost-") as tmp:
        select = [f"--select-package={p}" for p in args.select or ["org.jsoup"]]
        runs = variants(suite, select, Path(tmp))
        default = ("plain", "reference", "ci-failures", "ci-assert")
        runs = {k: v for k, v in runs.items() if k in (args.only or default) or k == "reference"}
        results: dict[str, list[dict]] = {k: [] for k in runs}
        names = list(runs)
        for rep in range(args.reps):
            for name in names[rep % len(names):] + names[:rep % len(names)]:  # rotated: noise hits all alike
                cpu, wall, proc = run_tree(runs[name], timeout=3600)
                jvm = jvm_cpu(Path(tmp) / "jvm-time")
                counts = thirdparty.parse_junit_summary(proc.stdout)
                results[name].append({"cpu": cpu, "wall": wall, "jvm_cpu": jvm,
                                      "own_cpu": None if jvm is None else cpu - jvm, "status": proc.returncode,
                                      "tests": counts.get("tests successful")})
                split = "" if jvm is None else f"  (jvm {jvm:6.2f}, own {cpu - jvm:5.2f})"
                print(f"rep {rep} {name:12} cpu {cpu:7.2f} s{split}  wall {wall:7.2f} s  status {proc.returncode}  "
                      f"tests ok {counts.get('tests successful')}", flush=True)
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    summary = summarize(results)
    print(f"\n{'variant':12} {'cpu s':>8} {'jvm s':>8} {'own s':>6} {'wall s':>8} {'cpu/ref':>8} {'paired':>7}")
    for name, row in summary.items():
        print(f"{name:12} {row['cpu']:8.2f} {_num(row['jvm_cpu'], 8)} {_num(row['own_cpu'], 6)} {row['wall']:8.2f} "
              f"{row['cpu_vs_reference']:8.3f} {row['paired_vs_reference']:7.3f}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ci_cost.json").write_text(json.dumps({"select": args.select or ["org.jsoup"], "reps": args.reps,
                                                      "machine": os.uname().nodename,
                                                      "load_before": load_before, "load_after": load_after,
                                                      "variants": summary}, indent=1) + "\n")
    return 0


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def _num(value: float | None, width: int) -> str:
    return f"{value:{width}.2f}" if value is not None else " " * (width - 1) + "-"


def summarize(results: dict[str, list[dict]]) -> dict[str, dict]:
    """Each variant's medians, the ratio of its CPU median to the reference's, and the median of
    each repetition's own ratio (the runs of one repetition follow each other).

    >>> rows = {"reference": [{"cpu": 10.0, "wall": 1, "jvm_cpu": 10.0, "own_cpu": 0.0}] * 2,
    ...         "ci": [{"cpu": 11.0, "wall": 1, "jvm_cpu": 10.5, "own_cpu": 0.5},
    ...                {"cpu": 12.0, "wall": 1, "jvm_cpu": None, "own_cpu": None}]}
    >>> s = summarize(rows)["ci"]
    >>> s["cpu"], s["jvm_cpu"], s["own_cpu"], s["cpu_vs_reference"], s["paired_vs_reference"]
    (11.5, 10.5, 0.5, 1.15, 1.15)
    """
    ref_rows = results["reference"]
    ref = statistics.median(r["cpu"] for r in ref_rows)
    summary = {}
    for name, rows in results.items():
        cpu = statistics.median(r["cpu"] for r in rows)
        paired = statistics.median(r["cpu"] / q["cpu"] for r, q in zip(rows, ref_rows, strict=False))
        summary[name] = {"cpu": cpu, "jvm_cpu": _median([r.get("jvm_cpu") for r in rows]),
                         "own_cpu": _median([r.get("own_cpu") for r in rows]),
                         "wall": statistics.median(r["wall"] for r in rows), "cpu_vs_reference": cpu / ref,
                         "paired_vs_reference": paired, "runs": rows}
    return summary


if __name__ == "__main__":
    sys.exit(main())
