"""The run told for people: summary.md (and GitHub's step summary and annotations), report.html (one
self-contained page: no network, no script needed to read it), and JUnit XML reports that point at
the snapshots of their failing tests."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from .evidence import Evidence
from .options import Settings
from .probes import Tally

ISSUE_EVENTS = ("assertion-failed", "uncaught-exception", "test-failure", "exception", "deadlock", "timeout")


def where(location: dict | None) -> str:
    if not location:
        return ""
    line = location.get("line")
    line = "native" if line is None or line < 0 else line
    return f"{location.get('class', '?')}.{location.get('method', '?')} ({location.get('file') or '?'}:{line})"


def source_path(location: dict | None, root: Path) -> str | None:
    """The repository path of a location's source file, for annotations (None if not found)."""
    if not location or not location.get("file"):
        return None
    package = location.get("class", "").rpartition(".")[0].replace(".", "/")
    suffix = f"{package}/{location['file']}" if package else location["file"]
    try:
        for path in root.rglob(location["file"]):
            rel = path.relative_to(root).as_posix()
            if rel.endswith(suffix) and "/." not in f"/{rel}":
                return rel
    except OSError:
        return None
    return None


def summary_markdown(settings: Settings, evidence: Evidence, tally: Tally, status: int, command_status: int,
                     timed_out: bool) -> str:
    cmd = " ".join(settings.command)
    end = next((e for e in reversed(evidence.events) if e["event"] == "run-end"), {})
    lines = [f"## jdwpd ci: `{cmd}`", "",
             f"- status **{status}** (command: {command_status}{', timed out' if timed_out else ''}), "
             f"{end.get('seconds', '?')} s",
             f"- VMs seen: {tally.vms}; hits: {tally.hits}; snapshots: {tally.snapshots}; log lines: {tally.log_lines}",
             f"- assertion failures: {tally.assertion_failures}; test failures: {tally.test_failures}; "
             f"exceptions: {tally.exceptions}"]
    issues = [e for e in evidence.events if e["event"] in ISSUE_EVENTS]
    if issues:
        lines += ["", "| what | where | VM | test | snapshot |", "|---|---|---|---|---|"]
        for e in issues:
            snap = next((s for s in evidence.snapshots if s["file"] == e.get("file")), None)
            test = (snap or {}).get("data", {}).get("test", "")
            what = e.get("message") or e["event"]
            if e["event"] == "deadlock":
                what = "deadlock: " + " → ".join(t["thread"] for t in e.get("threads", []))
            if e["event"] == "timeout":
                what = f"timeout: still running after {e.get('after_seconds')} s; every thread written down"
            vm = e.get("vm") or {}
            who = f"{vm.get('main', '')} (pid {vm.get('pid')})" if vm else ""
            lines.append(f"| {_md(what)} | {_md(where(e.get('location')))} | {who} | {_md(test)} | "
                         f"{e.get('file') or ''} |")
    logs = [e for e in evidence.events if e["event"] == "log"]
    if logs:
        lines += ["", f"### Log lines ({len(logs)}; all in events.jsonl)", "", "```"]
        lines += [f"[{e['vm'].get('main')} {e['vm'].get('pid')}] {e['line']}" for e in logs[:50]]
        lines += ["```"]
    lines += ["", "Evidence: `events.jsonl`, `snapshots/`, `report.html`."]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def annotations(evidence: Evidence, root: Path) -> list[str]:
    """GitHub Actions workflow commands: one ::error per failure, at its source line when found."""
    out = []
    for e in evidence.events:
        if e["event"] not in ("assertion-failed", "uncaught-exception", "test-failure", "deadlock"):
            continue
        location = e.get("location")
        message = e.get("message") or e["event"]
        if e["event"] == "deadlock":
            message = "deadlock: " + " -> ".join(t["thread"] for t in e.get("threads", []))
        message = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        path = source_path(location, root)
        where_ = f" file={path},line={location.get('line')}" if path and location and location.get("line") else ""
        out.append(f"::error{where_}::jdwpd ci {e['event']}: {message} (snapshot {e.get('file')})")
    return out


def attach_to_junit(settings: Settings, evidence: Evidence) -> list[str]:
    """Add ``[[ATTACHMENT|path]]`` to the system-out of each failing test case that has a snapshot
    (Jenkins' JUnit attachments plug-in and others read it); returns the files changed."""
    by_test: dict[str, list[str]] = {}
    for snap in evidence.snapshots:
        test = snap["data"].get("test")
        if test:
            by_test.setdefault(test, []).append(str((settings.out / snap["file"]).resolve()))
    changed = []
    if not by_test:
        return changed
    for folder in settings.junit_dirs:
        for xml in sorted(Path(folder).rglob("*.xml")) if Path(folder).is_dir() else []:
            try:
                tree = ElementTree.parse(xml)
            except (ElementTree.ParseError, OSError):
                continue
            touched = False
            for case in tree.iter("testcase"):
                name = f"{case.get('classname')}.{case.get('name', '').split('(')[0]}"
                if name not in by_test or (case.find("failure") is None and case.find("error") is None):
                    continue
                out = case.find("system-out")
                if out is None:
                    out = ElementTree.SubElement(case, "system-out")
                out.text = (out.text or "") + "".join(f"\n[[ATTACHMENT|{p}]]" for p in by_test[name]) + "\n"
                touched = True
            if touched:
                tree.write(xml, encoding="utf-8", xml_declaration=True)
                changed.append(str(xml))
    return changed


def load_snapshot(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)
