"""Writing the run's reports, once the run is over: summary.md (and GitHub's summary and
annotations), JUnit attachments, report.html."""

from __future__ import annotations

import os
from pathlib import Path

from .evidence import Evidence
from .html_report import render
from .options import Settings
from .probes import Tally
from .report import attach_to_junit, summary_markdown, workflow_commands


def write_reports(settings: Settings, evidence: Evidence, tally: Tally, status: int, command_status: int,
                  timed_out: bool) -> None:
    text = summary_markdown(settings, evidence, tally, status, command_status, timed_out)
    (settings.out / "summary.md").write_text(text, encoding="utf-8")
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        try:
            with open(os.environ["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as f:
                f.write(text)
        except OSError:
            pass
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for line in workflow_commands(evidence, Path.cwd()):
            print(line, flush=True)
    attach_to_junit(settings, evidence)
    (settings.out / "report.html").write_text(render(settings, evidence, tally, status), encoding="utf-8")
