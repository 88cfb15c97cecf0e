"""The agent link's facts a JVM's command line needs: the secret's size and the capability profiles.

Standard library only, apart from protocol/link.py (which re-exports both): `jdwpd launch` and
`jdwpd java` write the secret and the agent's options before they start the JVM, and the link's
codecs (attrs classes, ~60 ms of imports with attrs) can come after it, while the JVM starts.
"""

from __future__ import annotations

import enum

SECRET_SIZE = 32  # bytes; stored hex-encoded (64 chars) in the secret file


class Profile(enum.Enum):
    """Capability profiles: what the JVM pays for from start to exit (design.md)."""

    FULL = "full"  # the reference's set
    NOTHROW = "nothrow"  # no exception, method-exit or frame-pop events
    INSPECT = "inspect"  # only what costs nothing: stacks, heap, monitors, redefinition
