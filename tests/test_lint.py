"""ruff is configured in pyproject.toml and the tree is clean."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed (pip install -e '.[test]')")
def test_ruff_is_clean():
    result = subprocess.run(["ruff", "check", "."], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
