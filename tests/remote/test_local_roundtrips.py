"""Round trips per IDE step on one machine: the IDE waterfall (bench/remote_java/client/IdeWaterfall.java)
through `jdwpd launch`, with the daemon's trace of its agent link (JDWPD_LINK_TRACE).  At a stop the
daemon reads ahead what debuggers ask next (jdwpd/daemon/fast/stop_read.py) in a few batched writes, and
answers from those replies until something may change (jdwpd/daemon/fast/stop_ahead.py); without it
(JDWPD_STOP_AHEAD=off) each question is a link round trip.  What the client read must be the same
either way (its digest).  Counts, never times."""

from __future__ import annotations

import re

import pytest
import trio
from remote_kit import NEAR_READY, client_classes, target_classes
from test_remote_roundtrips import per_step

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import jvm

pytestmark = pytest.mark.jvm
STEPS = 4


async def waterfall(tmp_path, monkeypatch, mode: str) -> tuple[list[dict], str]:
    trace = tmp_path / f"trace-{mode}"
    monkeypatch.setenv("JDWPD_LINK_TRACE", str(trace))
    monkeypatch.setenv("JDWPD_STOP_AHEAD", mode)
    monkeypatch.setenv("IDE_WATERFALL_ECHO", "1")
    cmd = [*jdwpd_argv(), "launch", "--jdwp", "127.0.0.1:0", "--suspend", "--",
           jvm.java_executable(), "-cp", str(target_classes()), "RemoteTarget"]
    async with jvm.open_command("jdwpd", cmd, timeout=60, ready=NEAR_READY) as vm:
        client = [jvm.tools_java(), "-cp", str(client_classes()), "IdeWaterfall", "127.0.0.1", str(vm.port),
                  str(STEPS)]
        with trio.fail_after(180):
            proc = await trio.run_process(client, capture_stdout=True, capture_stderr=True, check=False)
        out = proc.stdout.decode()
        assert proc.returncode == 0, f"{out}\n{proc.stderr.decode()}"
    assert re.search(r"^seen=(.*)$", out, re.M), out
    # what it read, but threads' states (running or sleeping when the VM stopped: timing)
    seen = "\n".join(re.sub(r"^  (\S+) \d+ (true|false)$", r"  \1 ? \2", line) for line in out.splitlines()
                     if line.startswith("  "))
    text = trace.read_text()
    steps = per_step(text)
    assert len(steps) == STEPS, text[-3000:]
    ahead_writes, current = [], None
    for line in text.splitlines():
        if line.startswith("== event"):
            current = None
            if "'suspend_policy': 2" in line and "'event_kind': 1," in line:
                ahead_writes.append(0)
                current = len(ahead_writes) - 1
        elif line == "-- ahead write" and current is not None:
            ahead_writes[current] += 1
    for step, n in zip(steps, ahead_writes, strict=True):
        step["ahead_writes"] = n
    return steps[1:-1], seen  # the first step still learns class facts; the last ends the session


async def test_round_trips_per_local_ide_step(tmp_path, monkeypatch):
    plain, plain_seen = await waterfall(tmp_path, monkeypatch, "off")
    ahead, ahead_seen = await waterfall(tmp_path, monkeypatch, "late")
    assert ahead_seen == plain_seen  # the same answers
    plain_writes = max(s["writes"] for s in plain)
    writes = max(s["writes"] for s in ahead)
    print(f"link writes waited or posted per IDE step: {plain_writes} without reading ahead, {writes} with "
          f"(+ {max(s['ahead_writes'] for s in ahead)} batched reads ahead); answered here "
          f"{min(s['answered'] for s in ahead)}; still sent: {ahead[-1]['kinds']}")
    assert all(s["answered"] == 0 for s in plain)
    assert all(s["answered"] >= 20 for s in ahead), ahead
    # the step request cleared and set, the resume (and the resume's status read): the step itself;
    # and what would hand out an object id were it read ahead (stop_read.read_stop's objects=False:
    # the daemon makes no id before the debugger asks): `this`, its fields, the locals that hold
    # objects, each one write when the IDE asks
    assert writes <= 8, ahead
    assert all(s["ahead_writes"] <= 6 for s in ahead), ahead
    assert plain_writes >= 2.5 * (writes + max(s["ahead_writes"] for s in ahead)), (plain, ahead)
