"""The daemon's sockets: the debuggers' port (bound or dialed) and the agents' Unix socket.

Standard library only: `launch` binds them before any heavy import, so that a busy port fails
before a JVM runs; `serve`'s fleet and `jdwpd ci` bind theirs the same way.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys

from jdwpd.usage import UsageError, parse_address


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


class EndpointError(UsageError):
    """The debuggers' socket cannot be had; ``reason`` in the words of the reference's transport."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def _transport_reason(e: OSError, what: str) -> str:
    if isinstance(e, socket.gaierror):
        return "getaddrinfo: failed to parse address"
    return f"{what} failed: {e.strerror or e}"


def bound_tcp(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (closed again if the bind fails: the OSError is the caller's)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def bind_jdwp(host: str, port: int, *, listen: bool = True) -> socket.socket:
    """The debuggers' socket.  listen=False: the port is taken, connections are refused until listen()."""
    try:
        sock = bound_tcp(host, port)
    except OSError as e:
        raise EndpointError(f"cannot listen for debuggers on {host}:{port}: {e.strerror or e}",
                            _transport_reason(e, "bind")) from None
    if listen:
        sock.listen(16)
    if not is_loopback(host):
        print(f"jdwpd: warning: listening on {host}, beyond loopback; JDWP has no authentication: "
              "anyone who can reach this port can run code in the JVM", file=sys.stderr)
    return sock


def bind_link(directory: str, name: str = "link.sock") -> tuple[socket.socket, str]:
    path = os.path.join(directory, name)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # born owner-only: no moment in which others may connect
    try:
        sock.bind(path)
    except OSError as e:
        sock.close()
        raise UsageError(f"cannot listen for agents on unix:{path}: {e.strerror}") from None
    finally:
        os.umask(old)
    sock.listen(4)
    return sock, path


def dial_debugger(host: str, port: int, timeout: float | None = None) -> socket.socket:
    """The reference's server=n: connect to a debugger that listens.  The handshake comes later, in
    the daemon: the debugger speaks first whichever side connected.  A debugger that is not there
    fails the launch before any JVM runs, with the status the reference's JVM exits with (2)."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout if timeout else None)
    except OSError as e:
        raise EndpointError(f"cannot connect to the debugger at {host}:{port}: {e.strerror or e}",
                            _transport_reason(e, "connect")) from None
    sock.settimeout(None)
    return sock


def bind_link_address(address: str) -> socket.socket:
    """The socket agents dial: ``unix:PATH`` (a stale socket there is removed) or a loopback HOST:PORT."""
    if address.startswith("unix:"):
        path = address[5:]
        if os.path.exists(path):
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(path)
            except OSError:
                os.unlink(path)  # a stale socket of a daemon that died: ours to reuse
            else:
                raise UsageError(f"another daemon is listening on {path}")
            finally:
                probe.close()
        sock, _ = bind_link(os.path.dirname(path) or ".", os.path.basename(path))
        return sock
    host, port = parse_address(address, what="--link")
    if not is_loopback(host):
        raise UsageError("--link must be a Unix socket or a loopback address")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        raise UsageError(f"cannot listen for agents on {address}: {e.strerror}") from None
    sock.listen(16)
    return sock
