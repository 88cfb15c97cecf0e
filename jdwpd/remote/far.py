"""The far side: beside the JVM, a TLS 1.3 port that only a near side holding the secret gets through.

`jdwpd launch --remote ADDR:PORT --secret-file FILE -- java ...` starts the JVM with the agent dialing
a Unix socket in a private folder; `jdwpd attach PID --remote ...` loads the agent into a running JVM;
`jdwpd serve --remote ... --link unix:PATH` waits for a JVM started on its own with the agent option.
The agent's connection waits, unaccepted, until a near side proves the secret; then the agent link is
relayed, whole frames both ways (jdwpd/remote/relay.py), the agent's own handshake end to end.  When
the near side goes (killed, the link cut), the agent's connection is closed: the agent does what it
does when any daemon leaves (every request cleared, every thread resumed) and dials again, to wait in
the socket's queue for the next near side.  A newer authenticated near side takes over from an older
one: the older may be a link that died without a word.

The port says nothing to a peer before it proves the secret: a peer whose first byte is not a TLS
handshake record gets no byte back, and a TLS peer without the secret gets no agent-link byte.
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import sys

import trio

from jdwpd.daemon.endpoints import bind_link, bound_tcp
from jdwpd.daemon.link.workdirs import make_workdir
from jdwpd.daemon.run import JvmProcess, abandon_jvm, say
from jdwpd.usage import UsageError

from . import tls
from .relay import FarRelay

PEER_GRACE = 10.0  # seconds a peer has to complete TLS before it is dropped
DEATH_DRAIN = 5.0  # seconds the last near side gets for the JVM's last events once the JVM has ended


def bind_far(host: str, port: int) -> socket.socket:
    try:
        sock = bound_tcp(host, port)
    except OSError as e:
        raise UsageError(f"cannot listen for the near side on {host}:{port}: {e.strerror or e}") from None
    sock.listen(16)
    return sock


def keepalive(sock: socket.socket | trio.socket.SocketType) -> None:
    """A link cut without a word (a laptop that sleeps, a dropped route) is found within ~30 s."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", 10), ("TCP_KEEPINTVL", 5), ("TCP_KEEPCNT", 4)):
        if hasattr(socket, name):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)


def load_secret(secret_file: str) -> bytes:
    """The far side's secret: created (0600) if the file is missing, and said so."""
    from jdwpd.daemon.link.launcher import load_or_create_secret

    existed = os.path.exists(secret_file)
    secret = load_or_create_secret(secret_file)
    if not existed:
        say(f"made a new secret in {secret_file}: copy it to the near side (jdwpd connect --secret-file)")
    return secret


