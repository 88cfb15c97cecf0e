"""What the `jdwpd ci` tests read back from a run's evidence folder, in one place."""

from __future__ import annotations

import json
from pathlib import Path


def events(out: Path) -> list[dict]:
    """``events.jsonl`` of the evidence folder ``out``: one dict per event, in the order they happened."""
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
