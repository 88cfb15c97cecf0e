"""The evidence `jdwpd ci` leaves in --out: what a person and a CI system read afterwards.

- ``events.jsonl``: one JSON object per event, in the order they happened (schema: docs/ci.md).
- ``snapshots/NNNN-<kind>.json``: one file per capture (``jdwpd.snapshot/1`` plus ``vm`` and
  ``probe``), redacted before it is written.
- ``summary.md`` (also appended to ``$GITHUB_STEP_SUMMARY``), ``report.html``; GitHub annotations on
  stdout under GitHub Actions; JUnit XML reports get the snapshots of their failing tests attached.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Any

import attrs

EVENTS_SCHEMA = "jdwpd.ci-event/1"
REDACTED = "[REDACTED]"


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


@attrs.define(eq=False, slots=False)
class Redactor:
    """Hides values by the name they are held under (variables, fields, map keys) or by their text."""

    names: tuple[str, ...]
    values: tuple[str, ...] = ()

    def __attrs_post_init__(self) -> None:
        self._name = re.compile("|".join(f"(?:{n})" for n in self.names), re.I) if self.names else None
        self._value = re.compile("|".join(f"(?:{v})" for v in self.values)) if self.values else None

    def hides_name(self, name: str) -> bool:
        return bool(self._name and isinstance(name, str) and self._name.search(name))

    def __call__(self, data: Any, *, key: str | None = None) -> Any:
        if key is not None and not key.startswith("@") and self.hides_name(key):
            return REDACTED
        if isinstance(data, dict):
            return {k: self(v, key=k if k not in ("location", "thread") else None) for k, v in data.items()}
        if isinstance(data, list):
            return [self(v) for v in data]
        if isinstance(data, str) and self._value and self._value.search(data):
            return REDACTED
        return data


@attrs.define(eq=False, slots=False)
class Evidence:
    out: Path
    redact: Redactor
    events: list[dict] = attrs.field(factory=list)
    snapshots: list[dict] = attrs.field(factory=list)  # {"file", "vm", "probe", "kind", "data"}
    _count: int = 0

    def __attrs_post_init__(self) -> None:
        (self.out / "snapshots").mkdir(parents=True, exist_ok=True)
        self._events_file = open(self.out / "events.jsonl", "w", encoding="utf-8")  # noqa: SIM115 - lives as long

    def event(self, name: str, /, **fields: Any) -> dict:
        record = {"schema": EVENTS_SCHEMA, "time": now(), "event": name, **self.redact(fields)}
        self.events.append(record)
        self._events_file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._events_file.flush()
        return record

    def snapshot(self, kind: str, vm: dict, probe: str, data: dict, **extra: Any) -> str:
        """Write one capture; returns its path relative to --out."""
        self._count += 1
        name = f"snapshots/{self._count:04d}-{re.sub(r'[^a-z0-9-]+', '-', kind.lower())}.json"
        record = {**self.redact(data), "vm": vm, "probe": probe, **extra}
        (self.out / name).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        self.snapshots.append({"file": name, "vm": vm, "probe": probe, "kind": kind, "data": record})
        self.event("snapshot", kind=kind, file=name, vm=vm, probe=probe, location=record.get("location"),
                   **{k: v for k, v in extra.items() if k in ("test", "exception", "message", "condition_error")})
        return name

    def close(self) -> None:
        self._events_file.close()
