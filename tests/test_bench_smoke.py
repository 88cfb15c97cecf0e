"""The benchmark harness runs: one measurement, one repetition, every variant measured (< 30 s)."""

from __future__ import annotations

import json

import pytest

from bench.run import main

pytestmark = pytest.mark.jvm


def test_startup_bench_measures_every_variant(tmp_path, capsys):
    out = tmp_path / "latest.json"
    assert main(["--quick", "--reps", "1", "--only", "startup", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    raw = result["raw"]["startup"]
    assert raw["errors"] == {}, raw["errors"]
    for variant in ("plain", "reference", "jdwpd-agent", "jdwpd-launch"):
        (value,) = raw["variants"][variant]["hello_exit"]
        assert 5 < value < 30_000, (variant, value)
    rows = {(r["num"], r["den"]): r for r in result["ratios"]}
    ratio = rows[("jdwpd-launch", "reference")]
    assert ratio["value"] == pytest.approx(ratio["num_median"] / ratio["den_median"])
    printed = capsys.readouterr().out
    assert "startup.hello_exit" in printed and "jdwpd-launch" in printed


def test_api_and_jdi_benches_measure_every_variant(tmp_path):
    """bench/api.py and bench/jdi_roundtrips.py in their tiny mode: JVMs, the API, the JDI client."""
    out = tmp_path / "latest.json"
    assert main(["--tiny", "--reps", "1", "--only", "api", "--only", "jdi_roundtrips", "--out", str(out)]) == 0
    raw = json.loads(out.read_text())["raw"]
    for name, metrics in (("api", ("hit_resume", "snapshot", "snapshot_first")),
                          ("jdi_roundtrips", ("thread_name", "thread_status", "all_threads", "all_classes_first",
                                              "all_classes", "frames_first", "frames_next", "handshake",
                                              "first_reply"))):
        assert raw[name]["errors"] == {}, raw[name]["errors"]
        for variant, values in raw[name]["variants"].items():
            for metric in metrics:
                (value,) = values[metric]
                assert 0 < value < 60_000, (name, variant, metric, value)