class FarSide:
    """One far port and one agent link; near sides come and go."""

    def __init__(self, listen_sock: socket.socket, link_sock: socket.socket, secret: bytes, *,
                 prefetch: bool = True) -> None:
        self.listen_sock = listen_sock
        self.link_sock = link_sock
        self.ctx = tls.context(secret, tls.FAR)
        # JDWPD_REMOTE_BUNDLES=off: no stop bundles (A/B runs, and the round-trip test's baseline)
        self.prefetch = prefetch and os.environ.get("JDWPD_REMOTE_BUNDLES", "on") != "off"
        self._lock = trio.Lock()
        self._current: trio.CancelScope | None = None
        self.idle = trio.Event()  # no near side is being served
        self.idle.set()

    async def serve(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        listener = trio.SocketListener(trio.socket.from_stdlib_socket(self.listen_sock))
        self.link_listener = trio.SocketListener(trio.socket.from_stdlib_socket(self.link_sock))
        async with trio.open_nursery() as nursery:
            task_status.started()
            while True:
                stream = await listener.accept()
                nursery.start_soon(self._peer, stream)

    async def _peer(self, stream: trio.SocketStream) -> None:
        try:
            where = "{}:{}".format(*stream.socket.getpeername()[:2])
        except OSError:
            where = "?"
        try:
            with trio.fail_after(PEER_GRACE):
                first = await stream.socket.recv(1, socket.MSG_PEEK)
                if not first or first[0] != tls.TLS_HANDSHAKE_RECORD:
                    raise ConnectionError("not a TLS client")
                keepalive(stream.socket)
                near = trio.SSLStream(stream, self.ctx, server_side=True)
                await near.do_handshake()
        except (trio.TooSlowError, trio.BrokenResourceError, OSError) as e:
            why = tls.describe_failure(e) or ("said nothing" if isinstance(e, trio.TooSlowError) else str(e))
            say(f"refused a peer from {where}: {why}")
            await stream.aclose()  # closed raw: not even a TLS alert of ours from here on
            return
        await self._session(near, where)

    async def _session(self, near: trio.SSLStream, where: str) -> None:
        if self._current is not None:
            self._current.cancel()  # the newest authenticated near side wins
        async with self._lock:
            scope = self._current = trio.CancelScope()
            self.idle = trio.Event()
            relay = None
            try:
                with scope:
                    agent = await self.link_listener.accept()
                    say(f"the near side at {where} is connected")
                    relay = FarRelay(agent, near, prefetch=self.prefetch)
                    try:
                        await relay.run()
                    finally:
                        with trio.CancelScope(shield=True):
                            await agent.aclose()  # the agent resets and dials again
                if relay is not None and relay.ended_by_agent:
                    say("the agent's link ended")
                else:
                    say(f"the near side at {where} left: the JVM runs on as when a debugger leaves")
            finally:
                with trio.CancelScope(shield=True), trio.move_on_after(1):
                    try:
                        await near.aclose()  # close_notify: a clean end for the near side
                    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        pass
                if self._current is scope:
                    self._current = None
                self.idle.set()

    async def wait_drained(self) -> None:
        """Once the JVM has ended: the near side being served gets its last events, within DEATH_DRAIN."""
        with trio.move_on_after(DEATH_DRAIN):
            await self.idle.wait()


def announce(listen_sock: socket.socket, secret_file: str) -> None:
    host, port = listen_sock.getsockname()[:2]
    say(f"waiting for the near side at {host}:{port} (TLS 1.3, secret {secret_file}): "
        f"jdwpd connect {host}:{port} --secret-file FILE --jdwp 127.0.0.1:5005")


async def _serve_jvm(far: FarSide, jvm: JvmProcess | None, secret_file: str) -> int:
    async with trio.open_nursery() as nursery:
        await nursery.start(far.serve)
        announce(far.listen_sock, secret_file)
        if jvm is None:
            await trio.sleep_forever()
        await trio.lowlevel.wait_readable(jvm.pidfd)
        await far.wait_drained()
        nursery.cancel_scope.cancel()
    return jvm.exit_code() if jvm is not None else 0


def run_launch_remote(java: list[str], *, remote: tuple[str, int], secret_file: str, suspend: bool, profile: str,
                      include_virtual_threads: bool = False, prefetch: bool = True) -> int:
    from jdwpd.daemon.link import launcher
    from jdwpd.daemon.link.launcher import check_java_command

    check_java_command(java)
    secret = load_secret(secret_file)
    tls.context(secret, tls.FAR)  # no cryptography: say so before a JVM runs
    listen_sock = bind_far(*remote)
    workdir = make_workdir()
    proc = jvm = None
    try:
        link_sock, link_path = bind_link(workdir)
        options = launcher.agent_option_string(f"unix:{link_path}", os.path.abspath(secret_file), suspend=suspend,
                                               profile=profile, include_virtual_threads=include_virtual_threads)
        proc = subprocess.Popen(launcher.java_command_with_agent(java, options))
        jvm = JvmProcess.of(proc)
        far = FarSide(listen_sock, link_sock, secret, prefetch=prefetch)
        return trio.run(_serve_jvm, far, jvm, secret_file)
    finally:
        abandon_jvm(proc, jvm)
        listen_sock.close()
        shutil.rmtree(workdir, ignore_errors=True)


def run_attach_remote(pid: int, *, remote: tuple[str, int], secret_file: str) -> int:
    from jdwpd.daemon.link import launcher
    from jdwpd.daemon.link.attach import AttachError, load_agent

    secret = load_secret(secret_file)
    tls.context(secret, tls.FAR)
    listen_sock = bind_far(*remote)
    workdir = make_workdir()
    try:
        link_sock, link_path = bind_link(workdir)
        try:
            load_agent(pid, str(launcher.agent_path()),
                       launcher.agent_option_string(f"unix:{link_path}", os.path.abspath(secret_file)))
        except AttachError as e:
            raise UsageError(str(e)) from None
        jvm = JvmProcess(pid, os.pidfd_open(pid))
        try:
            return trio.run(_serve_jvm, FarSide(listen_sock, link_sock, secret), jvm, secret_file)
        finally:
            os.close(jvm.pidfd)
    finally:
        listen_sock.close()
        shutil.rmtree(workdir, ignore_errors=True)


def run_serve_remote(*, link: str, remote: tuple[str, int], secret_file: str) -> int:
    """A JVM started on its own with the agent option dials ``link`` (a Unix socket beside it)."""
    from jdwpd.daemon.endpoints import bind_link_address
    from jdwpd.daemon.link import launcher

    if not link.startswith("unix:"):
        raise UsageError("with --remote, --link must be a Unix socket (unix:PATH): only TLS leaves the machine")
    secret = load_secret(secret_file)
    tls.context(secret, tls.FAR)
    listen_sock = bind_far(*remote)
    link_sock = bind_link_address(link)
    options = launcher.agent_option_string(link, os.path.abspath(secret_file))
    print(f"jdwpd: start the JVM with -agentpath:{launcher.agent_path()}={options}", file=sys.stderr, flush=True)
    try:
        return trio.run(functools.partial(_serve_jvm, FarSide(listen_sock, link_sock, secret), None, secret_file))
    finally:
        listen_sock.close()
        try:
            os.unlink(link[5:])
        except OSError:
            pass
