"""Generate the codecs a debugger will need while the daemon has nothing else to do.

The JDWP codecs (protocol/messages.py) and the link's reply decoders (protocol/link_fast.py) are
generated at their first use: 0.3-1 ms each, most of it making the attrs message classes.  The
recorded jdb session (bench/ide.py) uses some 40, each first in a command the debugger waits on,
where the reference, in C, pays nothing.  So once a VM is served, the daemon generates them all
(~150 ms of CPU, once per process), one per step, each step only after the daemon has been idle
for CUSHION seconds (every task blocked): a command that arrives meanwhile waits for one step at
most, and a busy daemon does not warm up at all.

Measured (docs/performance.md, "Codecs warmed while idle"): a debugger that starts 1 s after the
JVM, at human pace, waits 41-57 ms in all for the session's commands instead of 114-116 ms; the
`ide` replay, which begins the moment the JVM listens, leaves no idle time and gains nothing.
`JDWPD_WARM_UP=0` turns it off.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from functools import partial

import trio

from protocol import link as L
from protocol import messages, spec
from protocol.wire import IDSizes

log = logging.getLogger(__name__)

CUSHION = 0.002
ENABLED = os.environ.get("JDWPD_WARM_UP", "1") != "0"
# The command sets a debugger uses first on attach and at a stop; the others follow.
SET_ORDER = (1, 15, 11, 16, 2, 6, 9, 3, 12, 10, 13, 14, 17, 4, 5, 8, 18, 64)

_remaining: list[Callable[[], None]] | None = None  # made at the first call, taken from the end
_running = False


def _steps(sizes: IDSizes) -> Iterator[Callable[[], None]]:
    yield partial(messages.prepare, messages.COMPOSITE, "out", encode=True, sizes=sizes)
    rank = {s: i for i, s in enumerate(SET_ORDER)}
    for cs in sorted(spec.COMMANDS.values(), key=lambda c: (rank.get(c.set_id, len(rank)), c.cmd_id)):
        if cs is messages.COMPOSITE:
            continue
        yield partial(messages.prepare, cs, "out", encode=False, sizes=sizes)  # the command, decoded
        yield partial(messages.prepare, cs, "reply", encode=True, sizes=sizes)  # its reply, encoded
    for kind in sorted(L.MESSAGES):
        yield partial(L.prepare_reply_decoder, kind)


async def _idle(cushion: float) -> None:
    # trio exports this only from trio.testing, whose import costs ~80 ms; the function itself
    # lives in trio's core.
    wait = getattr(trio._core, "wait_all_tasks_blocked", None)
    if wait is None:
        await trio.sleep(cushion)
    else:
        await wait(cushion)


def remaining() -> int | None:
    """How many steps are left (None before the first debugger)."""
    return None if _remaining is None else len(_remaining)


async def warm_up(sizes: IDSizes, cushion: float = CUSHION) -> None:
    """Generate the remaining codecs, one per idle moment; a second caller returns at once.

    Cancelled (its session ended), it leaves the rest for the next session's call."""
    global _remaining, _running
    if _running or not ENABLED:
        return
    _running = True
    try:
        if _remaining is None:
            _remaining = list(_steps(sizes))
            _remaining.reverse()
        while _remaining:
            await _idle(cushion)
            step = _remaining.pop()
            try:
                step()
            except Exception:  # a codec that cannot be made now fails again, loudly, at its first use
                log.exception("warming up %r failed", step)
    finally:
        _running = False
