"""Snapshots: a stop captured as data (stack, locals of the top frames, ``this``, watch
expressions) under ``jdwpd.Limits``, in a documented, versioned JSON schema.

    snap = await vm.snapshot("Checkout.java:60", limits=jdwpd.Limits(frames=5, depth=2),
                             watch=["order.total * 2"])
    print(snap.to_json())

Schema ``jdwpd.snapshot/1`` (docs/scripting.md has the full reference)::

    {"schema": "jdwpd.snapshot/1", "time": ISO-8601 UTC, "thread": {"id", "name"},
     "location": {"class", "method", "signature", "file", "line", "index"},
     "frames": [{"location": {...}, "locals": {name: value} (top locals_frames frames only),
                 "this": value}],
     "watches": [{"expression", "value"} | {"expression", "error"}],
     "limits": {...}, "truncated": ["frames", ...]}

Values are ``to_python``'s (``jdwpd.views``): JSON scalars, or objects with ``@type``/``@id``,
each cut marked with ``@truncated``.
"""

from __future__ import annotations

import datetime
import json
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from .views import ByteBudget, Limits, to_python

if TYPE_CHECKING:
    from .threads import Frame, Thread
    from .types import Location

__all__ = ["Snapshot", "capture", "SCHEMA"]

SCHEMA = "jdwpd.snapshot/1"


@attrs.frozen
class Snapshot:
    """A captured stop.  ``data`` is the JSON-ready dict; ``to_json()`` its text.  ``in_vm``: the
    VM captured it (jdwpd's extension), else it was read over JDWP: the same data either way."""

    data: dict[str, Any]
    in_vm: bool = False
    #: Taken because the condition threw here (what Java would have thrown), else None.
    condition_error: str | None = None

    @property
    def location(self) -> dict[str, Any]:
        return self.data["location"]

    @property
    def frames(self) -> list[dict[str, Any]]:
        return self.data["frames"]

    @property
    def locals(self) -> dict[str, Any]:
        """The top frame's locals."""
        return self.data["frames"][0].get("locals", {}) if self.data["frames"] else {}

    @property
    def watches(self) -> list[dict[str, Any]]:
        return self.data["watches"]

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.data, **kw)


class HeldStop(Protocol):
    """What a capture reads of a hit (``hits.Hit``): named here, since a hit makes its snapshot."""

    @property
    def thread(self) -> Thread: ...

    @property
    def location(self) -> Location: ...

    @property
    def frame(self) -> Frame: ...


async def capture(hit: HeldStop, limits: Limits | None, watch: list[str]) -> Snapshot:
    """Capture ``hit`` (whose thread must be held) as a Snapshot."""
    from .access import ExpressionError, evaluate_in_frame

    limits = limits or Limits()
    budget = ByteBudget(limits.bytes)
    truncated: list[str] = []
    total = await hit.thread.frame_count()
    frames = await hit.thread.frames(0, min(total, limits.frames))
    if total > len(frames):
        truncated.append("frames")
    out_frames = []
    for i, frame in enumerate(frames):
        entry: dict[str, Any] = {"location": frame.location.to_python()}
        if i < limits.locals_frames:
            if budget.left >= 0:
                entry["locals"] = {name: await to_python(v, limits, budget=budget)
                                   for name, v in (await frame.locals()).items()}
                this = await frame.this()
                if this is not None:
                    entry["this"] = await to_python(this, limits, budget=budget)
            else:
                entry["@truncated"] = "budget"
        out_frames.append(entry)
    watches = []
    for expression in watch:
        try:
            value = await evaluate_in_frame(hit.frame, expression, allow_invoke=False)
            watches.append({"expression": expression, "value": await to_python(value, limits, budget=budget)})
        except ExpressionError as e:
            watches.append({"expression": expression, "error": e.message})
    if budget.left < 0:
        truncated.append("budget")
    data = {
        "schema": SCHEMA,
        "time": datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
        "thread": {"id": hit.thread.id, "name": hit.thread.name},
        "location": hit.location.to_python(),
        "frames": out_frames,
        "watches": watches,
        "limits": attrs.asdict(limits),
        "truncated": truncated,
    }
    return Snapshot(data)
