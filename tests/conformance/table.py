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


def jdi_sections() -> dict[str, list[tuple[str, str, list[tuple[str, str]]]]]:
    """Item -> [(scenario, section that sent or received it, the known differences that keep it from
    being proven)]: an empty list means the suite compares that section equal.

    Sections printed after the VM is gone show what recorded sections observed: their known
    differences (but for intermittent ones) keep the scenario's recorded sections from proving its
    commands; the events the `events` scenario logs are proven by the section they are printed in
    (jdi_harness.EVENT_SECTIONS)."""
    known = jdi_harness.KNOWN_DIFFERENCES
    out: dict[str, list] = {}
    for name, scn in jdi_record.load()["scenarios"].items():
        recorded = scn["recorded"]
        printed_only = [s for s in scn["transcript_sections"] if s not in recorded]
        taint = [(name, s) for s in printed_only if (name, s) in known and (name, s) not in jdi_harness.INTERMITTENT]
        for section, seen in recorded.items():
            blocking = taint + ([(name, section)] if (name, section) in known else [])
            for command in seen["commands"]:
                out.setdefault(command, []).append((name, section, blocking))
            for event in seen["events"]:
                printed = jdi_harness.EVENT_SECTIONS.get(event) if name == "events" else None
                where = [(name, printed)] if printed and (name, printed) in known else []
                out.setdefault(registry.event_key(event), []).append(
                    (name, section, where if printed else blocking))
    return out


def _jdi_status(item: str, sections: dict) -> str:
    found = sections.get(item, [])
    proven = sorted({n for n, _, blocking in found if not blocking})
    if proven:
        return "equal (" + ", ".join(f"`{n}`" for n in proven) + ")"
    if found:
        numbers = jdi_known_differences()
        keys = {k for _, _, blocking in found for k in blocking}
        return "equal but for " + ", ".join(sorted({numbers[jdi_harness.KNOWN_DIFFERENCES[k]] for k in keys},
                                                   key=lambda n: int(n[1:])))
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
    recorded_with = jdi_record.load().get("recorded_with", [])
    lines += ["", "The JDI column was recorded (`python -m tests.conformance.jdi_record`) with: "
              + "; ".join(f"`{v}`" for v in recorded_with) + "."]
    lines += ["", "### Known differences of the JDI suite (xfails in test_jdi_conformance.py: strict unless "
              "intermittent)", ""]
    for reason, number in jdi_known_differences().items():
        keys = sorted(k for k, r in jdi_harness.KNOWN_DIFFERENCES.items() if r == reason)
        where = "; ".join(f"`{n}`: {sec}" for n, sec in keys)
        shows = " Intermittent (non-strict xfail)." if all(k in jdi_harness.INTERMITTENT for k in keys) else ""
        lines.append(f"- **{number}**: {reason}. Sections: {where}.{shows}")
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
