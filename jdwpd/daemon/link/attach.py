"""HotSpot's dynamic attach, spoken directly (no jcmd, no JDK tool needed).

The mechanism, as HotSpot implements it on Linux: the attacher creates the file
``.attach_pid<PID>`` in the target's working directory (or /tmp) and sends it
SIGQUIT; the JVM's signal dispatcher sees the file and starts its attach
listener, which listens on the Unix socket ``/tmp/.java_pid<PID>`` (inside the
target's mount namespace).  A request is a protocol version and four
NUL-terminated strings: ``1 load <library> <is-absolute> <options>``.  The
reply is the operation's status line, then the agent's Agent_OnAttach result.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

PROTOCOL_VERSION = b"1"


class AttachError(Exception):
    """One line that says why the JVM could not be attached to."""


def _tmpdir(pid: int) -> Path:
    # the target may live in another mount namespace (a container): its /tmp is reachable via /proc
    root = Path(f"/proc/{pid}/root/tmp")
    try:
        return root if root.is_dir() else Path("/tmp")
    except OSError:  # not ours to look into: the listener, if any, is in our /tmp
        return Path("/tmp")


def _socket_path(pid: int) -> Path:
    return _tmpdir(pid) / f".java_pid{_ns_pid(pid)}"


def _ns_pid(pid: int) -> int:
    """The pid as the target sees itself (differs inside a PID namespace)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("NSpid:"):
                return int(line.split()[-1])
    except OSError:
        pass
    return pid


def _check_target(pid: int) -> None:
    try:
        st = os.stat(f"/proc/{pid}")
    except FileNotFoundError:
        raise AttachError(f"no process with pid {pid}") from None
    if st.st_uid != os.geteuid() and os.geteuid() != 0:
        raise AttachError(f"process {pid} belongs to another user (uid {st.st_uid}); attach as that user")
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        cmdline = []
    if b"-XX:+DisableAttachMechanism" in cmdline:
        raise AttachError(f"JVM {pid} was started with -XX:+DisableAttachMechanism: it refuses attach")
    _check_is_jvm(pid)


def _check_is_jvm(pid: int) -> None:
    """Refuse a process that is not a HotSpot JVM before signalling it: SIGQUIT, HotSpot's attach
    trigger, ends most other programs."""
    try:
        maps = Path(f"/proc/{pid}/maps").read_text(errors="replace")
    except PermissionError:
        raise AttachError(f"cannot inspect process {pid} (permission denied): run jdwpd attach as the JVM's "
                          "user") from None
    except OSError:
        return  # no /proc maps to read (ended meanwhile, or an unusual kernel): the attach itself will say
    if "/libjvm.so" not in maps:
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            name = "?"
        raise AttachError(f"process {pid} ({name}) is not a Java VM: give the pid of a java process "
                          "(`jps -l` or `pgrep -a java` lists them)")


def _start_attach_listener(pid: int, timeout: float) -> Path:
    sock_path = _socket_path(pid)
    if sock_path.exists():
        return sock_path
    trigger_paths = [Path(f"/proc/{pid}/cwd/.attach_pid{_ns_pid(pid)}"), _tmpdir(pid) / f".attach_pid{_ns_pid(pid)}"]
    trigger = None
    for candidate in trigger_paths:
        try:
            candidate.touch()
            trigger = candidate
            break
        except OSError:
            continue
    if trigger is None:
        raise AttachError(f"cannot create the attach trigger file for JVM {pid}")
    try:
        os.kill(pid, signal.SIGQUIT)
        deadline = time.monotonic() + timeout
        delay = 0.02
        while not sock_path.exists():
            if time.monotonic() > deadline:
                raise AttachError(f"JVM {pid} did not start its attach listener within {timeout:g} s "
                                  "(not a HotSpot JVM, started with -XX:+DisableAttachMechanism or -Xrs?)")
            time.sleep(delay)
            delay = min(delay * 2, 0.2)
    finally:
        try:
            trigger.unlink()
        except OSError:
            pass
    return sock_path


def load_agent(pid: int, library: str, options: str, *, timeout: float = 10.0) -> None:
    """Load a native agent into JVM ``pid`` (Agent_OnAttach(options)); raise AttachError on any refusal."""
    _check_target(pid)
    sock_path = _start_attach_listener(pid, timeout)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        try:
            s.connect(str(sock_path))
        except OSError as e:
            raise AttachError(f"cannot connect to JVM {pid}'s attach listener: {e.strerror}") from None
        request = b"\0".join([PROTOCOL_VERSION, b"load", library.encode(), b"true", options.encode()]) + b"\0"
        s.sendall(request)
        chunks = []
        try:
            while chunk := s.recv(4096):
                chunks.append(chunk)
        except TimeoutError:
            raise AttachError(f"JVM {pid} did not answer the attach request within {timeout:g} s") from None
    reply = b"".join(chunks).decode(errors="replace").strip().splitlines()
    if not reply:
        raise AttachError(f"JVM {pid} closed the attach connection without an answer")
    if reply[0].strip() != "0":
        raise AttachError(f"JVM {pid} refused the attach request: {' '.join(reply)}")
    # JDK 17 answers the agent's result as a bare number, later JDKs as "return code: N"
    detail = " ".join(reply[1:])
    digits = detail.rsplit(":", 1)[-1].strip()
    if digits and digits.lstrip("-").isdigit() and int(digits) != 0:
        raise AttachError(f"the agent refused to start in JVM {pid} (Agent_OnAttach returned {digits})")
    if "fail" in detail.lower() or "error" in detail.lower():
        raise AttachError(f"JVM {pid} could not load the agent: {detail}")
