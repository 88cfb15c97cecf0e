"""Types a checker reads (docs/architecture.md, "Types"): mypy finds no error, and the stub of the run-time
message classes is fresh."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_message_classes_stub_is_fresh():
    """protocol/message_types.pyi is generated from the command table; a change to spec*.py needs
    `python -m protocol.gen_message_types` (as the agent's header needs gen_c_header)."""
    result = subprocess.run([sys.executable, "-m", "protocol.gen_message_types", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def _stub_classes() -> dict[str, list[str]]:
    """Qualified name -> field names, of every class in the stub that has fields or an __init__."""
    import ast

    out: dict[str, list[str]] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                name = f"{prefix}{node.name}"
                fields = [s.target.id for s in node.body
                          if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
                if any(isinstance(s, ast.FunctionDef) for s in node.body):
                    out[name] = fields
                walk(node.body, name + ".")

    walk(ast.parse((ROOT / "protocol" / "message_types.pyi").read_text()).body, "")
    return out


def test_the_stub_declares_the_classes_messages_makes():
    """Same names, same fields in the same order, as the classes made at run time."""
    from protocol import messages, spec

    made: dict[str, list[str]] = {}
    for ns_name in ("Events", "Modifiers"):
        for name, cls in vars(getattr(messages, ns_name)).items():
            if isinstance(cls, type):
                made[f"{ns_name}.{name}"] = [f.name for f in cls.__jdwp_fields__]
    for cs in spec.COMMANDS.values():
        ns = getattr(messages.namespace(cs.set_name), cs.name)
        for name, cls in vars(ns).items():
            if isinstance(cls, type):
                made[f"{cs.set_name}.{cs.name}.{name}"] = [f.name for f in cls.__jdwp_fields__]
    assert _stub_classes() == made


def test_mypy_finds_no_error():
    """mypy over jdwpd/ and protocol/ at the strictness pyproject.toml's [tool.mypy] sets: zero errors.
    A new error is fixed where it is, not silenced (docs/architecture.md, "Types")."""
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.skip("mypy is not installed: pip install -e '.[test]'")
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
