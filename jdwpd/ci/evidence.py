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


def words(name: str) -> list[str]:
    """A name's words, lower case: ``apiKey``, ``API_KEY``, ``x-api-key`` -> ``[..., "api", "key"]``."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", name))
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


@attrs.define(eq=False, slots=False)
class Redactor:
    """Hides values by the name they are held under (variables, fields, map keys) or by their text.

    ``names``: the default list's entries, each a run of words a name must hold in order
    (``"api key"`` hides ``apiKey``, not ``keys``); ``patterns``: the user's regular expressions,
    searched in the name as written.  ``hidden``: every name whose value was hidden."""

    names: tuple[str, ...]
    values: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    hidden: set = attrs.field(factory=set)

    def __attrs_post_init__(self) -> None:
        self._runs = [tuple(words(n)) for n in self.names]
        self._name = re.compile("|".join(f"(?:{n})" for n in self.patterns), re.I) if self.patterns else None
        self._value = re.compile("|".join(f"(?:{v})" for v in self.values)) if self.values else None

    def hides_name(self, name: str) -> bool:
        if not isinstance(name, str):
            return False
        if self._name and self._name.search(name):
            return True
        w = words(name)
        return any(w[i:i + len(run)] == list(run) for run in self._runs for i in range(len(w) - len(run) + 1))

    def __call__(self, data: Any, *, key: str | None = None) -> Any:
        if key is not None and not key.startswith("@") and self.hides_name(key):
            self.hidden.add(key)
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
