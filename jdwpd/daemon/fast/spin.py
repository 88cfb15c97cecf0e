"""Looking for input without sleeping, for a short while, where an answer is due at once.

On a virtual machine a thread that sleeps is expensive to wake: the waker pays an IPI (a VM
exit) and the sleeper's vCPU, halted, must be scheduled again by the host.  Measured on the
2-vCPU machines of docs/performance_log.md: 20-30 us in the sender's send() alone, as much again
before the sleeper runs.  The reference agent answers a command with two such wake-ups (its
listener, the debugger); jdwpd's VM path has four (the daemon, the agent's reader, the daemon
again, the debugger), and its event path five.

Most of those wake the daemon for an answer that was due within microseconds: the agent's
reply to a request just sent (~15 us), a debugger's next command right after our reply, the
next event after a Resume.  So before the event loop sleeps, and before a fast lane blocks on
its socket, they poll without sleeping for up to ``SPIN_US`` -- only while a conversation is
under way (the last wait ended on input), so an idle daemon sleeps at once and costs nothing,
and only while recent input came within that time: a client that thinks between commands (a
script rendering a logpoint's line, ~0.3-1 ms) would see every spin miss, and the CPU spun
taken from it and from the JVM on a machine of two (issue 30: -0.4 ms of daemon CPU a hit).

The polling runs in C (the agent library's ``spin_until_readable``, agent/spin.c): ctypes
releases the GIL around it, so the other Python threads run meanwhile.  Where that library
cannot be loaded, or trio's event loop is not epoll, nobody spins.

The agent does not spin: on 2 vCPUs its spinning reader took the CPU the application and the
debugger needed (breakpoint hits 1.39 -> 2.20-2.41 x the reference's time; docs/performance_log.md).
"""

from __future__ import annotations

import ctypes
import logging
import time
from pathlib import Path

import trio

from .settings import FAST

log = logging.getLogger(__name__)

AGENT_LIBRARY = Path(__file__).parents[2] / "_agent" / "libjdwpd_agent.so"


def _load() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    try:
        fn = ctypes.CDLL(str(AGENT_LIBRARY)).spin_until_readable
    except (OSError, AttributeError) as e:
        log.debug("no spinning: %s", e)
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_longlong]
    fn.restype = ctypes.c_int
    return fn


_spin = _load() if FAST.spin_us else None


def available() -> bool:
    return _spin is not None


def until_readable(fd: int, max_ns: int) -> bool:
    """Poll fd without sleeping for at most max_ns (GIL released): True once it is readable."""
    if _spin is None or max_ns <= 0:
        return False
    return _spin(fd, max_ns) != 0


def _event_loop_fd() -> int | None:
    from ..trio_private import event_loop_fd  # trio has no public accessor for its epoll object

    return event_loop_fd()


# A spin is tried while at least this share of the recent waits (weighted by _WEIGHT, the newest
# most) ended on input within the spin's time.
WORTH_SPINNING = 0.5
_WEIGHT = 0.25


class SpinBeforeSleep(trio.abc.Instrument):
    """Before trio's event loop sleeps in epoll, poll its epoll descriptor (readable once any
    socket a task waits on is) without sleeping, while a conversation is under way."""

    def __init__(self, max_us: int = FAST.spin_us) -> None:
        self.max_ns = max_us * 1000
        self._max_s = max_us / 1e6
        self._fd: int | None = None
        self._gave_up = False
        self._talking = True
        self._began = 0.0
        # How often the input that ended a recent wait came within the spin (a moving average,
        # spun or not): a peer that answers later than that (a script's client thinking between
        # commands) only lets a spin burn the CPU it needs, on a machine of two.
        self._worth = 1.0
        self.caught = 0  # spins that found input: wake-ups saved

    def before_io_wait(self, timeout: float) -> None:
        self._began = time.perf_counter()
        if timeout <= 0 or not self._talking or self._gave_up or self._worth < WORTH_SPINNING:
            return
        if self._fd is None:
            self._fd = _event_loop_fd()
            if self._fd is None:
                self._gave_up = True
                return
        if until_readable(self._fd, min(self.max_ns, int(timeout * 1e9))):
            self.caught += 1

    def after_io_wait(self, timeout: float) -> None:
        if timeout > 0:  # a wait that ended before its time ended on input (or a thread's wake-up)
            waited = time.perf_counter() - self._began
            self._talking = waited < timeout
            if self._talking:
                self._worth = self._worth * (1 - _WEIGHT) + (_WEIGHT if waited <= self._max_s else 0.0)


def instruments() -> list[trio.abc.Instrument]:
    """What the daemon's trio.run gets: the spin, when it can spin."""
    return [SpinBeforeSleep()] if available() else []
