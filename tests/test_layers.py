"""Import directions between the new front ends and the daemon (docs/architecture.md, "Front ends")."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DAEMON = ("jdwpd.session", "jdwpd.vm", "jdwpd.model", "jdwpd.commands", "jdwpd.daemon", "jdwpd.server",
          "jdwpd.dispatch", "jdwpd.events", "jdwpd.fast_lane", "jdwpd.inline", "jdwpd.spin", "jdwpd.link",
          "jdwpd.fleet", "jdwpd.ci")


def imports(path: Path) -> set[str]:
    """Absolute module names a file imports (relative imports resolved against its package)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[:len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            out.add(name)
            out.update(f"{name}.{a.name}" for a in node.names)
    return out


def offending(folder: str, banned: tuple[str, ...]) -> list[str]:
    bad = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for name in imports(path):
            if name.startswith(banned):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    return bad


def test_the_expression_language_is_pure():
    assert offending("jdwpd/expr", ("trio", "socket", "subprocess", "jdwpd.api", *DAEMON)) == []


def test_the_api_is_a_client_and_never_reaches_into_the_daemon():
    assert offending("jdwpd/api", DAEMON) == []


def test_protocol_imports_nothing_of_jdwpd():
    assert offending("protocol", ("jdwpd", "trio")) == []
