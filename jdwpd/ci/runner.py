"""`jdwpd ci -- COMMAND`: run a command with every JVM it starts debuggable, probes in each, and
evidence on disk.

One daemon in this process serves every JVM (the agent in ``JAVA_TOOL_OPTIONS`` reaches every
JVM the command starts, however deep; each dials the daemon's owner-only link with its secret and
waits at its start). For each VM a task attaches through the scripting API, installs the probes
and lets the VM run; its hits become files. The command's stdio, status and signals are its own.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import trio

from jdwpd import api
from jdwpd.daemon.fleet import Fleet, VmEntry, serve_fleet, state_dir
from jdwpd.daemon.link import launcher
from jdwpd.daemon.link.workdirs import make_workdir

from .evidence import Evidence, Redactor
from .forensics import hang_report
from .options import Settings, cheapest_profile
from .probes import Tally, VmProbes, selected

#: Exit statuses of our own (docs/ci.md): the command's status otherwise.
STATUS_FAILED_CHECKS = 3
STATUS_TIMEOUT = 124
STATUS_CANNOT_START = 127
#: How long a JVM waits at its start for the daemon before it runs undebugged.
AGENT_WAIT_MS = 15000


def tool_options(agent_options: str) -> str:
    """JAVA_TOOL_OPTIONS with our agent first and whatever the user had after it."""
    mine = f"-agentpath:{launcher.agent_path()}={agent_options}"
    theirs = os.environ.get("JAVA_TOOL_OPTIONS", "").strip()
    return f"{mine} {theirs}".strip()


def descendants(root: int) -> list[int]:
    """Every process below ``root`` (by parent pid, read from /proc), deepest last."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        for child in children.get(pid, []):
            out.append(child)
            todo.append(child)
    return out


def _describe(e: BaseException) -> str:
    """What went wrong, by the innermost errors (a nursery's group says nothing by itself)."""
    if isinstance(e, BaseExceptionGroup):
        return "; ".join(_describe(x) for x in e.exceptions)
    return f"{type(e).__name__}: {e}"


def signal_tree(root: int, sig: int) -> None:
    for pid in [root, *descendants(root)]:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


class Progress:
    """One line on a terminal, rewritten as things happen; nothing when stderr is not a terminal."""

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self.on = sys.stderr.isatty()
        self.shown = False

    def line(self) -> str:
        t = self.tally
        return (f"jdwpd ci: VMs {t.vms} ({t.live} running) · hits {t.hits} · snapshots {t.snapshots}"
                + (f" · log lines {t.log_lines}" if t.log_lines else "")
                + (f" · assertion failures {t.assertion_failures}" if t.assertion_failures else ""))

    async def run(self) -> None:
        if not self.on:
            return
        while True:
            await self.tally.changed.wait()
            sys.stderr.write("\r\x1b[2K" + self.line())
            sys.stderr.flush()
            self.shown = True
            await trio.sleep(0.2)

    def done(self) -> None:
        if self.on and self.shown:
            sys.stderr.write("\r\x1b[2K" + self.line() + "\n")
            sys.stderr.flush()


async def _probe_vm(settings: Settings, evidence: Evidence, tally: Tally, vms: dict, entry: VmEntry,
                    gone: trio.Event) -> None:
    labels = entry.as_json()
    short = {k: labels[k] for k in ("vm", "pid", "main")}
    tally.bump(vms=1, live=1)
    evidence.event("vm-start", vm=short, ppid=labels["ppid"], argv=labels["argv"], cwd=labels["cwd"],
                   jdwp=labels["jdwp"])
    started = time.monotonic()
    try:
        assert entry.jdwp is not None  # the fleet tells of a VM once it serves it on a port
        host, port = entry.jdwp
        async with api.attach(f"{host}:{port}", timeout=30) as vm:
            probes = VmProbes(vm, labels, settings, evidence, tally)
            vms[entry.number] = probes
            if selected(settings, labels):
                await probes.install(settings.probes)
                if settings.expire is not None:
                    vm.router.start_soon(probes.expire_after, settings.expire)
            await vm.resume()
            try:
                await vm.dead.wait()
            finally:  # a VM that outlives the command is cancelled here: what it resolved still counts
                probes.note_resolution()
    except Exception as e:  # the VM ended while we attached, or the link broke: the VM runs on regardless
        evidence.event("vm-error", vm=short, error=_describe(e))
        tally.bump(problems=1)
        print(f"jdwpd ci: VM {short.get('main')} (pid {short.get('pid')}) was not debugged to its end: {_describe(e)}",
              file=sys.stderr, flush=True)
    finally:
        vms.pop(entry.number, None)
        tally.bump(live=-1)
        evidence.event("vm-end", vm=short, seconds=round(time.monotonic() - started, 3))


async def _hang_forensics(settings: Settings, evidence: Evidence, tally: Tally, vms: dict) -> None:
    evidence.event("timeout", after_seconds=settings.timeout, vms=len(vms))

    async def one(probes: VmProbes) -> None:
        try:
            with trio.fail_after(60):
                report = await hang_report(probes.vm, settings.limits)
            name = evidence.snapshot("hang", probes.short, "on-timeout", report,
                                     message=f"{len(report['threads'])} threads, {len(report['deadlocks'])} deadlocks")
            tally.bump(snapshots=1)  # a hang report is a snapshot of every thread: counted as one
            for cycle in report["deadlocks"]:
                evidence.event("deadlock", vm=probes.short, threads=cycle, file=name,
                               message="deadlock: " + " -> ".join(t["thread"] for t in cycle))
        except Exception as e:  # one VM's report failing must not cost the others theirs
            evidence.event("hang-report-error", vm=probes.short, error=f"{type(e).__name__}: {e}")

    async with trio.open_nursery() as nursery:
        for probes in list(vms.values()):
            nursery.start_soon(one, probes)


