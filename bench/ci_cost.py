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
ratios to ``reference``.  No timed assertion anywhere: numbers to read, in bench/results/.
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


def run_tree(argv: list[str], timeout: float) -> tuple[float, float, subprocess.CompletedProcess]:
    """(CPU seconds of the process tree, wall seconds, the result)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc


def hot_line(suite: thirdparty.TestSuite) -> str:
    """A line of jsoup's tokeniser that every parse runs many times."""
    line = suite.library.line("org.jsoup.parser.Tokeniser", "state.read(this, reader);")
    return f"org.jsoup.parser.Tokeniser:{line}"


def variants(suite: thirdparty.TestSuite, select: list[str], out: Path) -> dict[str, list[str]]:
    reports = out / "reports"

    def junit(jvm_args: tuple[str, ...] = ()) -> list[str]:
        return thirdparty.junit_command(suite, reports, select=select, jvm_args=jvm_args, details="none")

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
                counts = thirdparty.parse_junit_summary(proc.stdout)
                results[name].append({"cpu": cpu, "wall": wall, "status": proc.returncode,
                                      "tests": counts.get("tests successful")})
                print(f"rep {rep} {name:12} cpu {cpu:7.2f} s  wall {wall:7.2f} s  status {proc.returncode}  "
                      f"tests ok {counts.get('tests successful')}", flush=True)
    ref = statistics.median(r["cpu"] for r in results["reference"])
    summary = {}
    print(f"\n{'variant':12} {'cpu s':>8} {'wall s':>8} {'cpu/ref':>8}")
    for name, rows in results.items():
        cpu = statistics.median(r["cpu"] for r in rows)
        wall = statistics.median(r["wall"] for r in rows)
        summary[name] = {"cpu": cpu, "wall": wall, "cpu_vs_reference": cpu / ref, "runs": rows}
        print(f"{name:12} {cpu:8.2f} {wall:8.2f} {cpu / ref:8.3f}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ci_cost.json").write_text(json.dumps({"select": args.select or ["org.jsoup"], "reps": args.reps,
                                                      "machine": os.uname().nodename, "variants": summary},
                                                     indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
