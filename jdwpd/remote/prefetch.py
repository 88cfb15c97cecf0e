"""What the far side reads at a stop, next to the agent, for the near side (placeholder)."""

from __future__ import annotations


class FarFacts:
    def __init__(self) -> None:
        self.sent: set = set()


async def read_stop(relay, event: dict) -> list:
    return []