async def _wait_command(proc: trio.Process, settings: Settings, evidence: Evidence, tally: Tally,
                        vms: dict) -> tuple[int, bool]:
    """The command's status, and whether --on-timeout ended it (after the hang report)."""
    status = None
    with trio.move_on_after(settings.timeout if settings.timeout is not None else float("inf")):
        status = await proc.wait()
    if status is not None:
        return status, False
    await _hang_forensics(settings, evidence, tally, vms)
    signal_tree(proc.pid, signal.SIGTERM)
    with trio.move_on_after(settings.grace):
        await proc.wait()
    if proc.returncode is None:
        signal_tree(proc.pid, signal.SIGKILL)
    return await proc.wait(), True


async def run(settings: Settings) -> int:
    from .outputs import write_reports

    redactor = Redactor(settings.redact_names, settings.redact_values, settings.redact_patterns)
    evidence = Evidence(settings.out, redactor)
    tally = Tally()
    vms: dict[int, VmProbes] = {}
    profile = settings.profile or cheapest_profile(settings.probes, settings.timeout)
    workdir = make_workdir()
    secret, secret_path = launcher.new_secret_file(workdir)
    from jdwpd.daemon.endpoints import bind_link

    link_sock, link_path = bind_link(workdir)
    # suspend=y: each JVM waits at its start for its probes (at most AGENT_WAIT_MS, then runs);
    # optional=y: one started after the run (a build daemon outlived it) runs without the agent.
    options = launcher.agent_option_string(f"unix:{link_path}", secret_path, profile=profile, suspend=True,
                                           timeout=AGENT_WAIT_MS, optional=True)
    env = {**os.environ, "JAVA_TOOL_OPTIONS": tool_options(options)}
    fleet = Fleet(f"unix:{link_path}", state_dir() / f"serve-{os.getpid()}.json")
    progress = Progress(tally)
    evidence.event("run-start", command=list(settings.command), profile=profile,
                   probes=[p.describe() for p in settings.probes], timeout=settings.timeout)
    began = time.monotonic()
    status = None
    timed_out = False
    proc = None
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(functools.partial(
                serve_fleet, link_sock, secret, host="127.0.0.1", first_port=0, allow=[], read_only=False,
                fleet=fleet, quiet=True, on_vm=functools.partial(_probe_vm, settings, evidence, tally, vms)))
            nursery.start_soon(progress.run)
            try:
                proc = await trio.lowlevel.open_process(list(settings.command), env=env)
            except OSError as e:
                evidence.event("run-error", error=f"cannot start {settings.command[0]}: {e.strerror}")
                print(f"jdwpd ci: cannot start {settings.command[0]}: {e.strerror}", file=sys.stderr)
                status = STATUS_CANNOT_START
                nursery.cancel_scope.cancel()
            if proc is not None:
                # The receiver and the task that reads it live and end together: a task left
                # reading it after its block exits fails the run ("block already exited").
                with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP, signal.SIGINT) as signals:
                    async with trio.open_nursery() as forwarding:
                        async def forward() -> None:
                            async for signum in signals:
                                # Ctrl-C reaches the command's group by itself; others are sent on
                                if signum != signal.SIGINT:
                                    with contextlib.suppress(ProcessLookupError):
                                        proc.send_signal(signum)

                        forwarding.start_soon(forward)
                        status, timed_out = await _wait_command(proc, settings, evidence, tally, vms)
                        forwarding.cancel_scope.cancel()
                    # let the last VMs' final events arrive (their exit follows the command's, or precedes it)
                    with trio.move_on_after(10):
                        while vms:
                            await tally.changed.wait()
            nursery.cancel_scope.cancel()
    finally:
        if proc is not None and proc.returncode is None:
            # we are leaving abnormally (an error of ours, a second Ctrl-C): the command must not
            # outlive us unseen, held by probes nobody serves
            signal_tree(proc.pid, signal.SIGTERM)
            time.sleep(0.5)
            signal_tree(proc.pid, signal.SIGKILL)
        fleet.close()
        link_sock.close()
        shutil.rmtree(workdir, ignore_errors=True)
        progress.done()
    code = status if status is not None else 1
    if code < 0:
        code = 128 - code
    if timed_out:
        command_status, code = code, STATUS_TIMEOUT
    else:
        command_status = code
    for probe in settings.probes:
        if probe.location is not None and probe not in tally.resolved:
            why = tally.unresolved_why.get(probe) or "no class of any VM had that location"
            evidence.event("probe-unresolved", probe=probe.describe(), reason=why, error=f"never set: {why}")
            tally.probe_problems += 1
            print(f"jdwpd ci: {probe.describe()} was never set: {why}", file=sys.stderr)
    failed_checks = (("assert" in settings.fail_on and tally.assertion_failures)
                     or ("exception" in settings.fail_on and (tally.exceptions or tally.test_failures))
                     or ("probe" in settings.fail_on and tally.probe_problems))
    final = code if code != 0 else (STATUS_FAILED_CHECKS if failed_checks else 0)
    evidence.event("run-end", status=final, command_status=command_status, timed_out=timed_out,
                   seconds=round(time.monotonic() - began, 3), vms=tally.vms, snapshots=tally.snapshots)
    evidence.close()
    write_reports(settings, evidence, tally, final, command_status, timed_out)
    return final


def run_ci(settings: Settings) -> int:
    return trio.run(run, settings)
