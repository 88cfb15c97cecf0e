"""Replies a debugger may be given again byte for byte, without the daemon's event loop.

The fast lane (jdwpd/daemon/fast/lane.py) answers a command from here when the same command
body was answered before and what it asked cannot have changed since:

- facts of a loaded class or method (a signature, a line table, the methods) hold until a
  class is redefined or unloaded, when every one is dropped (rare; the class cache then
  refetches what is asked again);
- a thread's frame count holds while the thread stays suspended by a debugger, and its name
  while the whole VM is (no Java code runs to rename it: the condition under which JDI's
  own caches keep both).  Every link message that may let a thread run or change state
  (anything not in ``NO_THAW``) drops them all, as does the start and the end of an invoke.

Only successful replies that carry no object ID are kept: an object ID handed out must be
counted for DisposeObjects (protocol/object_ids.py), and a class ID's answer never needs
the memo's speed.  Entries are offered with the epochs read when their command began, so a
reply computed across a thaw or a redefinition is not kept, nor one computed across a new
suspension: the name it carries may have been read while the VM still ran.  The fast lane reads from
another thread: single dict operations, atomic under the GIL, are all it does here.
"""

from __future__ import annotations

from typing import Any

from protocol import link, spec

# The command table's memo column (protocol/spec*.py) says which replies may be kept, and for how long.
FACT_COMMANDS = spec.having("memo", "fact")
FROZEN_COMMANDS = spec.having("memo", "frozen")
MEMO_COMMANDS = FACT_COMMANDS | FROZEN_COMMANDS
_name, _count = spec.by_name("ThreadReference", "Name"), spec.by_name("ThreadReference", "FrameCount")
THREAD_NAME, FRAME_COUNT = (_name.set_id, _name.cmd_id), (_count.set_id, _count.cmd_id)

# The link table's columns (protocol/link.py): messages that only read or suspend, so that nothing
# runs and nothing changes because of them, and those that suspend.
NO_THAW = frozenset(name for name, m in link.BY_NAME.items() if not m.thaws)
SUSPENDS = frozenset(name for name, m in link.BY_NAME.items() if m.suspends)

MAX_ENTRIES = 200_000  # a bound, not a tuning: past it the memo starts over


class ReplyMemo:
    __slots__ = ("_facts", "_frozen", "fact_epoch", "thaw_epoch", "hold_epoch", "invokes", "enabled",
                 "methods_generic")

    def __init__(self, *, enabled: bool = True) -> None:
        self._facts: dict[tuple[int, int, bytes], bytes] = {}
        self._frozen: dict[tuple[int, int, bytes], bytes] = {}
        self.fact_epoch = 0
        self.thaw_epoch = 0
        self.hold_epoch = 0
        self.invokes = 0
        self.enabled = enabled
        self.methods_generic = True  # which listing the last debugger asked (jdwpd/daemon/fast/prefill.py)

    def get(self, key: tuple[int, int, bytes]) -> bytes | None:
        body = self._facts.get(key)
        return self._frozen.get(key) if body is None else body

    def epochs(self) -> tuple[int, int, int]:
        return self.fact_epoch, self.thaw_epoch, self.hold_epoch

    def offer(self, key: tuple[int, int, bytes], body: bytes, began: tuple[int, int, int], vm: Any) -> None:
        """Keep a successful, ID-free reply to a command in MEMO_COMMANDS if it still holds.

        A thread's answer is kept only if the suspension it needs was already in place when the
        command began (no new suspension since ``began``, none lifted, and held now)."""
        if not self.enabled or began != (self.fact_epoch, self.thaw_epoch, self.hold_epoch):
            return
        kind = key[:2]
        if kind in FACT_COMMANDS:
            store = self._facts
        elif self.invokes:
            return  # a thread runs user code: what it reports is passing
        elif kind == THREAD_NAME and vm.threads.world_frozen():
            store = self._frozen
        elif kind == FRAME_COUNT and vm.threads.held(_thread_of(key[2], vm)):
            store = self._frozen
        else:
            return
        if len(store) >= MAX_ENTRIES:
            store.clear()
        store[key] = body

    def drop_facts(self) -> None:
        self.fact_epoch += 1
        self._facts.clear()

    def thaw(self) -> None:
        self.thaw_epoch += 1
        if self._frozen:
            self._frozen.clear()

    def held_more(self) -> None:
        """A thread or the VM was suspended (a debugger's Suspend, an event's suspend policy)."""
        self.hold_epoch += 1

    def link_message(self, name: str) -> None:
        """A message goes to the agent: one that may let a thread run, or change state, thaws."""
        if name in SUSPENDS:
            self.held_more()
        elif name not in NO_THAW:
            self.thaw()

    def invoke_started(self) -> None:
        self.invokes += 1
        self.thaw()

    def invoke_ended(self) -> None:
        self.invokes -= 1
        self.thaw()

    def clear(self) -> None:
        self.drop_facts()
        self.thaw()

    def __len__(self) -> int:
        return len(self._facts) + len(self._frozen)


def _thread_of(data: bytes, vm: Any) -> int:
    size = vm.id_sizes.object_id
    return int.from_bytes(data[:size], "big") if len(data) >= size else 0
