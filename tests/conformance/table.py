"""The coverage table of docs/conformance.md, generated from the suite's registrations.

    python -m tests.conformance.table            # print the table
    python -m tests.conformance.table --write    # rewrite the generated section of docs/conformance.md

Nothing here runs a JVM: the table says what the suite compares (each registered item is checked at
run time to be present in the reference's transcript and equal in jdwpd's), which known
differences it holds as strict xfails, and what jdwpd answers where the reference has no answer.
The JDI column comes from tests/conformance/jdi_coverage.json, the commands and event kinds the JDI
scenarios were recorded sending and receiving (`python -m tests.conformance.jdi_record` rewrites it).
"""

from __future__ import annotations

import sys
from pathlib import Path

from protocol.constants import ErrorCode
from tests.conformance import jdi_harness, jdi_record, registry
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


def jdi_known_differences() -> dict[str, str]:
    """Reason -> J<n>, numbered in the order of their (scenario, section)."""
    numbers: dict[str, str] = {}
    for key in sorted(jdi_harness.KNOWN_DIFFERENCES):
        numbers.setdefault(jdi_harness.KNOWN_DIFFERENCES[key], f"J{len(numbers) + 1}")
    return numbers


def jdi_sections() -> dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]]:
    """Item -> (JDI sections that sent or received it, those of them proven equal).

    A recorded section is proven when the suite compares it equal: neither it nor a section printed
    after the VM is gone (which shows what recorded sections observed) is a known difference."""
    out: dict[str, tuple[list, list]] = {}
    for name, scn in jdi_record.load()["scenarios"].items():
        recorded = scn["recorded"]
        printed_only = [s for s in scn["transcript_sections"] if s not in recorded]
        tainted = any((name, s) in jdi_harness.KNOWN_DIFFERENCES for s in printed_only)
        for section, seen in recorded.items():
            proven = not tainted and (name, section) not in jdi_harness.KNOWN_DIFFERENCES
            for item in [*seen["commands"], *(registry.event_key(e) for e in seen["events"])]:
                sent, ok = out.setdefault(item, ([], []))
                sent.append((name, section))
                if proven:
                    ok.append((name, section))
    return out


def _jdi_status(item: str, sections: dict) -> str:
    sent, proven = sections.get(item, ([], []))
    if proven:
        return "equal (" + ", ".join(f"`{n}`" for n in sorted({n for n, _ in proven})) + ")"
    if sent:
        numbers = jdi_known_differences()
        return "equal but for " + ", ".join(sorted({numbers[jdi_harness.KNOWN_DIFFERENCES[k]] for k in sent
                                                    if k in jdi_harness.KNOWN_DIFFERENCES}))
    return "-"


def rows(kind: str) -> list[tuple[str, str, str, str, str]]:
    scenarios = registry.load_scenarios()
    numbers = known_differences()
    jdi = jdi_sections()
    items = registry.COMMANDS if kind == "command" else tuple(registry.event_key(e) for e in registry.EVENT_KINDS)
    out = []
    for item in items:
        covering = sorted(n for n, s in scenarios.items() if item in s.items)
        bugs = sorted({numbers[reason] for (_, i, _), reason in registry.KNOWN_BUGS.items() if i == item},
                      key=lambda k: int(k[1:]))
        diffs = sorted(d.case for d in DIFFERENCES if d.item == item)
        name = item.removeprefix("Event.") if kind == "event" else item
        out.append((name, _status(covering, bugs), ", ".join(f"`{c}`" for c in covering) or "-",
                    _jdi_status(item, jdi), "; ".join(diffs) or "-"))
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
                  f"{sum(1 for r in data if r[1].startswith('**not'))} not compared. "
                  f"Through JDI: {sum(1 for r in data if r[3].startswith('equal ('))} proven equal, "
                  f"{sum(1 for r in data if r[3].startswith('equal but'))} equal but for known differences, "
                  f"{sum(1 for r in data if r[3] == '-')} never sent by JDI's calls in the JDI suite.", "",
                  f"| {kind.capitalize()} | Status | Compared by scenario | JDI suite (by scenario) | The reference "
                  "has no answer (jdwpd answers an error) |",
                  "|---|---|---|---|---|"]
        lines += [f"| {' | '.join(r)} |" for r in data]
        lines.append("")
    lines += ["### Known differences (strict xfails in test_conformance_suite.py::test_known_bug)", ""]
    numbers = known_differences()
    for reason, number in numbers.items():
        where = sorted({f"`{n}`: {label}" for (n, _, label), r in registry.KNOWN_BUGS.items() if r == reason})
        lines.append(f"- **{number}**: {reason}. Entries: {'; '.join(where)}.")
    lines += ["", "### Known differences of the JDI suite (strict xfails in test_jdi_conformance.py)", ""]
    for reason, number in jdi_known_differences().items():
        where = sorted(f"`{n}`: {sec}" for (n, sec), r in jdi_harness.KNOWN_DIFFERENCES.items() if r == reason)
        lines.append(f"- **{number}**: {reason}. Sections: {'; '.join(where)}.")
    if not jdi_harness.KNOWN_DIFFERENCES:
        lines.append("None: every section of every JDI scenario is equal.")
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
