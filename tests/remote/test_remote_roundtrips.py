"""Round trips per IDE step across the remote link: the IDE waterfall (bench/remote_java/client/
IdeWaterfall.java: threads and states, frames, the top frames' locals, `this` and its fields, strings)
through `jdwpd connect`, with the near side's trace of what crossed (JDWPD_REMOTE_TRACE).  With stop
bundles the far side sends what the waterfall asks next with the stop; without them (the baseline,
JDWPD_REMOTE_BUNDLES=off) each answer crosses on its own.  Counts, never times."""

from __future__ import annotations

import re
import subprocess

import pytest
import trio
from remote_kit import client_classes, open_far, open_near

from jdwpd.testing import jvm

pytestmark = pytest.mark.jvm
STEPS = 4


def per_step(trace: str) -> list[dict]:
    """For each stop of the waterfall's steps: link writes that crossed (each a round trip, or a message
    no one waits for), requests sent across, requests answered from the stop's bundle."""
    steps, current = [], None
    for line in trace.splitlines():
        if line.startswith("== event") and "'suspend_policy': 2" in line and "'event_kind': 1," in line:
            current = {"writes": 0, "sent": 0, "answered": 0, "kinds": []}
            steps.append(current)
        elif current is None:
            continue
        elif line == "-- write":
            current["writes"] += 1
        elif line.startswith("sent "):
            current["sent"] += 1
            current["kinds"].append(line.split()[1])
        elif line.startswith("answered "):
            current["answered"] += 1
    return steps


async def waterfall_trace(tmp_path, monkeypatch, bundles: bool) -> list[dict]:
    secret = tmp_path / "secret"
    trace = tmp_path / f"trace-{bundles}"
    monkeypatch.setenv("JDWPD_REMOTE_TRACE", str(trace))
    monkeypatch.setenv("JDWPD_REMOTE_BUNDLES", "on" if bundles else "off")
    async with open_far(secret) as far, open_near(f"127.0.0.1:{far.port}", secret) as near:
        cmd = [jvm.tools_java(), "-cp", str(client_classes()), "IdeWaterfall", "127.0.0.1", str(near.port),
               str(STEPS)]
        with trio.fail_after(180):
            proc = await trio.run_process(cmd, capture_stdout=True, capture_stderr=True, check=False)
        out = proc.stdout.decode()
        assert proc.returncode == 0, f"{out}\n{proc.stderr.decode()}\n{near.output.describe()}"
        assert re.search(rf"^steps={STEPS}$", out, re.M)
    steps = per_step(trace.read_text())
    assert len(steps) == STEPS, trace.read_text()[-3000:]
    return steps[1:-1]  # the first step still learns class facts; the last ends the session


async def test_round_trips_per_ide_step(tmp_path, monkeypatch):
    plain = await waterfall_trace(tmp_path, monkeypatch, bundles=False)
    bundled = await waterfall_trace(tmp_path, monkeypatch, bundles=True)
    plain_writes = max(s["writes"] for s in plain)
    bundled_writes = max(s["writes"] for s in bundled)
    print(f"link writes per IDE step: {plain_writes} without bundles, {bundled_writes} with; "
          f"requests sent {max(s['sent'] for s in plain)} -> {max(s['sent'] for s in bundled)}; "
          f"kinds still sent: {bundled[-1]['kinds']}")
    assert all(s["answered"] == 0 for s in plain)
    assert all(s["answered"] >= 20 for s in bundled), bundled
    # what still crosses per step: the step request cleared and the next one set (neither waited for)
    # and the resume: the one round trip a step is
    assert bundled_writes <= 3, bundled
    assert plain_writes >= 8 * bundled_writes, (plain, bundled)


def test_the_waterfall_client_compiles():
    assert (client_classes() / "IdeWaterfall.class").is_file()
    assert subprocess.run([jvm.tools_java(), "-version"], capture_output=True, timeout=60).returncode == 0
