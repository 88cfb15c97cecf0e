"""Entry points: ``launch`` a JVM under jdwpd, ``attach`` to any JDWP server, ``attach_pid``.

    async with jdwpd.launch(["java", "-cp", "classes", "shop.Main"]) as vm: ...
    async with jdwpd.attach("127.0.0.1:5005") as vm: ...        # jdwpd or -agentlib:jdwp
    async with jdwpd.attach_pid(12345) as vm: ...               # a running JVM, through `jdwpd attach`

Leaving the block leaves the VM as a debugger's Dispose does (every request cleared, every
suspension undone); a launched JVM is then ended, unless ``keep_running=True``.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import attrs
import trio

from jdwpd.own_command import jdwpd_argv

from .connection import DEFAULT_COMMAND_TIMEOUT, open_connection
from .errors import Timeout, VMDisconnected
from .vm import VM

__all__ = ["launch", "attach", "attach_pid", "Process"]

_READY = re.compile(r"jdwpd: listening for debuggers at (\S+):(\d+)")


@attrs.define(eq=False)
class Process:
    """A process the API started (``jdwpd launch`` / ``jdwpd attach``): its PID, and its output
    (the JVM's stdout and stderr, and jdwpd's lines) kept in a file while it runs."""

    pid: int
    address: str
    log_path: Path
    _popen: subprocess.Popen = attrs.field(repr=False)

    def output(self) -> str:
        """Everything the process printed so far (stdout and stderr, interleaved)."""
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    async def wait(self, timeout: float | None = None) -> int:
        """Wait for the process to end; its exit code (the JVM's, for ``launch``)."""
        try:
            with trio.fail_after(float("inf") if timeout is None else timeout):
                await _ended(self._popen)
        except trio.TooSlowError:
            raise Timeout(f"process {self.pid} still runs after {timeout}s") from None
        return self._popen.returncode

    def kill(self) -> None:
        """End the whole process group (jdwpd and its JVM): SIGKILL by the group we started."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._popen.pid, signal.SIGKILL)


async def _ended(popen: subprocess.Popen) -> None:
    """Until the process has ended, woken by its pidfd at its exit (a 50 ms poll made every launched
    JVM's end, and so every script's, 25 ms later on average)."""
    while popen.poll() is None:
        try:
            # opened while the child is ours and not reaped: it names that process, even if it ends now
            pidfd = os.pidfd_open(popen.pid)
        except OSError:  # a kernel without pidfds (before Linux 5.3)
            await trio.sleep(0.05)
            continue
        try:
            await trio.lowlevel.wait_readable(pidfd)
        finally:
            os.close(pidfd)


def _split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"{address!r}: write the address as HOST:PORT")
    return host, int(port)


async def _start(command: list[str], what: str, timeout: float) -> Process:
    """Run ``command`` in a process group of its own, its output to a file; wait for jdwpd's
    'listening' line (a file rather than pipes: a JVM that runs on after the script never blocks
    on a full pipe nobody reads)."""
    fd, log_name = tempfile.mkstemp(prefix="jdwpd-api-", suffix=".log")
    log_path = Path(log_name)
    popen = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=fd, stderr=fd, start_new_session=True)
    os.close(fd)
    proc = Process(popen.pid, "", log_path, popen)
    try:
        with trio.fail_after(timeout):
            while True:
                m = _READY.search(proc.output())
                if m:
                    proc.address = f"{m.group(1)}:{m.group(2)}"
                    return proc
                if popen.poll() is not None:
                    raise VMDisconnected(f"{what} exited with status {popen.returncode} before it listened:\n"
                                         f"{proc.output()[-4000:]}")
                # A file has no readiness to wait for: a short period, as the line comes ~0.3 s after
                # the start and each look reads a few lines (20 ms was 10 ms of every launch on average).
                await trio.sleep(0.005)
    except trio.TooSlowError:
        proc.kill()
        raise Timeout(f"{what} did not listen within {timeout}s:\n{proc.output()[-4000:]}") from None
    except BaseException:
        proc.kill()
        raise


async def _end(proc: Process, keep_running: bool) -> None:
    if keep_running:
        return
    with trio.CancelScope(shield=True):
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
            with trio.move_on_after(5):
                await proc.wait()
        proc.kill()
        await proc.wait(10)
    with contextlib.suppress(OSError):
        proc.log_path.unlink()


def single_cause(group: BaseExceptionGroup) -> BaseException | None:
    """The one exception a group of nurseries carries (``trio.Cancelled`` aside), else None."""
    leaves: list[BaseException] = []

    def walk(e: BaseException) -> None:
        if isinstance(e, BaseExceptionGroup):
            for inner in e.exceptions:
                walk(inner)
        elif not isinstance(e, trio.Cancelled):
            leaves.append(e)

    walk(group)
    return leaves[0] if len(leaves) == 1 else None


@contextlib.asynccontextmanager
async def _session(host: str, port: int, process: Process | None, timeout: float,
                   command_timeout: float) -> AsyncIterator[VM]:
    """The VM of one connection.  The nurseries inside wrap what they raise in ExceptionGroups;
    where there is one cause (the script's own exception, a Timeout, VMDisconnected ...) it is
    raised as itself, so that ``except jdwpd.Timeout:`` catches it; several at once (two hit
    handlers failing together) stay grouped."""
    try:
        async with _connected(host, port, process, timeout, command_timeout) as vm:
            yield vm
    except BaseExceptionGroup as group:
        only = single_cause(group)
        if only is None:
            raise
        raise only from None


@contextlib.asynccontextmanager
async def _connected(host: str, port: int, process: Process | None, timeout: float,
                     command_timeout: float) -> AsyncIterator[VM]:
    async with open_connection(host, port, timeout=timeout, command_timeout=command_timeout) as conn:
        async with trio.open_nursery() as nursery:
            vm = VM(conn, nursery, process=process)
            nursery.start_soon(vm.router.pump)
            try:
                await vm.router.hold_death()
                await vm.router.push_stops()
                yield vm
            finally:
                if vm.dead.is_set():
                    # the VM is gone: the handlers of its last hits (whose data came before its
                    # death) finish rather than being cancelled; a live VM's are cancelled as before
                    with trio.CancelScope(shield=True), trio.move_on_after(5):
                        await vm.router.handlers_settled()
                with trio.CancelScope(shield=True), trio.move_on_after(15):
                    await vm.dispose()
                nursery.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def launch(argv: Sequence[str], *, suspend: bool = True, jdwp: str = "127.0.0.1:0",
                 keep_running: bool = False, profile: str | None = None, timeout: float = 60.0,
                 command_timeout: float = DEFAULT_COMMAND_TIMEOUT,
                 jdwpd_args: Sequence[str] = ()) -> AsyncIterator[VM]:
    """Start ``argv`` (``["java", ...]``) under jdwpd and debug it.

    ``suspend``: the VM waits at its start until ``await vm.resume()`` (set breakpoints first).
    ``jdwp``: where other debuggers may attach meanwhile (``vm.process.address``; port 0 picks
    one).  ``keep_running``: leave the JVM running after the block (else it is ended).
    The JVM's output is in ``vm.process.output()``.
    """
    command = [*jdwpd_argv(), "launch", "--jdwp", jdwp,
               "--suspend" if suspend else "--no-suspend", *jdwpd_args]
    if profile:
        command += ["--profile", profile]
    command += ["--", *argv]
    proc = await _start(command, "jdwpd launch", timeout)
    try:
        host, port = _split(proc.address)
        async with _session(host, port, proc, timeout, command_timeout) as vm:
            if suspend:
                # The start event says the VM is held; wait for it so that resume() is meaningful.
                with trio.move_on_after(timeout):
                    await vm.started.wait()
            yield vm
    finally:
        await _end(proc, keep_running)


@contextlib.asynccontextmanager
async def attach(address: str, *, timeout: float = 30.0,
                 command_timeout: float = DEFAULT_COMMAND_TIMEOUT) -> AsyncIterator[VM]:
    """Debug the VM behind any JDWP server at ``address`` (``"HOST:PORT"``): jdwpd, the reference
    agent (``-agentlib:jdwp=transport=dt_socket,server=y``), a JVM on another host."""
    host, port = _split(address)
    async with _session(host, port, None, timeout, command_timeout) as vm:
        # A server sends VMStart to the debugger that attaches at the start (saying whether the
        # VM is held there); a VM attached later sends none, so wait only a moment for it.
        with trio.move_on_after(1.0):
            await vm.started.wait()
        yield vm


@contextlib.asynccontextmanager
async def attach_pid(pid: int, *, jdwp: str = "127.0.0.1:0", timeout: float = 60.0,
                     command_timeout: float = DEFAULT_COMMAND_TIMEOUT) -> AsyncIterator[VM]:
    """Debug a running JVM by its PID, through ``jdwpd attach`` (HotSpot dynamic attach): the
    agent gets only the capabilities HotSpot grants after start-up (no breakpoints or steps;
    threads, stacks, values and heap work).  The ``jdwpd attach`` daemon ends with the block and
    the JVM runs on."""
    proc = await _start([*jdwpd_argv(), "attach", "--jdwp", jdwp, str(pid)], "jdwpd attach",
                        timeout)
    try:
        host, port = _split(proc.address)
        async with _session(host, port, proc, timeout, command_timeout) as vm:
            yield vm
    finally:
        await _end(proc, False)
