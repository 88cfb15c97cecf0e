"""Many VMs at once: one daemon adopts every JVM whose agent dials its link, each on a JDWP address
of its own, labelled so that a person (`jdwpd list`) or a program (the CI runner) can pick one.

A VM's labels come from the host, not from the VM: pid and parent pid, the command line, the
working directory and the main class or jar, read from /proc when the agent says hello.  Asking the
JVM instead would cost a round trip per label and run nothing a debugger cannot see anyway.

The registry is written, after every change, to a state file only this user can read
(``$XDG_RUNTIME_DIR/jdwpd`` or ``$TMPDIR/jdwpd.UID``): `jdwpd list` reads the files of the
daemons still running.  A file is replaced by rename, so a reader never sees half of one.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import attrs
import trio

from .link.agent_link import AgentLink
from .link.workdirs import process_start_time
from .run import accept_authenticated, load_command_table, say, serve_vm

#: How many ports above the first a VM may take before the system picks one.
PORT_SPAN = 100
STATE_VERSION = 1

# java's options that take the next argument as their value (so it is not the main class).
_VALUE_OPTIONS = frozenset({"-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path",
                            "--add-modules", "--limit-modules", "--add-reads", "--add-exports", "--add-opens",
                            "--patch-module", "--enable-native-access", "-javaagent"})


def main_of(argv: list[str]) -> str:
    """The main class, ``-jar`` file or ``-m`` module of a java command line ("?" if none)."""
    args = iter(argv[1:])
    for arg in args:
        if arg in ("-jar", "-m", "--module"):
            return next(args, "?")
        if arg.startswith("--module="):
            return arg.split("=", 1)[1]
        if arg in _VALUE_OPTIONS:
            next(args, None)
        elif not arg.startswith("-"):
            return arg
    return "?"


@attrs.frozen
class VmLabels:
    """What identifies a VM to a person choosing one."""

    pid: int
    ppid: int | None
    main: str
    argv: tuple[str, ...]
    cwd: str | None

    @classmethod
    def of_pid(cls, pid: int) -> VmLabels:
        proc = Path(f"/proc/{pid}")
        try:
            argv = tuple(a.decode(errors="replace") for a in (proc / "cmdline").read_bytes().split(b"\0") if a)
        except OSError:
            argv = ()
        try:
            stat = (proc / "stat").read_text()
            ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            ppid = None
        try:
            cwd = os.readlink(proc / "cwd")
        except OSError:
            cwd = None
        return cls(pid, ppid, main_of(list(argv)) if argv else "?", argv, cwd)


@attrs.define(eq=False)
class VmEntry:
    number: int
    labels: VmLabels
    jdwp: tuple[str, int] | None
    since: float = attrs.field(factory=time.time)

    def as_json(self) -> dict:
        return {"vm": self.number, "pid": self.labels.pid, "ppid": self.labels.ppid, "main": self.labels.main,
                "argv": list(self.labels.argv), "cwd": self.labels.cwd,
                "jdwp": f"{self.jdwp[0]}:{self.jdwp[1]}" if self.jdwp else None, "since": self.since}


def state_dir() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) / "jdwpd" if runtime else Path(tempfile.gettempdir()) / f"jdwpd.{os.geteuid()}"
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    return base


@attrs.define(eq=False)
class Fleet:
    """The VMs a daemon serves now; ``state_file`` None keeps it in memory only."""

    link: str
    state_file: Path | None = None
    vms: dict[int, VmEntry] = attrs.field(factory=dict)
    _numbers: int = 0

    def add(self, labels: VmLabels, jdwp: tuple[str, int] | None) -> VmEntry:
        self._numbers += 1
        entry = VmEntry(self._numbers, labels, jdwp)
        self.vms[entry.number] = entry
        self.write()
        return entry

    def remove(self, entry: VmEntry) -> None:
        self.vms.pop(entry.number, None)
        self.write()

    def ports_in_use(self) -> set[int]:
        return {e.jdwp[1] for e in self.vms.values() if e.jdwp}

    def write(self) -> None:
        if self.state_file is None:
            return
        me = os.getpid()
        data = {"version": STATE_VERSION, "daemon": {"pid": me, "started": process_start_time(me), "link": self.link},
                "vms": [e.as_json() for e in sorted(self.vms.values(), key=lambda e: e.number)]}
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n")
        os.replace(tmp, self.state_file)

    def close(self) -> None:
        if self.state_file is not None:
            try:
                self.state_file.unlink()
            except FileNotFoundError:
                pass


def read_states() -> list[dict]:
    """The state of every `jdwpd serve` of this user that still runs (files of dead ones are removed)."""
    states = []
    for path in sorted(state_dir().glob("serve-*.json")):
        try:
            data = json.loads(path.read_text())
            pid, started = data["daemon"]["pid"], data["daemon"]["started"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if process_start_time(pid) != started:
            path.unlink(missing_ok=True)  # its daemon is gone
            continue
        states.append(data)
    return states


def bind_vm_port(host: str, first: int, taken: set[int]) -> socket.socket:
    """A listening socket for one more VM: ``first`` if free, else the next free port above it (within
    PORT_SPAN), else one the system picks; ``first`` 0 always lets the system pick."""
    from .endpoints import bind_jdwp

    candidates = [p for p in range(first, min(first + PORT_SPAN, 65536)) if p not in taken] if first else []
    for port in candidates:
        try:
            return bind_jdwp(host, port)
        except Exception:  # busy: the next one
            continue
    return bind_jdwp(host, 0)


VmCallback = Callable[[VmEntry, trio.Event], Awaitable[None]]


async def serve_fleet(link_sock: socket.socket, secret: bytes, *, host: str, first_port: int, allow: list[str],
                      read_only: bool, fleet: Fleet, on_vm: VmCallback | None = None, quiet: bool = False,
                      task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Adopt every agent that proves the secret and serve each VM on its own port, concurrently, until
    cancelled.  ``on_vm(entry, gone)`` runs in its own task for each VM (``gone`` is set when it ends)."""
    link_listener = trio.SocketListener(trio.socket.from_stdlib_socket(link_sock))
    load_command_table()
    async with trio.open_nursery() as nursery:
        task_status.started()
        while True:
            link = await accept_authenticated(link_listener, secret)
            nursery.start_soon(_serve_one, link, host, first_port, allow, read_only, fleet, on_vm,
                               (lambda text: None) if quiet else say)


