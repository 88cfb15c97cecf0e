"""The API's tests: one script, two servers (jdwpd and the reference agent), same results.

``open_shop(kind)`` debugs tests/java/shop's ``shop.Main``, held at its start: under jdwpd it
goes through ``jdwpd.launch`` itself; under the reference the JVM runs with -agentlib:jdwp and
the API attaches with ``jdwpd.attach``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from api_support import SHOP

from jdwpd.testing import debuggees


@pytest.fixture(scope="session")
def shop_classes() -> Path:
    return debuggees.compile_sources(SHOP)


@pytest.fixture(scope="session")
def shop_lines() -> dict[str, int]:
    """marker -> line, over tests/java/shop."""
    return debuggees.all_markers(SHOP)
