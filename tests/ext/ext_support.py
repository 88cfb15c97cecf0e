"""Helpers of the extension's tests: a generated debuggee whose own Java code is the oracle.

``cond_source(conditions)`` writes Cond.java: a loop calls ``at(i, ...)`` with varied locals, and
``at`` evaluates every condition in Java (javac compiles the same text the daemon compiles for
the agent) and prints ``T k i`` for each that is true; an exception counts as false, as the agent
counts an error.  The breakpoint goes on the line marked ``// @bp``, before those evaluations.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path
from typing import Any

import pytest

from jdwpd.testing import jdks, jvm
from jdwpd.testing.debuggees import javac_argv
from protocol.agent_code import IN_PLACE_JDKS
from protocol.constants import EventKind, ModKind, SuspendPolicy

TIMEOUT = 60
N = 24

_SOURCE = """\
public class Cond {
    static int sf = 7;
    static String name = "alpha";
    int f;
    Cond next;

    void at(int i, long l, double d, String s, int[] arr, Object o, Integer boxed, char c, byte b) {
        int marker = i; // @bp
%(checks)s
    }

    public static void main(String[] args) throws Exception {
        Cond self = new Cond();
        int n = args.length > 0 ? Integer.parseInt(args[0]) : %(n)d;
        for (int i = 0; i < n; i++) {
            self.f = i * 3 - (i == 7 ? 1 : 0);
            self.next = i %% 4 == 0 ? null : new Cond();
            if (self.next != null) self.next.f = i %% 3 == 0 ? 3 : 0;
            String s = i %% 5 == 0 ? null : "x" + i;
            int[] arr = new int[i %% 6];
            for (int k = 0; k < arr.length; k++) arr[k] = k == 2 ? i : k - 1;
            Object o = i %% 3 == 0 ? (Object) ("o" + i) : i %% 3 == 1 ? (Object) Integer.valueOf(i) : new Object();
            Integer boxed = i %% 2 == 0 ? null : Integer.valueOf(i);
            double d = i == 9 ? Double.NaN : i * 0.75;
            self.at(i, (long) i * i, d, s, arr, o, boxed, (char) ('a' + i %% 4), (byte) (i * 20));
        }
        System.out.println("DONE"); // @done
    }
}
"""


def cond_source(conditions: list[str], n: int = N) -> str:
    checks = "\n".join(
        f"        try {{ if ({c}) System.out.println(\"T {k} \" + i); }} catch (RuntimeException e) {{ }}"
        for k, c in enumerate(conditions))
    return _SOURCE % {"checks": checks, "n": n}


def compile_cond(out: Path, conditions: list[str], n: int = N) -> tuple[Path, dict[str, int]]:
    out.mkdir(parents=True, exist_ok=True)
    src = cond_source(conditions, n)
    (out / "Cond.java").write_text(src)
    subprocess.run([*javac_argv(), "-g", "-d", str(out), str(out / "Cond.java")], check=True, timeout=120)
    lines = {}
    for no, line in enumerate(src.splitlines(), 1):
        if "// @" in line:
            lines[line.split("// @")[1].strip()] = no
    return out, lines


def oracle(output_lines: list[str]) -> set[tuple[int, int]]:
    return {(int(p[1]), int(p[2])) for p in (ln.split() for ln in output_lines) if len(p) == 3 and p[0] == "T"}


async def prepare(c: Any, class_name: str) -> int:
    """From a suspended start, run until class_name is prepared (VM suspended); its ref."""
    await c.wait_for_event(EventKind.VM_START, timeout=TIMEOUT)
    prep = await c.command("EventRequest", "Set", event_kind=EventKind.CLASS_PREPARE, suspend_policy=SuspendPolicy.ALL,
                           modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": class_name}], timeout=TIMEOUT)
    await c.command("VirtualMachine", "Resume", timeout=TIMEOUT)
    _, events = await c.wait_for_event(EventKind.CLASS_PREPARE, timeout=TIMEOUT)
    await c.command("EventRequest", "Clear", event_kind=EventKind.CLASS_PREPARE, request_id=prep.request_id,
                    timeout=TIMEOUT)
    return next(e for e in events if int(e.event_kind) == EventKind.CLASS_PREPARE).type_id


async def location_of_line(c: Any, ref: int, line: int) -> tuple[int, int]:
    for m in (await c.command("ReferenceType", "Methods", ref_type=ref, timeout=TIMEOUT)).declared:
        code, table = await c.command_raw("Method", "LineTable", ref_type=ref, method_id=m.method_id, timeout=TIMEOUT)
        if code == 0:
            for entry in table.lines:
                if entry.line_number == line:
                    return m.method_id, entry.line_code_index
    raise AssertionError(f"no code at line {line}")


def breakpoint_mods(ref: int, method: int, index: int, *extra: dict) -> list[dict]:
    return [{"mod_kind": ModKind.LOCATION_ONLY,
             "loc": {"type_tag": 1, "class_id": ref, "method_id": method, "index": index}}, *extra]


def conditional(expr_id: int) -> dict:
    return {"mod_kind": ModKind.CONDITIONAL, "expr_id": expr_id}


@functools.cache
def jdk_feature(java: str | None = None) -> int | None:
    """The feature release of `java`, or of the JDK under test."""
    return jdks.java_feature(java or jvm.java_executable())


def in_place_or_skip(java: str | None = None) -> None:
    """Reading locals in place is only tried on the JDKs tested for it (agent/hotspot_gate.h): on another,
    a test of reading in place has nothing to test (what replaces it: tests/ext/test_slots.py's
    test_a_jdk_not_tested_for_reading_in_place_reads_by_a_walk)."""
    feature = jdk_feature(java)
    if feature not in IN_PLACE_JDKS:
        pytest.skip(f"JDK {feature} is not among the versions tested for reading in place {IN_PLACE_JDKS}")