async def _serve_one(link: AgentLink, host: str, first_port: int, allow: list[str], read_only: bool, fleet: Fleet,
                     on_vm: VmCallback | None, say: Callable[[str], None]) -> None:
    pid = int((getattr(link, "hello", None) or {}).get("pid", 0))
    sock = bind_vm_port(host, first_port, fleet.ports_in_use())
    address = sock.getsockname()[:2]
    entry = fleet.add(VmLabels.of_pid(pid), address)
    say(f"adopted the JVM with pid {pid}")
    # the line every user and script of `launch` and `serve` already waits for, then the labels
    say(f"listening for debuggers at {address[0]}:{address[1]} (VM {entry.number}, pid {pid}, {entry.labels.main})")
    gone = trio.Event()
    try:
        async with trio.open_nursery() as nursery:
            if on_vm is not None:
                nursery.start_soon(on_vm, entry, gone)
            listener = trio.SocketListener(trio.socket.from_stdlib_socket(sock))
            await serve_vm(link, listener, read_only=read_only, allow=allow, announce="quiet")
            gone.set()
    finally:
        gone.set()
        fleet.remove(entry)
        say(f"VM {entry.number} (pid {pid}) is gone")


def format_table(states: list[dict]) -> str:
    rows = [("DAEMON", "VM", "PID", "PPID", "JDWP", "MAIN", "CWD")]
    for state in states:
        for vm in state["vms"]:
            rows.append((str(state["daemon"]["pid"]), str(vm["vm"]), str(vm["pid"]), str(vm.get("ppid") or "-"),
                         vm.get("jdwp") or "-", vm.get("main") or "?", vm.get("cwd") or "?"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1] for r in rows)


def run_list(as_json: bool) -> int:
    states = read_states()
    if as_json:
        print(json.dumps(states, indent=1))
    elif not any(s["vms"] for s in states):
        print("no VMs: no `jdwpd serve` of this user serves any" if states else "no `jdwpd serve` of this user "
              "is running")
    else:
        print(format_table(states))
    return 0
