"""The coverage table of docs/conformance.md, generated from the suite's registrations.

    python -m tests.conformance.table            # print the table
    python -m tests.conformance.table --write    # rewrite the generated section of docs/conformance.md

Nothing here runs a JVM: the table says what the suite compares (each registered item is checked at
run time to be present in the reference's transcript and equal in jdwpd's), which known
differences it holds as strict xfails, and what jdwpd answers where the reference has no answer.
"""

from __future__ import annotations

import sys
from pathlib import Path

from protocol.constants import ErrorCode
from tests.conformance import registry
from tests.conformance.differences import DIFFERENCES

DOC = Path(__file__).resolve().parents[2] / "docs" / "conformance.md"
BEGIN = "<!-- BEGIN GENERATED TABLE (python -m tests.conformance.table --write) -->"
END = "<!-- END GENERATED TABLE -->"


def _status(scenarios: list[str], bugs: list[str]) -> str:
    if not scenarios:
        return "**not compared**"
    if bugs:
        return "equal but for " + ", ".join(bugs)
    return "equal"


def known_differences() -> dict[str, str]:
    """Reason -> K<n>, numbered in the order of the reasons' first (scenario, item, label)."""
    numbers: dict[str, str] = {}
    for key in sorted(registry.KNOWN_BUGS):
        reason = registry.KNOWN_BUGS[key]
        numbers.setdefault(reason, f"K{len(numbers) + 1}")
    return numbers


def rows(kind: str) -> list[tuple[str, str, str, str]]:
    scenarios = registry.load_scenarios()
    numbers = known_differences()
    items = registry.COMMANDS if kind == "command" else tuple(registry.event_key(e) for e in registry.EVENT_KINDS)
    out = []
    for item in items:
        covering = sorted(n for n, s in scenarios.items() if item in s.items)
        bugs = sorted({numbers[reason] for (_, i, _), reason in registry.KNOWN_BUGS.items() if i == item},
                      key=lambda k: int(k[1:]))
        diffs = sorted(d.case for d in DIFFERENCES if d.item == item)
        name = item.removeprefix("Event.") if kind == "event" else item
        out.append((name, _status(covering, bugs), ", ".join(f"`{c}`" for c in covering) or "-",
                    "; ".join(diffs) or "-"))
    return out


def table() -> str:
    lines = []
    for kind, title in (("command", "Commands (95, Event.Composite included)"),
                        ("event", "Event kinds with a wire form (18)")):
        data = rows(kind)
        equal = sum(1 for r in data if r[1] == "equal")
        lines += [f"### {title}", "",
                  f"{equal} of {len(data)} proven equal in every compared entry; "
                  f"{sum(1 for r in data if r[1].startswith('equal but'))} equal but for known differences; "
                  f"{sum(1 for r in data if r[1].startswith('**not'))} not compared.", "",
                  f"| {kind.capitalize()} | Status | Compared by scenario | The reference has no answer "
                  "(jdwpd answers an error) |",
                  "|---|---|---|---|"]
        lines += [f"| {' | '.join(r)} |" for r in data]
        lines.append("")
    lines += ["### Known differences (strict xfails in test_conformance_suite.py::test_known_bug)", ""]
    numbers = known_differences()
    for reason, number in numbers.items():
        where = sorted({f"`{n}`: {label}" for (n, _, label), r in registry.KNOWN_BUGS.items() if r == reason})
        lines.append(f"- **{number}**: {reason}. Entries: {'; '.join(where)}.")
    lines += ["", "### Where the reference has no answer (test_conformance_differences.py)", "",
              "| Command | Request | The reference | jdwpd answers |", "|---|---|---|---|"]
    for d in DIFFERENCES:
        code = "success" if d.jdwpd_code == 0 else f"{ErrorCode(d.jdwpd_code).name} ({int(d.jdwpd_code)})"
        lines.append(f"| {d.item} | {d.case} | {d.reference} | {code} |")
    lines.append("")
    return "\n".join(lines)


def section() -> str:
    return f"{BEGIN}\n{table()}{END}"


def current_doc_section() -> str | None:
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    if BEGIN not in text or END not in text:
        return None
    return text[text.index(BEGIN):text.index(END) + len(END)]


def write() -> None:
    text = DOC.read_text(encoding="utf-8")
    old = current_doc_section()
    if old is None:
        raise SystemExit(f"{DOC}: no generated section ({BEGIN} ... {END})")
    DOC.write_text(text.replace(old, section()), encoding="utf-8")


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        write()
    else:
        print(table())
