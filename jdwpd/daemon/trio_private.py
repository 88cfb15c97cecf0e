"""The only place jdwpd touches trio's private internals, and why each is worth it.

- ``CancelShieldedCheckpoint`` and ``WaitTaskRescheduled``: the traps a trio coroutine yields to
  its task runner.  ``fast/inline.py`` runs a command handler synchronously in the reader's task until
  it reaches one of them, so that a query answered from the caches costs no task (docs/performance_log.md:
  the inline answers).
- The run's epoll object: ``fast/spin.py`` polls it without sleeping before trio sleeps in it, saving a
  wake-up per round trip while a debugger is talking.  Without it jdwpd does not spin.

trio does not promise these.  ``pyproject.toml`` pins trio below the first release not tested, and
``tests/test_trio_private.py`` fails loudly, naming what moved, on a trio that changed them.
"""

from __future__ import annotations

from trio._core._traps import CancelShieldedCheckpoint, WaitTaskRescheduled

__all__ = ["CancelShieldedCheckpoint", "WaitTaskRescheduled", "event_loop_fd"]


def event_loop_fd() -> int | None:
    """The file descriptor of the running trio loop's epoll object, or None if it cannot be had."""
    try:
        from trio._core._run import GLOBAL_RUN_CONTEXT

        return GLOBAL_RUN_CONTEXT.runner.io_manager._epoll.fileno()
    except Exception:
        return None
