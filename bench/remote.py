"""The remote link's bench: the IDE waterfall (bench/remote_java/client/IdeWaterfall.java) over a link
that delays each direction, jdwpd (`jdwpd connect` beside the client, `jdwpd launch --remote` beside
the JVM, the delay between them) against the reference agent (its JDWP port behind the same delay).

    python -m bench.remote [--delay 0.025] [--steps 20] [--runs 1]

Prints ms per IDE step for each and the ratio jdwpd / reference, for the delay given and with no
delay; the client runs next to the debugger side in both (the delay is the network between the
debugger's machine and the JVM's).  Ratios only: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

import trio

from jdwpd.testing import debuggees, jvm

from .netrelay import open_relay

HERE = Path(__file__).resolve().parent
FAR_READY = re.compile(r"jdwpd: waiting for the near side at ([0-9.]+):(\d+)")
NEAR_READY = re.compile(r"jdwpd: listening for debuggers at ([0-9.]+):(\d+)")


def _classes() -> tuple[Path, Path]:
    return (debuggees.compile_sources(HERE / "remote_java" / "target"),
            debuggees.compile_sources(HERE / "remote_java" / "client"))


async def _waterfall(client: Path, port: int, steps: int) -> float:
    cmd = [jvm.tools_java(), "-cp", str(client), "IdeWaterfall", "127.0.0.1", str(port), str(steps)]
    with trio.fail_after(600):
        proc = await trio.run_process(cmd, capture_stdout=True, capture_stderr=True, check=False)
    out = proc.stdout.decode()
    m = re.search(r"^per_step_ms=([0-9.]+)", out, re.M)
    if proc.returncode != 0 or m is None:
        raise RuntimeError(f"IdeWaterfall failed: {out[-2000:]}\n{proc.stderr.decode()[-2000:]}")
    return float(m.group(1))


async def reference(delay: float, steps: int) -> float:
    target, client = _classes()
    cmd = jvm.reference_command(target, "RemoteTarget", suspend=True)
    async with jvm.open_command("reference", cmd) as vm, open_relay(("127.0.0.1", vm.port), delay) as relay:
        return await _waterfall(client, relay.port, steps)


async def jdwpd_remote(delay: float, steps: int) -> float:
    from jdwpd.own_command import jdwpd_argv

    target, client = _classes()
    with tempfile.TemporaryDirectory(prefix="jdwpd-bench-") as d:
        secret = os.path.join(d, "secret")
        far_cmd = [*jdwpd_argv(), "launch", "--remote", "127.0.0.1:0", "--secret-file", secret, "--suspend", "--",
                   jvm.java_executable(), "-cp", str(target), "RemoteTarget"]
        async with jvm.open_command("jdwpd", far_cmd, ready=FAR_READY) as far, \
                open_relay(("127.0.0.1", far.port), delay) as relay:
            near_cmd = [*jdwpd_argv(), "connect", f"127.0.0.1:{relay.port}", "--secret-file", secret,
                        "--jdwp", "127.0.0.1:0"]
            async with jvm.open_command("jdwpd", near_cmd, ready=NEAR_READY) as near:
                return await _waterfall(client, near.port, steps)


async def jdwpd_local(steps: int) -> float:
    """The same waterfall against `jdwpd launch` on this machine (no far side, no delay)."""
    from jdwpd.own_command import jdwpd_argv

    target, client = _classes()
    cmd = [*jdwpd_argv(), "launch", "--jdwp", "127.0.0.1:0", "--suspend", "--",
           jvm.java_executable(), "-cp", str(target), "RemoteTarget"]
    async with jvm.open_command("jdwpd", cmd, ready=NEAR_READY) as vm:
        return await _waterfall(client, vm.port, steps)


async def main(delays: list[float], steps: int, runs: int, local: bool) -> None:
    if local:
        ref, ours = [], []
        for _ in range(runs):
            ref.append(await reference(0.0, steps))
            ours.append(await jdwpd_local(steps))
        r, o = statistics.median(ref), statistics.median(ours)
        print(f"local (jdwpd launch), {steps} steps: reference {r:.1f} ms/step, "
              f"jdwpd {o:.1f} ms/step, ratio {o / r:.3f}", flush=True)
    for delay in delays:
        ref, ours = [], []
        for _ in range(runs):
            ref.append(await reference(delay, steps))
            ours.append(await jdwpd_remote(delay, steps))
        r, o = statistics.median(ref), statistics.median(ours)
        print(f"delay {delay * 1000:g} ms each way, {steps} steps: reference {r:.1f} ms/step, "
              f"jdwpd connect {o:.1f} ms/step, ratio {o / r:.3f}", flush=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--delay", type=float, default=0.025, help="seconds added each way (default 0.025)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--local", action="store_true", help="also the waterfall against `jdwpd launch` (no remote)")
    p.add_argument("--only-local", action="store_true", help="only that")
    a = p.parse_args()
    trio.run(main, [] if a.only_local else [a.delay, 0.0], a.steps, a.runs, a.local or a.only_local)
    sys.exit(0)
