"""The conformance suite driven by JDI: the same JDI program against the reference and against jdwpd.

tests/clients/jdi_conformance walks, mirror by mirror, what a JDI-based IDE uses (VM, types, objects,
threads, every event kind with its filters and suspend policies, and the exceptions JDI turns error
codes into) on tests/java/conformance/JdiConf, printing one ID-free line per observation.  Each
scenario runs once per pytest session under both servers at once; the transcripts are compared
section by section, and the first differing line is shown with its context.  Known differences are
strict xfails (jdi_harness.KNOWN_DIFFERENCES).  The sections' names, and the JDWP commands and
event kinds each section sends and receives (docs/conformance.md's JDI column), are in
jdi_coverage.json, recorded by `python -m tests.conformance.jdi_record`.
"""

from __future__ import annotations

import pytest

from jdwpd.testing import debuggees, jvm
from tests.conformance import harness, jdi_harness, jdi_record
from tests.conformance.jdi_harness import SCENARIOS

pytestmark = pytest.mark.jvm

COVERAGE = jdi_record.load()["scenarios"]
KNOWN_DIFFERENCES = jdi_harness.known_differences_for(harness.java_feature_release())
_RUNS: dict[str, dict[str, jdi_harness.JdiRun]] = {}


@pytest.fixture(scope="session")
def jdi_conformance_classes(sample_classes):
    return debuggees.compile_sources(jdi_harness.CLIENT_SOURCES)


@pytest.fixture
def jdi_runs(jdi_conformance_classes, conf_sde_classes, conf_markers, tmp_path_factory):
    def get(scenario: str) -> dict[str, jdi_harness.JdiRun]:
        if scenario not in _RUNS:
            kinds = ("reference", "jdwpd") if jvm.jdwpd_available() else ("reference",)
            _RUNS[scenario] = jdi_harness.run_pair(scenario, jdi_conformance_classes, conf_sde_classes, conf_markers,
                                                   tmp_path_factory.mktemp("jdi-conformance"), kinds)
        runs = _RUNS[scenario]
        assert runs["reference"].error is None, f"the scenario fails on the reference: {runs['reference'].describe()}"
        if "jdwpd" not in runs:
            pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
        return runs

    return get


def test_every_scenario_is_recorded():
    assert list(COVERAGE) == list(SCENARIOS), "run `python -m tests.conformance.jdi_record`"
    for (scenario, section) in jdi_harness.KNOWN_DIFFERENCES:
        assert section in COVERAGE[scenario]["transcript_sections"], (scenario, section)
    # Each event kind the events scenario receives is printed in the section the table credits it to.
    received = {e for seen in COVERAGE["events"]["recorded"].values() for e in seen["events"]}
    for kind in received:
        assert jdi_harness.EVENT_SECTIONS[kind] in COVERAGE["events"]["transcript_sections"], kind


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_jdi_runs_alike(scenario, jdi_runs):
    """Both ran to the end, through the recorded sections, and the debuggee printed the same (in any order:
    its threads print as they go)."""
    runs = jdi_runs(scenario)
    ref, ours = runs["reference"], runs["jdwpd"]
    want = [s for s in jdi_harness.sections(ref.transcript) if s]
    assert want == COVERAGE[scenario]["transcript_sections"], (
        "the client's sections changed: run `python -m tests.conformance.jdi_record`, then "
        "`python -m tests.conformance.table --write`")
    assert ours.error is None, ours.describe()
    assert [s for s in jdi_harness.sections(ours.transcript) if s] == want
    assert ref.transcript.rstrip().endswith("end") and ours.transcript.rstrip().endswith("end")
    assert sorted(ours.debuggee_stdout.splitlines()) == sorted(ref.debuggee_stdout.splitlines())


def _section_params(known: bool):
    for scenario in SCENARIOS:
        for section in ["", *COVERAGE.get(scenario, {}).get("transcript_sections", [])]:
            reason = KNOWN_DIFFERENCES.get((scenario, section))
            if (reason is not None) != known:
                continue
            strict = (scenario, section) not in jdi_harness.INTERMITTENT
            marks = [pytest.mark.xfail(strict=strict, reason=reason)] if known else []
            yield pytest.param(scenario, section, id=f"{scenario}:{section or '(start)'}", marks=marks)


def _compare(scenario: str, section: str, runs: dict[str, jdi_harness.JdiRun]) -> None:
    want = jdi_harness.sections(runs["reference"].transcript).get(section)
    got = jdi_harness.sections(runs["jdwpd"].transcript).get(section)
    assert want is not None, f"the reference's transcript of {scenario} has no section {section!r}"
    assert got is not None, f"jdwpd's transcript of {scenario} has no section {section!r}\n{runs['jdwpd'].describe()}"
    difference = jdi_harness.first_difference(want, got)
    assert difference is None, f"{scenario}, section {section!r}: {difference}"


@pytest.mark.parametrize("scenario,section", list(_section_params(known=False)))
def test_jdi_section_equal(scenario, section, jdi_runs):
    _compare(scenario, section, jdi_runs(scenario))


@pytest.mark.parametrize("scenario,section", list(_section_params(known=True)))
def test_jdi_known_difference(scenario, section, jdi_runs):
    """A known difference: an unexpected pass means it is fixed (remove it from KNOWN_DIFFERENCES); an
    intermittent one only fails when it shows."""
    _compare(scenario, section, jdi_runs(scenario))


def test_the_reference_sends_nothing_after_exit(jdi_runs):
    """What the intermittent known difference ("vm", "exit") is measured against: the reference, always."""
    assert jdi_harness.sections(jdi_runs("vm")["reference"].transcript)["exit"] == ["  event VMDisconnect", "end"]
