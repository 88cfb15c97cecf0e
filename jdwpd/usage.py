"""User errors: what every command-line front end raises for one clear line and status 2.

A leaf module, so that the CLI, the launchers and `jdwpd ci` share it without importing each other.
"""

from __future__ import annotations


class UsageError(Exception):
    """A user error: printed as one line, exit status 2."""


def parse_address(text: str, *, what: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        raise UsageError(f"{what}: '{text}' is not HOST:PORT") from None
    if not 0 <= number <= 65535:
        raise UsageError(f"{what}: port {number} out of range")
    return host, number
