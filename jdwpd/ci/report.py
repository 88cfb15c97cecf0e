"""The run told for people: summary.md (and GitHub's step summary and annotations), report.html (one
self-contained page: no network, no script needed to read it), and JUnit XML reports that point at
the snapshots of their failing tests."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from .evidence import Evidence
from .options import Settings
from .probes import Tally

ISSUE_EVENTS = ("assertion-failed", "uncaught-exception", "test-failure", "exception", "deadlock", "timeout")
#: What happened to probes and to the run's own work: each a row too (docs/ci.md), a disable included.
PROBE_EVENTS = ("probe-error", "probe-disabled", "probe-spent", "probe-unresolved", "probes-expired",
                "capture-error", "vm-error", "hang-report-error")
ROW_EVENTS = ISSUE_EVENTS + PROBE_EVENTS


def what_of(e: dict) -> str:
    """A row's first cell: what happened, in a sentence."""
    if e["event"] == "deadlock":
        return "deadlock: " + " → ".join(t["thread"] for t in e.get("threads", []))
    if e["event"] == "timeout":
        return f"timeout: still running after {e.get('after_seconds')} s; every thread of {e.get('vms')} VMs " \
               "written down"
    if e["event"] == "probes-expired":
        return f"probes expired after {e.get('after_seconds')} s"
    if e["event"] in PROBE_EVENTS:
        if e.get("message"):
            return f"{e['event']}: {e['message']}"
        return f"{e['event']}: {e.get('probe') or 'the run'}: {e.get('error') or ''}".rstrip(": ")
    return e.get("message") or e["event"]


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
    end: dict[str, Any] = next((e for e in reversed(evidence.events) if e["event"] == "run-end"), {})
    lines = [f"## jdwpd ci: `{cmd}`", "",
             f"- status **{status}** (command: {command_status}{', timed out' if timed_out else ''}), "
             f"{end.get('seconds', '?')} s",
             f"- VMs seen: {tally.vms}; hits: {tally.hits}; snapshots: {tally.snapshots}; log lines: {tally.log_lines}",
             f"- assertion failures: {tally.assertion_failures}; test failures: {tally.test_failures}; "
             f"exceptions: {tally.exceptions}"]
    issues = [e for e in evidence.events if e["event"] in ROW_EVENTS]
    if issues:
        lines += ["", "| what | where | VM | test | snapshot |", "|---|---|---|---|---|"]
        for e in issues:
            snap = next((s for s in evidence.snapshots if s["file"] == e.get("file")), None)
            test = e.get("test") or (snap or {}).get("data", {}).get("test", "")
            vm = e.get("vm") or {}
            who = f"{vm.get('main', '')} (pid {vm.get('pid')})" if vm else ""
            lines.append(f"| {_md(what_of(e))} | {_md(where(e.get('location')))} | {who} | {_md(test)} | "
                         f"{e.get('file') or ''} |")
    logs = [e for e in evidence.events if e["event"] == "log"]
    if logs:
        lines += ["", f"### Log lines ({len(logs)}; all in events.jsonl)", "", "```"]
        lines += [f"[{e['vm'].get('main')} {e['vm'].get('pid')}] {e['line']}" for e in logs[:50]]
        lines += ["```"]
    hidden = sorted(evidence.redact.hidden)
    if hidden:
        lines += ["", f"Redacted (values held under these names): {', '.join(f'`{n}`' for n in hidden)}."]
    lines += ["", "Evidence: `events.jsonl`, `snapshots/`, `report.html`."]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def workflow_commands(evidence: Evidence, root: Path) -> list[str]:
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


#: TestNG's command line (its main class): its output folder is ``-d DIR``, else ``test-output``,
#: and it writes JUnit-style XML there (``junitreports/TEST-*.xml`` and one per <test>).
TESTNG_MAIN = "org.testng.TestNG"


def named_report_dirs(argv: list[str], cwd: Path) -> list[Path]:
    """The JUnit XML folders a command line names: the console launcher's ``--reports-dir``,
    Surefire's ``-Dsurefire.reportsDirectory``, TestNG's output folder (Gradle's ``reports`` are
    not on its line)."""
    found = []
    if TESTNG_MAIN in argv:
        rest = argv[argv.index(TESTNG_MAIN) + 1:]
        found.append(cwd / next((rest[i + 1] for i in range(len(rest) - 1) if rest[i] == "-d"), "test-output"))
    for i, arg in enumerate(argv):
        value = None
        if arg == "--reports-dir" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--reports-dir="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-Dsurefire.reportsDirectory="):
            value = arg.split("=", 1)[1]
        if value:
            found.append(cwd / value)
    return found


def report_dirs(settings: Settings, evidence: Evidence) -> list[Path]:
    """Where JUnit XML reports are: --junit-reports (or, by default, target/surefire-reports and
    build/test-results, in the working directory and in modules up to two levels below it), and
    every folder the command or a JVM of the run named on its command line."""
    dirs = list(settings.junit_dirs)
    cwd = Path.cwd()
    if settings.junit_dirs_default:
        for depth in ("*", "*/*"):
            dirs += [p for pattern in ("target/surefire-reports", "build/test-results")
                     for p in cwd.glob(f"{depth}/{pattern}")]
    dirs += named_report_dirs(list(settings.command), cwd)
    for e in evidence.events:
        if e["event"] == "vm-start":
            dirs += named_report_dirs(e.get("argv") or [], Path(e.get("cwd") or cwd))
    out: list[Path] = []
    for d in dirs:
        d = d.resolve()
        if d not in out and not any(d.is_relative_to(o) for o in out):
            out.append(d)
    return out


def attach_to_junit(settings: Settings, evidence: Evidence) -> list[str]:
    """Add ``[[ATTACHMENT|path]]`` to the system-out of each failing test case that has a snapshot
    (Jenkins' JUnit attachments plug-in and others read it); returns the files changed."""
    by_test: dict[str, list[str]] = {}
    for snap in evidence.snapshots:
        test = snap["data"].get("test")
        if test:
            by_test.setdefault(test, []).append(str((settings.out / snap["file"]).resolve()))
    changed: list[str] = []
    if not by_test:
        return changed
    for folder in report_dirs(settings, evidence):
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


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)
