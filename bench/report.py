"""Print a results JSON (python -m bench's output) as the Markdown table docs/performance.md carries.

    python -m bench.report [bench/results/latest.json ...]

Several files: their rows are merged in order (a later file's row for the same ratio wins), so a
measurement re-run alone can update one part of a full run's table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .common import BENCH


def _num(x) -> str:
    return "-" if x is None else f"{x:.4g}"


def _noise(s) -> str:
    return "" if s is None else f" ±{s * 50:.0f}%"


def markdown(rows: list[dict]) -> str:
    out = ["| metric | unit | jdwpd side | median | baseline | median | result | target | met |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["kind"] == "delta_ms":
            result = "-" if r["value"] is None else f"{r['value']:+.1f} ms"
            target = f"≤ +{r['limit']:g} ms"
        else:
            result = "-" if r["value"] is None else f"**{r['value']:.2f}**"
            target = f"≤ {r['limit']:g}"
        met = {True: "yes", False: "no", None: "failed" if r["failed"] else "-"}[r["ok"]]
        out.append(f"| {r['measurement']}.{r['metric']} | {r['unit']} | {r['num']} | "
                   f"{_num(r['num_median'])}{_noise(r['num_spread'])} | {r['den']} | "
                   f"{_num(r['den_median'])}{_noise(r['den_spread'])} | {result} | {target} | {met} |")
    return "\n".join(out)


def merged_rows(paths: list[Path]) -> tuple[list[dict], list[str]]:
    rows: dict[tuple, dict] = {}
    about = []
    for p in paths:
        data = json.loads(p.read_text())
        about.append(f"{p.name}: {data['jdk']}, {data['reps']} repetitions, {data['started']} UTC")
        for r in data["ratios"]:
            rows[(r["measurement"], r["metric"], r["num"], r["den"])] = r
    return list(rows.values()), about


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    paths = [Path(a) for a in args] or [BENCH / "results" / "latest.json"]
    rows, about = merged_rows(paths)
    print(markdown(rows))
    print()
    for line in about:
        print(f"- {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
