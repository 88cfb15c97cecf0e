"""`jdwpd ci --assert` on a hot line, beside a debugger asserting the same through the reference
agent (issue 31.5).

    python -m bench.ci_assert [--hits 20000] [--reps 3]

``lib.Hot N`` (tests/ci/junit_java/lib) runs ``Parser.parse`` N times; the assertion
``tokens > 0`` at its return line holds at every pass, so every hit is evaluated (a failing one
would spend the probe's cap of 50 and leave the line free).  Variants, alternating:

- ``plain``: java alone; ``reference``: with ``-agentlib:jdwp`` and no debugger;
- ``reference-assert``: a script on the API attached to the reference agent, a breakpoint there,
  the expression evaluated over JDWP at every hit (what a debugger does; what ``jdwpd ci --assert``
  did before: a round trip per hit);
- ``ci-idle``: ``jdwpd ci`` with no probe (its own start, to take off the per-hit figure);
- ``ci-assert``: ``jdwpd ci --assert`` (the VM evaluates it; only failures leave it).

CPU time of the whole process tree (the JVM, the script or jdwpd's daemon), medians; per hit, the
CPU above ``plain`` divided by the hits.  Numbers to read (bench/results/ci_assert.json), never a
timed assertion.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from jdwpd.own_command import jdwpd_argv

from .ci_cost import RESULTS, run_tree

SOURCES = Path(__file__).resolve().parents[1] / "tests" / "ci" / "junit_java" / "lib"
EXPRESSION = "tokens > 0"


def line_of(marker: str) -> int:
    for n, text in enumerate((SOURCES / "Parser.java").read_text().splitlines(), 1):
        if f"@marker {marker}" in text:
            return n
    raise KeyError(marker)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CLIENT = """
import sys, trio
from jdwpd import api

async def main(port, location, expression):
    async with api.attach(f"127.0.0.1:{port}", timeout=60) as vm:
        bp = await vm.breakpoint(location)
        failures = 0

        @bp.on_hit
        async def check(hit):
            nonlocal failures
            if await hit.evaluate(expression, allow_invoke=False) is not True:
                failures += 1

        await vm.resume()
        await vm.dead.wait()
    print("failures", failures)

trio.run(main, int(sys.argv[1]), sys.argv[2], sys.argv[3])
"""


def variants(classes: Path, hits: int) -> dict[str, object]:
    java = ["java", "-cp", str(classes)]
    location = f"lib.Parser:{line_of('parser_return')}"

    def reference_assert() -> list[str]:
        port = free_port()
        agent = f"-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:{port}"
        # the JVM in the background of a shell, the script in front: one tree, one CPU total
        script = (f"{' '.join(java[:1])} {agent} -cp {classes} lib.Hot {hits} & "
                  f"sleep 0.5; {sys.executable} -c '{CLIENT}' {port} {location} '{EXPRESSION}'; wait")
        return ["sh", "-c", script]

    return {
        "plain": [*java, "lib.Hot", str(hits)],
        "reference": [java[0], "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0",
                      *java[1:], "lib.Hot", str(hits)],
        "reference-assert": reference_assert,
        "ci-idle": [*jdwpd_argv(), "ci", "--profile", "nothrow", "--out", str(classes.parent / "ci"), "--",
                    *java, "lib.Hot", str(hits)],
        "ci-assert": [*jdwpd_argv(), "ci", "--out", str(classes.parent / "ci"), "--assert",
                      f"{location}:{EXPRESSION}", "--", *java, "lib.Hot", str(hits)],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hits", type=int, default=20000)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args(argv)
    from bench.run import prepare_bytecode

    print(prepare_bytecode(True), flush=True)
    with tempfile.TemporaryDirectory(prefix="jdwpd-ci-assert-") as tmp:
        classes = Path(tmp) / "classes"
        subprocess.run(["javac", "-g", "-d", str(classes), str(SOURCES / "Parser.java"), str(SOURCES / "Hot.java")],
                       check=True, timeout=120)
        runs = variants(classes, args.hits)
        results: dict[str, list[float]] = {k: [] for k in runs}
        names = list(runs)
        for rep in range(args.reps):
            for name in names[rep % len(names):] + names[:rep % len(names)]:
                argv_ = runs[name]() if callable(runs[name]) else runs[name]
                cpu, wall, proc = run_tree(argv_, timeout=3600)
                ok = "hot: total" in proc.stdout
                results[name].append(cpu)
                print(f"rep {rep} {name:16} cpu {cpu:7.2f} s  wall {wall:7.2f} s  ran {ok}", flush=True)
                shutil.rmtree(classes.parent / "ci", ignore_errors=True)
    med = {k: statistics.median(v) for k, v in results.items()}
    print(f"\n{'variant':16} {'cpu s':>8} {'/reference':>10} {'us/hit':>8}")
    for name, cpu in med.items():
        # per hit: above the same run without the probe (jdwpd ci's own start is not per hit)
        base = med["ci-idle"] if name.startswith("ci-") else med["plain"]
        per_hit = (cpu - base) / args.hits * 1e6
        print(f"{name:16} {cpu:8.2f} {cpu / med['reference']:10.2f} {per_hit:8.1f}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ci_assert.json").write_text(json.dumps({"hits": args.hits, "reps": args.reps, "cpu": results,
                                                        "median": med}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
