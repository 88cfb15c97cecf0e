"""examples/: the four scripts, run as a user runs them (through jdwpd.launch), each under a
timeout; and the ```python blocks of docs/scripting.md, each a whole script."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from api_support import java_argv
from conftest_skip import skip_unless_jdwpd

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.jvm


def run(script: str, *args: str, timeout: float = 120, env: dict | None = None) -> str:
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / script), *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_trace_method(shop_classes):
    skip_unless_jdwpd()
    out = run("trace_method.py", "shop.Checkout.total", "2", "--", *java_argv(shop_classes))
    lines = out.splitlines()
    assert lines[0].startswith("shop.Checkout.total({'order': {'@type': 'shop.Order'") and lines[0].endswith(
        "-> 2.5")
    assert lines[1].endswith("-> 127.0")


def test_who_changes_field(shop_classes):
    skip_unless_jdwpd()
    out = run("who_changes_field.py", "shop.Checkout.revenue", "2", "--", *java_argv(shop_classes))
    assert "shop.Checkout.revenue: 0 -> 2 in main" in out and "shop.Checkout.revenue: 2 -> 129 in main" in out
    assert "    at shop.Checkout.pay(Checkout.java:" in out and "    at shop.Main.main(Main.java:" in out


def test_snapshot_on_exception(shop_classes, tmp_path):
    skip_unless_jdwpd()
    path = tmp_path / "snap.json"
    out = run("snapshot_on_exception.py", "java.lang.IllegalStateException", str(path), "--",
              *java_argv(shop_classes))
    data = json.loads(path.read_text())
    assert data["schema"] == "jdwpd.snapshot/1" and "IllegalStateException at Main.java" in out
    assert data["exception"]["@type"] == "java.lang.IllegalStateException"
    assert data["exception"]["message"] == "round 1 failed"
    assert data["frames"][0]["locals"] == {"r": 1}


def test_force_race(shop_classes, shop_lines):
    skip_unless_jdwpd()
    out = run("force_race.py", f"Checkout.java:{shop_lines['shop_pay']}", f"Main.java:{shop_lines['shop_audit']}",
              "seen", "--", *java_argv(shop_classes))
    assert "main held at shop.Checkout.pay" in out and "auditor ran Main.java" in out
    assert re.search(r"seen = 0\b", out), out


def _doc_blocks() -> list[str]:
    text = (ROOT / "docs" / "scripting.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


@pytest.mark.parametrize("index", range(len(_doc_blocks())))
def test_docs_blocks_run(index, shop_classes):
    skip_unless_jdwpd()
    block = _doc_blocks()[index]
    env = {**os.environ, "SHOP_CLASSES": str(shop_classes)}
    proc = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env=env)
    assert proc.returncode == 0, f"docs/scripting.md block {index}:\n{block}\n{proc.stdout}{proc.stderr}"
