"""Run the JDI conformance client (tests/clients/jdi_conformance) against one server, and compare transcripts.

A run is one debuggee JVM (tests/java/conformance/JdiConf under the reference agent or under jdwpd)
and one JDI client JVM attached to it, bounded by a timeout, both killed by PID at the end.  The
client's transcript is cut into sections ("== name" lines); the suite compares them section by
section, so that a difference names the area it is in.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import attrs

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import jvm

__all__ = ["SCENARIOS", "EVENT_SECTIONS", "KNOWN_DIFFERENCES", "INTERMITTENT", "KNOWN_DIFFERENCE_JDK",
           "known_differences_for", "EXIT_CODES", "RUNNING", "DEBUGGEE_ARGS", "CLIENT_JVM_ARGS", "JdiRun", "run_jdi",
           "run_pair", "sections", "first_difference", "CLIENT_SOURCES", "DEBUGGEE_MAIN", "recording_proxy"]

CLIENT_SOURCES = Path(__file__).resolve().parents[1] / "clients"
DEBUGGEE_MAIN = "JdiConf"
CLIENT_TIMEOUT = 90

# Scenario name -> what it exercises (the client's JdiConformance.run() dispatches on the name).
SCENARIOS: dict[str, str] = {
    "vm": "VirtualMachine: facts, capabilities, classes, thread groups, suspension counts, mirrors, "
          "instance counts, redefinition, modules",
    "types": "ReferenceType, Method, Field, class loaders: declarations, line and variable tables, "
             "constant pools, absent information",
    "objects": "ObjectReference, StringReference, ArrayReference, ClassType, ArrayType, InterfaceType: values, "
               "invokes, collection, monitors, the errors JDI shows",
    "threads": "ThreadReference, StackFrame, ThreadGroupReference: frames, locals, monitors, stale frames, "
               "interrupt, stop, PopFrames, ForceEarlyReturn",
    "events": "every event kind through EventRequestManager, with filters and suspend policies",
    "nested": "invokes that meet a breakpoint, a step, an exception, method entries and exits, a nested invoke, "
              "a VM suspend",
    "attach": "attaching to a VM that runs (started without suspension), then letting it go by a field write",
    "virtual": "a breakpoint in a virtual thread (JDK 21+; before, the debuggee says it has none)",
}
# A scenario's debuggee arguments (none: the whole program).
DEBUGGEE_ARGS: dict[str, tuple[str, ...]] = {"virtual": ("virtual",)}
# JVM options of a scenario's client: vm lets JDI's soft references to dropped mirrors go at the first GC,
# so that JDI sends DisposeObjects when the scenario asks it to.
CLIENT_JVM_ARGS: dict[str, tuple[str, ...]] = {"vm": ("-XX:SoftRefLRUPolicyMSPerMB=0",)}
# Scenarios whose debuggee starts running (not suspended), with its arguments.
RUNNING: dict[str, tuple[str, ...]] = {"attach": ("wait",)}


# The events scenario logs each event kind in a section of its own, printed once the VM is gone
# (JdiEventsScenario.handle): the section that proves the kind equal.
EVENT_SECTIONS: dict[str, str] = {
    "CLASS_PREPARE": "class events", "CLASS_UNLOAD": "class events", "THREAD_START": "thread events",
    "THREAD_DEATH": "thread events", "BREAKPOINT": "breakpoints", "SINGLE_STEP": "steps", "EXCEPTION": "exceptions",
    "METHOD_ENTRY": "method events", "METHOD_EXIT": "method events", "METHOD_EXIT_WITH_RETURN_VALUE": "method events",
    "FIELD_ACCESS": "watchpoints", "FIELD_MODIFICATION": "watchpoints", "MONITOR_CONTENDED_ENTER": "monitor events",
    "MONITOR_CONTENDED_ENTERED": "monitor events", "MONITOR_WAIT": "monitor events", "MONITOR_WAITED": "monitor events",
    "VM_START": "run", "VM_DEATH": "end",
}

# Known jdwpd differences in the JDI transcripts: (scenario, section) -> what differs and where it would be
# fixed.  The section is left out of the comparison and compared by an xfail of its own (strict, unless the
# difference shows in some runs only: INTERMITTENT).
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {}
# Known differences that show in some runs only: their xfail cannot be strict.
INTERMITTENT: frozenset[tuple[str, str]] = frozenset()
# The Java feature release a known difference is limited to (absent: every release).
KNOWN_DIFFERENCE_JDK: dict[tuple[str, str], int] = {}


def known_difference(scenario: str, section: str, reason: str, jdk: int | None = None) -> None:
    KNOWN_DIFFERENCES[(scenario, section)] = reason + (f" (JDK {jdk})" if jdk else "")
    if jdk:
        KNOWN_DIFFERENCE_JDK[(scenario, section)] = jdk


def known_differences_for(jdk: int) -> dict[tuple[str, str], str]:
    return {k: r for k, r in KNOWN_DIFFERENCES.items() if KNOWN_DIFFERENCE_JDK.get(k, jdk) == jdk}


# The debuggee's exit code at the end of a scenario (the vm scenario ends with VirtualMachine.Exit(7)).
EXIT_CODES: dict[str, int] = {"vm": 7}


@attrs.frozen
class JdiRun:
    kind: str
    transcript: str  # the JDI client's stdout
    debuggee_stdout: str
    error: str | None  # why the run did not end well; None when it did

    def describe(self) -> str:
        return f"{self.kind}: {self.error}\n--- transcript (last 40 lines) ---\n" + "\n".join(
            self.transcript.splitlines()[-40:])


def _client_command(client_classes: Path, host: str, port: int, scenario: str, conf_classes: Path,
                    markers: dict[str, int]) -> list[str]:
    # The transcript is UTF-8 whatever the machine's locale (Java 17 prints in the locale's charset otherwise).
    return [jvm.tools_java(), *CLIENT_JVM_ARGS.get(scenario, ()), "-Duser.language=en", "-Duser.country=US",
            "-Dfile.encoding=UTF-8", "-Dsun.stdout.encoding=UTF-8", "-cp", str(client_classes), "JdiConformance",
            host, str(port), scenario, str(conf_classes), *(f"{k}={v}" for k, v in sorted(markers.items()))]


def run_jdi(kind: str, scenario: str, client_classes: Path, conf_classes: Path, markers: dict[str, int],
            crash_dir: Path, *, through=None) -> JdiRun:
    """One scenario against one server.  ``through(host, port)``: a context manager giving the
    address the client should attach to instead (the recording proxy)."""
    crash_dir.mkdir(parents=True, exist_ok=True)
    jvm_args = (f"-XX:ErrorFile={crash_dir}/hs_err_%p.log",)
    try:
        args = RUNNING.get(scenario, DEBUGGEE_ARGS.get(scenario, ()))
        with jvm.debuggee_jvm(kind, conf_classes, DEBUGGEE_MAIN, args, jvm_args=jvm_args,
                              suspend=scenario not in RUNNING) as vm:
            with (through(vm.host, vm.port) if through else contextlib.nullcontext((vm.host, vm.port))) as (h, p):
                out, err, code = _run_client(_client_command(client_classes, h, p, scenario, conf_classes, markers))
            error = None
            if code != 0:
                error = f"the JDI client exited with {code}:\n{err[-4000:]}\n{vm.output.describe()[-3000:]}"
            else:
                try:
                    rc = vm.wait(30)
                    if rc != EXIT_CODES.get(scenario, 0):
                        error = f"the debuggee exited with {rc}\n{vm.output.describe()[-3000:]}"
                except subprocess.TimeoutExpired:
                    error = f"the debuggee did not end\n{vm.output.describe()[-3000:]}"
            stdout = "".join(line + "\n" for line in vm.output.lines("stdout")
                             if not jvm.REFERENCE_READY.search(line))
    except jvm.JvmStartError as e:
        return JdiRun(kind, "", "", f"the debuggee did not start: {e}")
    return JdiRun(kind, out, stdout, error)


def _run_client(cmd: list[str]) -> tuple[str, str, int]:
    client = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        out, err = client.communicate(timeout=CLIENT_TIMEOUT)
        code = client.returncode
    except subprocess.TimeoutExpired:
        client.kill()
        out, err = client.communicate(timeout=10)
        code = f"nothing: timed out after {CLIENT_TIMEOUT} s"
    finally:
        if client.poll() is None:
            client.kill()
            client.wait(10)
    return out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), code


def run_pair(scenario: str, client_classes: Path, conf_classes: Path, markers: dict[str, int], tmp: Path,
             kinds: tuple[str, ...] = ("reference", "jdwpd")) -> dict[str, JdiRun]:
    """The scenario under both servers at once (separate JVMs, no shared state)."""
    runs: dict[str, JdiRun] = {}

    def one(kind: str) -> None:
        runs[kind] = run_jdi(kind, scenario, client_classes, conf_classes, markers, tmp / f"{scenario}-{kind}")

    threads = [threading.Thread(target=one, args=(k,), daemon=True) for k in kinds]
    for t in threads:
        t.start()
    for t in threads:
        t.join(CLIENT_TIMEOUT + 120)
    return runs


def sections(transcript: str) -> dict[str, list[str]]:
    """"== name" header -> the lines under it, in order; lines before the first header go under ""."""
    out: dict[str, list[str]] = {"": []}
    current = ""
    for line in transcript.splitlines():
        if line.startswith("== "):
            current = line[3:]
            if current in out:
                raise AssertionError(f"section {current!r} twice in the transcript")
            out[current] = []
        else:
            out[current].append(line)
    return out


def first_difference(want: list[str], got: list[str], context: int = 4) -> str | None:
    """None when equal; else the first differing line with ``context`` lines around it, both sides."""
    n = next((i for i, (w, g) in enumerate(zip(want, got, strict=False)) if w != g), min(len(want), len(got)))
    if n == len(want) == len(got):
        return None
    lo, hi = max(0, n - context), n + context + 1

    def show(lines: list[str]) -> str:
        shown = [f"{'>' if i == n else ' '} {i:4} {line}" for i, line in enumerate(lines[lo:hi], lo)]
        if n >= len(lines):
            shown.append(f"> {n:4} (end of the transcript)")
        return "\n".join(shown)

    return (f"first difference at line {n} (reference {len(want)} lines, jdwpd {len(got)})\n"
            f"--- reference ---\n{show(want)}\n--- jdwpd ---\n{show(got)}")


_PROXY_READY = re.compile(r"jdwpd record: listening at ([0-9.]+):(\d+)")


@contextlib.contextmanager
def recording_proxy(out: Path, host: str, port: int) -> Iterator[tuple[str, int]]:
    """`jdwpd record --once` between the client and ``host:port``, raw packets to ``out`` (JSON lines)."""
    proxy = subprocess.Popen([*jdwpd_argv(), "record", "--listen", "127.0.0.1:0", "--to",
                              f"{host}:{port}", "--once", "--out", str(out)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                             start_new_session=True, text=True)
    try:
        deadline = time.monotonic() + 30
        line = ""
        while (m := _PROXY_READY.search(line)) is None:
            if time.monotonic() > deadline or proxy.poll() is not None:
                raise RuntimeError(f"the recording proxy did not start: {line}")
            line = proxy.stderr.readline()
        yield m.group(1), int(m.group(2))
        proxy.wait(30)
    finally:
        if proxy.poll() is None:
            proxy.kill()
            proxy.wait(10)
