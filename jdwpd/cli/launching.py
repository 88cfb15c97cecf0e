"""`jdwpd launch`, `serve`, `attach` and `java`'s exec: start or adopt JVMs and serve their debuggers.

(Named launching, not launch: ``jdwpd.launch`` is the scripting API's entry point, and a
submodule of that name would shadow it once imported.)

The JVM is started before trio and the daemon are imported: those imports cost
about as much as a small JVM's start-up, and both can happen at once.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import socket
import subprocess
import sys
from typing import TYPE_CHECKING, Any

from jdwpd.daemon.endpoints import bind_jdwp, bind_link, bind_link_address, dial_debugger
from jdwpd.daemon.link.workdirs import make_workdir
from jdwpd.usage import UsageError

if TYPE_CHECKING:
    from .java_shim import JdwpOptions


def agent_link(workdir: str, **agent_options: Any) -> tuple[bytes, socket.socket, str]:
    """In a fresh 0700 directory: the per-VM secret, the link socket the agent will connect to, and the
    agent's option string naming both (agent_options: the launcher's agent_option_string keywords)."""
    from jdwpd.daemon.link import launcher

    secret, secret_path = launcher.new_secret_file(workdir)
    link_sock, link_path = bind_link(workdir)
    return secret, link_sock, launcher.agent_option_string(f"unix:{link_path}", secret_path, **agent_options)




def run_launch(java: list[str], *, host: str | None, port: int, suspend: bool, profile: str,
               allow: list[str], read_only: bool, agent_timeout: float, include_virtual_threads: bool = False,
               onthrow: str | None = None, onuncaught: bool = False, launch_command: str | None = None,
               connect: tuple[str, int] | None = None) -> int:
    """onthrow/onuncaught (the reference's options): the agent sleeps until that exception; only then does
    the JVM get a daemon and debuggers a listening port (before, they are refused, as by the reference).
    host None: no listening port.  connect: dial the debugger listening there before the JVM starts; it
    gets the start event (with suspend=False the VM runs from it on, as the reference's server=n)."""
    from jdwpd.daemon.link import launcher

    launcher.check_java_command(java)
    lazy = bool(onthrow or onuncaught)
    jdwp_sock = bind_jdwp(host, port, listen=not lazy) if host is not None else None
    dialed = None
    workdir = make_workdir()
    proc = None
    jvm = None
    try:
        if connect is not None:
            dialed = dial_debugger(*connect)
        # A dialed debugger gets the start event whatever suspend says: the agent holds the start for it.
        secret, link_sock, options = agent_link(workdir, suspend=suspend or dialed is not None, profile=profile,
                                                include_virtual_threads=include_virtual_threads, onthrow=onthrow,
                                                onuncaught=onuncaught)
        argv = launcher.java_command_with_agent(java, options)
        proc = subprocess.Popen(argv)
        from jdwpd.daemon.run import Debuggers, JvmProcess, serve_launched

        jvm = JvmProcess.of(proc)
        debuggers = Debuggers(jdwp_sock, dialed, start_runs=dialed is not None and not suspend)
        return serve_launched(jvm, debuggers=debuggers, link_sock=link_sock, secret=secret,
                              allow=allow, read_only=read_only, agent_timeout=agent_timeout, lazy=lazy,
                              launch_command=launch_command)
    finally:
        if proc is not None:
            from jdwpd.daemon.run import abandon_jvm

            abandon_jvm(proc, jvm)
        for sock in (jdwp_sock, dialed):
            if sock is not None:
                sock.close()
        shutil.rmtree(workdir, ignore_errors=True)






def run_serve(*, link: str, secret_file: str, host: str, port: int, allow: list[str], read_only: bool) -> int:
    """Serve every JVM that dials ``link`` with the secret, all at once: the first on ``port`` (port 0:
    one the system picks at start), each next one on the next free port above it."""
    from jdwpd.daemon.link import launcher

    secret = launcher.load_or_create_secret(secret_file)
    # A busy port is the user's to know now, not at the first JVM; port 0 becomes one port, the first
    # VM's at any time (VMs served one after another keep one address, as before many at once).
    probe = bind_jdwp(host, port)
    port = probe.getsockname()[1]
    probe.close()
    link_sock = bind_link_address(link)
    options = launcher.agent_option_string(link, os.path.abspath(secret_file))
    # A long-lived daemon imports all it serves with before it invites JVMs: the first one adopted
    # then pays no import (a short program would otherwise wait at its exit for the daemon to catch up).
    import trio

    from jdwpd.daemon.fast import spin
    from jdwpd.daemon.fleet import Fleet, serve_fleet, state_dir

    fleet = Fleet(link, state_dir() / f"serve-{os.getpid()}.json")
    fleet.write()

    async def serve() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(functools.partial(serve_fleet, link_sock, secret, host=host, first_port=port,
                                                  allow=allow, read_only=read_only, fleet=fleet))
            print(f"jdwpd: start JVMs with -agentpath:{launcher.agent_path()}={options}", file=sys.stderr,
                  flush=True)

    try:
        trio.run(serve, instruments=spin.instruments())
        return 0
    finally:
        fleet.close()
        if link.startswith("unix:"):
            with contextlib.suppress(OSError):
                os.unlink(link[5:])


def run_attach(pid: int, *, host: str, port: int, allow: list[str], read_only: bool) -> int:
    from jdwpd.daemon.link import launcher
    from jdwpd.daemon.link.attach import AttachError, load_agent

    jdwp_sock = bind_jdwp(host, port)
    workdir = make_workdir()
    try:
        secret, link_sock, options = agent_link(workdir)
        try:
            load_agent(pid, str(launcher.agent_path()), options)
        except AttachError as e:
            raise UsageError(str(e)) from None
        from jdwpd.daemon.run import serve_adopted

        return serve_adopted(link_sock=link_sock, jdwp_sock=jdwp_sock, secret=secret, allow=allow,
                             read_only=read_only, once=True)
    finally:
        jdwp_sock.close()
        shutil.rmtree(workdir, ignore_errors=True)


def exec_launch(java: str, args: list[str], options: JdwpOptions) -> int:
    """`jdwpd java` with the reference's option: this process becomes the JVM (its pid, status, signals
    and streams are the caller's `java`); the daemon runs in a grandchild that ends with the JVM."""
    from jdwpd.daemon.link import launcher

    lazy = bool(options.onthrow or options.onuncaught)
    jdwp_sock = dialed = None
    if options.server:
        jdwp_sock = bind_jdwp(options.host or "127.0.0.1", options.port or 0, listen=not lazy)
    else:
        assert options.port is not None
        timeout = options.timeout_ms / 1000 if options.timeout_ms else None
        dialed = dial_debugger(options.host or "127.0.0.1", options.port, timeout)
    allow = list(options.allow)
    if allow:
        from jdwpd.daemon.run import parse_allow

        try:
            allow = parse_allow(allow)
        except ValueError as e:
            raise UsageError(str(e)) from None
    workdir = make_workdir()
    secret, link_sock, agent_options = agent_link(
        workdir, suspend=options.suspend or dialed is not None, include_virtual_threads=options.include_virtual_threads,
        onthrow=options.onthrow, onuncaught=options.onuncaught)
    argv = launcher.java_command_with_agent([java, *args], agent_options)
    # The reference says where it listens at VMInit, before the program runs: the port is bound and
    # listening already, so this is the same moment as far as any reader can tell.  With launch= it
    # says nothing but runs that command with the port, at VMInit or at the exception of onthrow=/
    # onuncaught= (the daemon does, once the agent is there).
    if jdwp_sock is not None and not options.quiet and not options.launch:
        print(f"Listening for transport dt_socket at address: {jdwp_sock.getsockname()[1]}", flush=True)
    jvm_pid = os.getpid()
    pidfd = os.pidfd_open(jvm_pid)  # survives the exec: it names the JVM from then on
    child = os.fork()
    if child == 0:
        try:
            if os.fork() == 0:  # a grandchild: the JVM will not be its parent, nobody leaves a zombie
                _serve_exec_jvm(jvm_pid, pidfd, jdwp_sock, dialed, link_sock, secret, workdir, options, allow)
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    for sock in (jdwp_sock, dialed, link_sock):
        if sock is not None:
            sock.close()
    os.close(pidfd)
    os.execv(java, argv)


def _serve_exec_jvm(jvm_pid: int, pidfd: int, jdwp_sock: socket.socket | None, dialed: socket.socket | None,
                    link_sock: socket.socket, secret: bytes, workdir: str, options: JdwpOptions,
                    allow: list[str]) -> None:
    import signal

    # Standard input is the JVM's alone; standard output too, but for what launch= prints (the
    # reference's launch= command writes where the JVM does).
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    relisten_fd = None
    if jdwp_sock is not None and not options.quiet and not options.launch:
        relisten_fd = os.dup(1)
    if not options.launch:
        os.dup2(devnull, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the JVM's; the daemon ends with it
    from jdwpd.daemon.run import Debuggers, JvmProcess, serve_launched

    try:
        debuggers = Debuggers(jdwp_sock, dialed, start_runs=dialed is not None and not options.suspend,
                              announce="reference", announce_fd=relisten_fd)
        serve_launched(JvmProcess(jvm_pid, pidfd), debuggers=debuggers, link_sock=link_sock, secret=secret,
                       allow=allow, read_only=False, agent_timeout=30.0,
                       lazy=bool(options.onthrow or options.onuncaught), launch_command=options.launch)
    except BaseException as e:  # noqa: BLE001 - a daemon without a terminal: say it, then go
        print(f"jdwpd: the daemon failed: {e!r}", file=sys.stderr)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
