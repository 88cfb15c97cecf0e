"""The jdwpd side's skip, importable by the API's test modules."""

from __future__ import annotations

import pytest

from jdwpd.testing import jvm


def skip_unless_jdwpd() -> None:
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
