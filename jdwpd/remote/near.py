"""The near side: `jdwpd connect ADDR:PORT --secret-file FILE --jdwp 127.0.0.1:5005`.

The whole daemon runs here, beside the debugger (sessions, façade, model, caches); its agent link is
a socket pair whose other end `NearRelay` (jdwpd/remote/relay.py) relays over TLS 1.3 to the far
side.  Debuggers attach to --jdwp as to `jdwpd launch`.  When the link goes (the far side's network,
a killed far side), the VM's sessions end as when a JVM goes away: every debugger's connection is
closed, none hangs; the far side's agent resumes everything meanwhile.  The near side dials again
every RETRY seconds, says when it is back, and serves debuggers again on the same port.  When the
JVM ends, `connect` ends (status 0).  A secret the far side does not take: one line, status 2.
"""

from __future__ import annotations

import os
import socket
import ssl

import attrs
import trio

from jdwpd.daemon.fast import spin
from jdwpd.daemon.link.agent_link import HandshakeError, accept_agent
from jdwpd.daemon.run import load_command_table, say, serve_vm
from jdwpd.errors import AgentLinkClosed
from jdwpd.usage import UsageError
from protocol.link import LinkError, parse_secret

from . import tls
from .far import keepalive
from .relay import NearRelay, NearStats

RETRY = 1.0
DIAL_TIMEOUT = 15.0
AGENT_WAIT = 120.0  # the far side's JVM may still be starting when we are let in


class WrongSecret(Exception):
    pass


def read_secret(path: str) -> bytes:
    """The near side never makes a secret: it must be the far side's, copied."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UsageError(f"no secret file {path}: copy the far side's (jdwpd launch --remote makes it)") from None
    if st.st_mode & 0o077:
        raise UsageError(f"{path} is readable by others (mode {st.st_mode & 0o777:o}): chmod 600 it")
    try:
        with open(path) as f:
            return parse_secret(f.read())
    except LinkError as e:
        raise UsageError(f"{path}: {e}") from None


async def dial(far: tuple[str, int], ctx: ssl.SSLContext) -> trio.SSLStream:
    with trio.fail_after(DIAL_TIMEOUT):
        stream = await trio.open_tcp_stream(*far)
        keepalive(stream.socket)
        tls_stream = trio.SSLStream(stream, ctx, server_hostname=None)
        try:
            await tls_stream.do_handshake()
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise
    return tls_stream


@attrs.define
class NearSide:
    far: tuple[str, int]
    secret: bytes
    jdwp_sock: socket.socket
    allow: list[str] = attrs.Factory(list)
    read_only: bool = False
    use_bundles: bool = True
    retry: float = RETRY
    stats: NearStats = attrs.Factory(NearStats)
    connected: int = 0  # links made so far (tests wait on it)
    ready: trio.Event = attrs.Factory(trio.Event)  # set at each link made; replaced when it goes

    @property
    def where(self) -> str:
        return "{}:{}".format(*self.far)

    async def run(self) -> int:
        ctx = tls.context(self.secret, tls.NEAR)
        load_command_table()
        down_said = False
        while True:
            try:
                ended = await self._one_link(ctx)
            except WrongSecret as e:
                say(f"the far side at {self.where} refused the link: {e} (check --secret-file)")
                return 2
            except (OSError, trio.TooSlowError, trio.BrokenResourceError, HandshakeError) as e:
                if self.connected == 0 and not isinstance(e, HandshakeError):
                    say(f"cannot reach the far side at {self.where}: {_reason(e)}")
                    return 2
                if not down_said:
                    say(f"the link to {self.where} is down ({_reason(e)}): trying again every {self.retry:g} s")
                    down_said = True
                await trio.sleep(self.retry)
                continue
            down_said = False
            if ended == "vm":
                say("the JVM has ended")
                return 0
            say(f"lost the link to the far side at {self.where}: its JVM runs on; reconnecting")

    async def _one_link(self, ctx: ssl.SSLContext) -> str:
        try:
            tls_stream = await dial(self.far, ctx)
        except (OSError, trio.BrokenResourceError) as e:
            why = tls.describe_failure(e)
            if why and "TLS failed" not in why:
                raise WrongSecret(why) from None
            raise
        ours, theirs = socket.socketpair()
        daemon_end = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
        relay_end = trio.SocketStream(trio.socket.from_stdlib_socket(theirs))
        relay = NearRelay(relay_end, tls_stream, use_bundles=self.use_bundles, stats=self.stats)
        failure: list[BaseException] = []
        async with trio.open_nursery() as nursery:
            async def pump() -> None:
                try:
                    await relay.run()
                finally:
                    if relay.error is not None:
                        failure.append(relay.error)
                    with trio.CancelScope(shield=True):
                        await relay_end.aclose()  # the daemon's link sees the end
                        await trio.aclose_forcefully(tls_stream)

            nursery.start_soon(pump)
            try:
                link = await accept_agent(daemon_end, self.secret, timeout=AGENT_WAIT)
            except HandshakeError:
                nursery.cancel_scope.cancel()
                for err in failure:
                    why = tls.describe_failure(err)
                    if why and "TLS failed" not in why:
                        raise WrongSecret(why) from None
                raise
            link.reads_ahead = False  # the far side reads ahead, next to the agent (STOP_BUNDLE)
            pid = (link.hello or {}).get("pid")
            self.connected += 1
            word = "connected" if self.connected == 1 else "reconnected"
            host, port = self.jdwp_sock.getsockname()[:2]
            say(f"{word} to the far side at {self.where}: JVM pid {pid}; debuggers attach at {host}:{port}")
            self.ready.set()
            listener = trio.SocketListener(trio.socket.from_stdlib_socket(self.jdwp_sock.dup()))
            try:
                await serve_vm(link, listener, read_only=self.read_only, allow=self.allow)
            except AgentLinkClosed:
                pass
            self.ready = trio.Event()
            nursery.cancel_scope.cancel()
        return "vm" if relay.vm_died else "link"


def _reason(e: BaseException) -> str:
    if isinstance(e, trio.TooSlowError):
        return "no answer"
    cause = e.__cause__ or e.__context__
    if isinstance(e, trio.BrokenResourceError) and cause is not None:
        e = cause
    return getattr(e, "strerror", None) or str(e) or type(e).__name__


def run_connect(far: tuple[str, int], *, secret_file: str, jdwp: tuple[str, int], allow: list[str],
                read_only: bool, retry: float = RETRY) -> int:
    from jdwpd.daemon.endpoints import bind_jdwp

    secret = read_secret(secret_file)
    try:
        tls.context(secret, tls.NEAR)
    except tls.RemoteSetupError as e:
        raise UsageError(str(e)) from None
    jdwp_sock = bind_jdwp(*jdwp)
    try:
        near = NearSide(far, secret, jdwp_sock, allow=allow, read_only=read_only, retry=retry)
        return trio.run(near.run, instruments=spin.instruments())
    finally:
        jdwp_sock.close()

