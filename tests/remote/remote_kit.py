"""The remote link's test kit: the far and near sides as real processes, and a TCP relay between them
that records every byte and can delay each direction or cut the link.

Every process runs in its own process group and is killed by group when its context ends
(jdwpd/testing/jvm.py's helpers); the relay is a trio task of the test's own.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from bench.netrelay import Relay, open_relay  # noqa: F401 - the tests' relay is the bench's
from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import debuggees, jvm

REPO = Path(__file__).resolve().parents[2]
TARGET_SRC = REPO / "bench" / "remote_java" / "target"
CLIENT_SRC = REPO / "bench" / "remote_java" / "client"
FAR_READY = re.compile(r"jdwpd: waiting for the near side at ([0-9.]+):(\d+)")
NEAR_READY = re.compile(r"jdwpd: listening for debuggers at ([0-9.]+):(\d+)")
# RemoteTarget's string local: built at run time, so its text is in no class file that could cross
SECRET_TEXT = b"secret-plain-text"


def target_classes() -> Path:
    return debuggees.compile_sources(TARGET_SRC)


def client_classes() -> Path:
    return debuggees.compile_sources(CLIENT_SRC)


def far_command(secret_file: os.PathLike | str, *, port: int = 0, suspend: bool = True,
                args: tuple[str, ...] = ()) -> list[str]:
    cmd = [*jdwpd_argv(), "launch", "--remote", f"127.0.0.1:{port}", "--secret-file", str(secret_file)]
    if suspend:
        cmd.append("--suspend")
    return [*cmd, "--", jvm.java_executable(), "-cp", str(target_classes()), "RemoteTarget", *args]


def near_command(far: str, secret_file: os.PathLike | str, *, retry: float = 0.2) -> list[str]:
    return [*jdwpd_argv(), "connect", far, "--secret-file", str(secret_file), "--jdwp", "127.0.0.1:0",
            "--retry", str(retry)]


def open_far(secret_file, **kw):
    """``async with open_far(path) as far:`` -> Debuggee; far.port is the far side's TLS port."""
    return jvm.open_command("jdwpd", far_command(secret_file, **kw), timeout=60, ready=FAR_READY)


def open_near(far: str, secret_file, **kw):
    """``async with open_near("127.0.0.1:PORT", path) as near:`` -> near.port is its JDWP port."""
    return jvm.open_command("jdwpd", near_command(far, secret_file, **kw), timeout=60, ready=NEAR_READY)


def write_secret(path: Path) -> Path:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(os.urandom(32).hex() + "\n")
    return path
