"""report.html: the whole run on one self-contained page (inline style, no script, no network).

Grouped by VM, then by test; each capture shows its stack and its variables as expandable trees
(``<details>``), so a person reads it in any browser, offline, from a CI artifact.
"""

from __future__ import annotations

from typing import Any

from .evidence import Evidence
from .options import Settings
from .probes import Tally
from .report import ROW_EVENTS, esc, what_of, where

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
header{background:#24292f;color:#fff;padding:16px 24px}header h1{margin:0 0 6px;font-size:20px}
header code{color:#ffd866}main{padding:16px 24px;max-width:1200px}
.status-ok{color:#3fb950}.status-bad{color:#ff7b72}
section.vm{background:#fff;border:1px solid #d0d7de;border-radius:8px;margin:16px 0;padding:12px 16px}
section.snapshot{border-top:1px solid #eaeef2;padding:10px 0}
h2{font-size:17px;margin:4px 0}h3{font-size:15px;margin:6px 0}
.kind{display:inline-block;padding:1px 8px;border-radius:10px;background:#ddf4ff;font-size:12px;margin-right:6px}
.kind.bad{background:#ffebe9}ol.stack{margin:4px 0;padding-left:28px;font-family:ui-monospace,monospace;font-size:13px}
details{margin:2px 0 2px 12px}summary{cursor:pointer}.var{font-family:ui-monospace,monospace;font-size:13px}
.name{color:#8250df}.type{color:#6e7781}.str{color:#0a3069}.num{color:#0550ae}.cut{color:#bc4c00;font-style:italic}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;
font-size:13px;vertical-align:top}.deadlock{background:#ffebe9;padding:6px 10px;border-radius:6px}
pre{background:#f6f8fa;padding:8px;overflow:auto}
"""

BAD_KINDS = {"assertion-failed", "uncaught-exception", "test-failure", "hang", "exception"}


def value_html(value: Any, name: str | None = None) -> str:
    label = f'<span class="name">{esc(name)}</span> = ' if name is not None else ""
    if isinstance(value, dict):
        type_ = value.get("@type", "object")
        ident = f"#{value['@id']}" if "@id" in value else ""
        cut = f' <span class="cut">(truncated: {esc(value["@truncated"])})</span>' if "@truncated" in value else ""
        inner = [(k, v) for k, v in value.items() if not k.startswith("@")]
        if "@enum" in value:
            return f'<div class="var">{label}<span class="type">{esc(type_)}.</span>{esc(value["@enum"])}</div>'
        size = value.get("@size", value.get("@length"))
        if size is not None:
            ident += f" size {size}"
        if "@value" in value:
            return f'<div class="var">{label}<span class="type">{esc(type_)}</span> {value_html(value["@value"])}' \
                   f'{cut}</div>'
        if not inner and "@items" not in value and "@entries" not in value:
            return f'<div class="var">{label}<span class="type">{esc(type_)}{esc(ident)}</span>{cut}</div>'
        children = "".join(value_html(v, k) for k, v in inner)
        if "@items" in value:
            children += "".join(value_html(v, f"[{i}]") for i, v in enumerate(value["@items"]))
        for key, item in value.get("@entries", []):
            shown = key if isinstance(key, str | int | float | bool) else (key or {}).get("@value", "key")
            children += value_html(item, f"[{shown!r}]" if isinstance(shown, str) else f"[{shown}]")
        return (f'<details class="var"><summary>{label}<span class="type">{esc(type_)}{esc(ident)}</span>{cut}'
                f'</summary>{children}</details>')
    if isinstance(value, list):
        children = "".join(value_html(v, f"[{i}]") for i, v in enumerate(value))
        return f'<details class="var"><summary>{label}<span class="type">[{len(value)}]</span></summary>{children}' \
               f'</details>'
    if isinstance(value, str):
        return f'<div class="var">{label}<span class="str">"{esc(value)}"</span></div>'
    if value is None:
        return f'<div class="var">{label}<span class="type">null</span></div>'
    return f'<div class="var">{label}<span class="num">{esc(value)}</span></div>'


def frames_html(frames: list[dict], test_frame: int | None = None) -> str:
    """The stack, top first, each frame's variables under it; the first frame with variables is
    open.  A failing test's own frame is shown first, open, marked: it is what a reader looks for."""
    def frame_html(frame: dict, is_open: bool, mark: str = "") -> str:
        body = ""
        if "locals" in frame:
            body += "".join(value_html(v, k) for k, v in frame["locals"].items())
        elif "locals_error" in frame:
            body += f'<div class="cut">locals not readable: {esc(frame["locals_error"])}</div>'
        if "this" in frame:
            body += value_html(frame["this"], "this")
        text = mark + esc(where(frame.get("location")))
        return (f"<li><details{' open' if is_open else ''}><summary>{text}</summary>{body}</details>"
                if body else f"<li>{text}</li>")

    head = ""
    if test_frame is not None and 0 <= test_frame < len(frames):
        head = ('<ol class="stack test">' + frame_html(frames[test_frame], True, '<b>the test</b>: ') + "</ol>"
                + '<div class="type">the stack, from where it was thrown:</div>')
    items, opened = [], test_frame is not None
    for frame in frames:
        has_body = any(k in frame for k in ("locals", "locals_error", "this"))
        items.append(frame_html(frame, has_body and not opened))
        opened = opened or has_body
    return f'{head}<ol class="stack">{"".join(items)}</ol>'


def snapshot_html(snap: dict) -> str:
    data = snap["data"]
    kind = snap["kind"]
    anchor = snap["file"].rsplit("/", 1)[-1].removesuffix(".json")
    title = data.get("message") or snap["probe"]
    parts = [f'<section class="snapshot" id="{esc(anchor)}">',
             f'<h3><span class="kind{" bad" if kind in BAD_KINDS else ""}">{esc(kind)}</span>{esc(title)}</h3>']
    if kind == "hang":
        for cycle in data.get("deadlocks", []):
            parts.append('<div class="deadlock"><b>Deadlock:</b> ' + " → ".join(
                f'{esc(t["thread"])} waits for {esc(t["waits_for"])} held by {esc(t["held_by"])}' for t in cycle)
                + "</div>")
        for thread in data.get("threads", []):
            owns = ", ".join(m["name"] for m in thread.get("owns", []))
            waits = thread.get("waits_for")
            extra = (f" · owns {esc(owns)}" if owns else "") + (
                f" · waits for {esc(waits['name'])}" if waits else "") + (
                f" · in test <b>{esc(thread['test'])}</b>" if thread.get("test") else "") + (
                f' · joins thread "{esc(thread["joins"])}"' if thread.get("joins") else "")
            parts.append(f'<h3>"{esc(thread["name"])}" <span class="type">{esc(thread.get("state", "?"))}'
                         f'</span>{extra}</h3>' + frames_html(thread.get("frames", [])))
    else:
        parts.append(f'<div>at <b>{esc(where(data.get("location")))}</b>, thread '
                     f'"{esc(data.get("thread", {}).get("name", "?"))}"'
                     + (f', test <b>{esc(data["test"])}</b>' if data.get("test") else "") + "</div>")
        for watch in data.get("watches", []):
            parts.append(value_html(watch.get("value", watch.get("error")), watch["expression"]))
        parts.append(frames_html(data.get("frames", []), data.get("test_frame")))
        if data.get("truncated"):
            parts.append(f'<div class="cut">truncated: {esc(", ".join(data["truncated"]))}</div>')
    parts.append(f'<div class="type">{esc(snap["file"])}</div></section>')
    return "".join(parts)


def render(settings: Settings, evidence: Evidence, tally: Tally, status: int) -> str:
    cmd = " ".join(settings.command)
    ok = "status-ok" if status == 0 else "status-bad"
    head = (f'<header><h1>jdwpd ci report</h1><div><code>{esc(cmd)}</code> exited with '
            f'<b class="{ok}">{status}</b> · VMs {tally.vms} · hits {tally.hits} · snapshots {tally.snapshots} · '
            f'log lines {tally.log_lines} · assertion failures {tally.assertion_failures} · test failures '
            f'{tally.test_failures} · exceptions {tally.exceptions}</div></header>')
    body = []
    issues = [e for e in evidence.events if e["event"] in ROW_EVENTS]
    if issues:
        rows = "".join(
            f'<tr><td>{esc(e["event"])}</td><td>{esc(what_of(e))}</td><td>{esc(where(e.get("location")))}'
            f'</td><td>{esc((e.get("vm") or {}).get("main", ""))} {esc((e.get("vm") or {}).get("pid", ""))}</td>'
            f'<td>{_link(e.get("file"))}</td></tr>' for e in issues)
        body.append(f"<h2>Problems</h2><table><tr><th>what</th><th>message</th><th>where</th><th>VM</th>"
                    f"<th>snapshot</th></tr>{rows}</table>")
    vms: dict[tuple, list[dict]] = {}
    for snap in evidence.snapshots:
        vm = snap["vm"] or {}
        vms.setdefault((vm.get("vm"), vm.get("pid"), vm.get("main")), []).append(snap)
    starts = {(e["vm"].get("vm"), e["vm"].get("pid"), e["vm"].get("main")) for e in evidence.events
              if e["event"] == "vm-start"}
    for key in sorted(starts | set(vms), key=lambda k: (k[0] or 0)):
        snaps = vms.get(key, [])
        logs = [e for e in evidence.events if e["event"] == "log" and
                (e["vm"].get("vm"), e["vm"].get("pid"), e["vm"].get("main")) == key]
        section = [f'<section class="vm"><h2>VM {esc(key[0])}: {esc(key[2])} (pid {esc(key[1])})</h2>']
        if not snaps and not logs:
            section.append('<div class="type">nothing captured</div>')
        by_test: dict[str, list[dict]] = {}
        for snap in snaps:
            by_test.setdefault(snap["data"].get("test") or "", []).append(snap)
        for test, group in by_test.items():
            if test:
                section.append(f"<h3>Test {esc(test)}</h3>")
            section += [snapshot_html(s) for s in group]
        if logs:
            section.append("<h3>Log lines</h3><pre>" + esc("\n".join(e["line"] for e in logs)) + "</pre>")
        section.append("</section>")
        body.append("".join(section))
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>jdwpd ci: {esc(cmd)}</title>'
            f'<meta name="viewport" content="width=device-width,initial-scale=1"><style>{STYLE}</style></head>'
            f'<body>{head}<main>{"".join(body) or "<p>Nothing was captured.</p>"}</main></body></html>\n')


def _link(file: str | None) -> str:
    if not file:
        return ""
    anchor = file.rsplit("/", 1)[-1].removesuffix(".json")
    return f'<a href="#{esc(anchor)}">{esc(file)}</a>'
