"""Drive `jdb -attach` one command at a time and keep a transcript.

jdb writes a prompt ("> " or "thread[frame] ") after each command's output, and
writes events (breakpoint hit, step completed) whenever they arrive, followed
by a new prompt.  A command is complete when the output since it was sent
matches what the caller expects (if anything), ends with a prompt, and stays
quiet for a moment (so that a late line is not attributed to the next command).
The moment can be short: jdb prints a command's output and then its prompt from
one thread, and while the VM is suspended no event can print in between.
Every wait has a timeout; jdb runs in its own process group and is killed by
PID when the driver closes.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import attrs

from .normalize import Normalizer

__all__ = ["Jdb", "JdbTimeout", "PROMPT", "open_jdb"]

# Thread names in our debuggees have no blanks; "> " is the prompt without a current thread.
PROMPT = re.compile(r"(?:^|[\s>])(?:> |[\w$.\-]+\[\d+\] )$")


def jdb_executable() -> str:
    """The jdb of the JDK under test (next to its java), else the one on PATH."""
    from .jvm import java_executable

    sibling = Path(java_executable()).resolve().parent / "jdb"
    return str(sibling) if sibling.is_file() else "jdb"


class JdbTimeout(AssertionError):
    pass


@attrs.define
class Step:
    command: str
    output: str


class Jdb:
    def __init__(self, host: str, port: int, *, jdb: str | None = None, timeout: float = 30.0, quiet: float = 0.1,
                 jdb_args: tuple[str, ...] = ()) -> None:
        self.timeout = timeout
        self.quiet = quiet
        self.transcript: list[Step] = []
        jdb = jdb or jdb_executable()
        self._buf: list[str] = []
        self._len = 0
        self._last_output = time.monotonic()
        self._cond = threading.Condition()
        # A fixed locale keeps jdb's messages identical across machines.
        self._proc = subprocess.Popen(
            [jdb, "-J-Duser.language=en", "-J-Duser.country=US", *jdb_args, "-attach", f"{host}:{port}"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        )
        threading.Thread(target=self._pump, daemon=True).start()

    # ---------------------------------------------------------------- output

    def _pump(self) -> None:
        out = cast(io.BufferedReader, self._proc.stdout)  # a pipe (typeshed says IO[bytes], which has no read1)
        assert out is not None
        while True:
            chunk = out.read1(65536)
            if not chunk:
                break
            text = chunk.decode("utf-8", "replace")
            with self._cond:
                self._buf.append(text)
                self._len += len(text)
                self._last_output = time.monotonic()
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    @property
    def output(self) -> str:
        with self._cond:
            return "".join(self._buf)

    def _mark(self) -> int:
        with self._cond:
            return self._len

    def _since(self, mark: int) -> str:
        return self.output[mark:]

    def wait_for(self, pattern: str | re.Pattern, mark: int = 0, timeout: float | None = None,
                 prompt: bool = True) -> str:
        """Wait until the output after ``mark`` matches ``pattern`` (and ends with a quiet prompt)."""
        pat = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + (timeout or self.timeout)
        with self._cond:
            while True:
                text = "".join(self._buf)[mark:]
                m = pat.search(text)
                if m and (not prompt or PROMPT.search(text[m.end():])):
                    quiet_for = time.monotonic() - self._last_output
                    if quiet_for >= self.quiet:
                        return text
                    self._cond.wait(self.quiet - quiet_for)
                    continue
                if self._proc.poll() is not None and not self._pump_alive_hint(text):
                    if m:
                        return text
                    raise JdbTimeout(f"jdb exited ({self._proc.returncode}) waiting for {pat.pattern!r}:\n{text}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise JdbTimeout(f"no {pat.pattern!r} (+prompt) within {timeout or self.timeout}s:\n{text}")
                self._cond.wait(min(left, 0.1))

    def _pump_alive_hint(self, text: str) -> bool:
        # After exit the pipe may still hold output: give the pump one quiet period.
        return time.monotonic() - self._last_output < self.quiet

    # ---------------------------------------------------------------- commands

    def start(self, expect: str = r"VM Started:|Initializing jdb") -> str:
        text = self.wait_for(expect)
        self.transcript.append(Step("<attach>", text))
        return text

    def command(self, command: str, expect: str | re.Pattern | None = None, timeout: float | None = None,
                prompt: bool = True, label: str | None = None) -> str:
        """Send one command; return its output (up to and including the prompt that ends it).

        ``label`` is what the transcript shows instead of the command, for commands that
        carry a server-specific ID (``thread 0x1a6`` -> ``thread <main>``).
        """
        mark = self._mark()
        self.send(command)
        text = self.wait_for(expect if expect is not None else r"", mark, timeout, prompt)
        self.transcript.append(Step(label or command, text))
        return text

    def send(self, command: str) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write(command.encode() + b"\n")
        self._proc.stdin.flush()

    def quit(self, timeout: float = 15.0) -> int | None:
        """`quit`, then wait for jdb to exit; killed if it does not."""
        mark = self._mark()
        with contextlib.suppress(BrokenPipeError, OSError):
            self.send("quit")
            if self._proc.stdin is not None:  # (a pipe: it is)
                self._proc.stdin.close()
        try:
            rc = self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            rc = None
        time.sleep(0.05)
        self.transcript.append(Step("quit", self._since(mark)))
        return rc

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=10)

    # ---------------------------------------------------------------- transcripts

    def normalized(self, normalizer: Normalizer | None = None) -> str:
        n = normalizer or Normalizer()
        parts = []
        for step in self.transcript:
            parts.append(f"$ {step.command}\n{n.text(step.output).replace(chr(13), '')}")
        return "\n".join(parts)


@contextlib.contextmanager
def open_jdb(host: str, port: int, **kw: Any) -> Iterator[Jdb]:
    jdb = Jdb(host, port, **kw)
    try:
        yield jdb
    finally:
        jdb.kill()
