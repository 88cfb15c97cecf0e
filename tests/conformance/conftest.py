"""Fixtures of the conformance suite: its own debuggee compiled once, and scenario runs shared by tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from jdwpd.testing import debuggees

CONF_SOURCES = Path(__file__).resolve().parent.parent / "java" / "conformance"


@pytest.fixture(scope="session")
def conf_classes(sample_classes) -> Path:
    return debuggees.compile_sources(CONF_SOURCES)


@pytest.fixture(scope="session")
def conf_markers() -> dict[str, int]:
    return debuggees.all_markers(CONF_SOURCES)
