"""jdwpd's extension objects (docs/extensions.md), per session: what a session's CompileCondition,
CompileExpression, DefineCapture, DefineBudget and DefineCatchFilter made, by the id the session
attaches to an EventRequest.Set through the Conditional modifier (commands/jdwpd_ext.py).

The VM owns one registry (``VM.ext_objects``).  A session has objects from its JdwpdHello on, and
they go with it (weakly held).  Ids are unique among the VM's sessions, so that a hostile id never
names another session's object; a request set with an object keeps its own copy of the bytes.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Iterator
from typing import Any

import attrs

from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode

# A session that defines without forgetting (a loop in a script) is told so before the daemon grows.
MAX_PER_SESSION = 10_000


@attrs.define(eq=False)
class SessionObjects:
    """One session's objects: id -> the agent's bytes (ObjKind first)."""

    _ids: Iterator[int]
    _objects: dict[int, bytes] = attrs.field(factory=dict)
    #: Jdwpd.PushStops: its held stops come with their stack and top locals (a JdwpdStop event).
    pushes_stops: bool = False

    def define(self, data: bytes) -> int:
        if len(self._objects) >= MAX_PER_SESSION:
            raise JdwpError(ErrorCode.OUT_OF_MEMORY, "too many extension objects in this session: Forget some")
        oid = next(self._ids)
        self._objects[oid] = data
        return oid

    def get(self, oid: int) -> bytes | None:
        return self._objects.get(oid)

    def forget(self, oid: int) -> None:
        self._objects.pop(oid, None)


@attrs.define(eq=False)
class ExtObjects:
    """The VM's registry: each session's objects, from its hello on."""

    _sessions: weakref.WeakKeyDictionary[Any, SessionObjects] = attrs.field(factory=weakref.WeakKeyDictionary)
    _ids: Iterator[int] = attrs.field(factory=lambda: itertools.count(1))

    def hello(self, session: Any) -> None:
        """The session enabled the extension (again: its objects stay)."""
        if session not in self._sessions:
            self._sessions[session] = SessionObjects(self._ids)

    def of(self, session: Any) -> SessionObjects | None:
        """The session's objects; None before its hello."""
        return self._sessions.get(session)
