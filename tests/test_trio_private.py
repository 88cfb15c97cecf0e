"""trio's private internals that jdwpd uses (jdwpd/daemon/trio_private.py) are still where they were: on a
trio release that moved them, this fails and names what moved, before anything subtler does."""

from __future__ import annotations

import importlib.metadata
import inspect

import trio


def test_the_traps_inline_yields_are_trios():
    from trio._core import _traps

    from jdwpd.daemon import trio_private

    assert trio_private.CancelShieldedCheckpoint is _traps.CancelShieldedCheckpoint
    assert trio_private.WaitTaskRescheduled is _traps.WaitTaskRescheduled
    # inline.py sends back what trio's runner sends: an outcome for WaitTaskRescheduled
    assert "abort_func" in inspect.signature(_traps.WaitTaskRescheduled).parameters


def test_the_event_loops_epoll_descriptor_is_found():
    from jdwpd.daemon import trio_private

    async def main() -> int | None:
        return trio_private.event_loop_fd()

    fd = trio.run(main)
    assert isinstance(fd, int) and fd >= 0, f"trio {trio.__version__}: no epoll fd (spin.py would not spin)"


def test_trio_is_inside_the_pinned_range():
    requires = importlib.metadata.requires("jdwpd") or []
    pin = next(r for r in requires if r.startswith("trio"))
    assert "<" in pin, pin
    major, minor = (int(x) for x in trio.__version__.split(".")[:2])
    upper = pin.split("<")[1].split(",")[0].strip()
    assert (major, minor) < tuple(int(x) for x in upper.split(".")[:2]), (trio.__version__, pin)
