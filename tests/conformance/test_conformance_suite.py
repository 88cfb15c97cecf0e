"""The differential conformance suite: every registered (scenario, item) compared, reference vs jdwpd.

Each scenario runs once per pytest session, under both servers at once (see harness.run_pair); the
tests below then compare its transcripts: the whole sequence of labels per scenario, and the
entries of each command or event kind on their own, so that one difference fails the items it
touches and says which.
"""

from __future__ import annotations

import pprint

import pytest

from jdwpd.testing import jvm
from tests.conformance import harness
from tests.conformance.registry import KNOWN_BUGS, load_scenarios

pytestmark = pytest.mark.jvm

SCENARIOS = load_scenarios()
_RUNS: dict[str, dict[str, harness.Run]] = {}


@pytest.fixture
def runs_of(request, sample_classes, sample_markers, conf_classes, conf_markers, tmp_path_factory):
    def get(name: str) -> dict[str, harness.Run]:
        if name not in _RUNS:
            scn = SCENARIOS[name]
            classes, markers = ((sample_classes, sample_markers) if scn.debuggee == "sample"
                                else (conf_classes, conf_markers))
            _RUNS[name] = harness.run_pair(scn, classes, markers, tmp_path_factory.mktemp("conformance"))
        runs = _RUNS[name]
        if "jdwpd" not in runs:
            pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
        return runs

    return get


def _describe(run: harness.Run) -> str:
    return f"{run.kind} stopped with:\n{run.error}\n{run.output[-3000:]}"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_runs_alike(name, runs_of):
    """Both servers ran the scenario to its end, through the same sequence of requests and events."""
    runs = runs_of(name)
    ref, ours = runs["reference"], runs["jdwpd"]
    assert ref.error is None, f"the scenario fails on the reference itself: {_describe(ref)}"
    labels = [(e.label, e.code) for e in ref.entries]
    got = [(e.label, e.code) for e in ours.entries]
    assert ours.error is None and got == labels, (
        f"{_describe(ours) if ours.error else ''}\n--- reference ---\n{pprint.pformat(labels)}\n"
        f"--- jdwpd ---\n{pprint.pformat(got)}")


def _item_params():
    for name in sorted(SCENARIOS):
        for item in SCENARIOS[name].items:
            bug = KNOWN_BUGS.get((name, item))
            marks = [pytest.mark.xfail(strict=True, reason=bug)] if bug else []
            yield pytest.param(name, item, id=f"{name}:{item}", marks=marks)


@pytest.mark.parametrize("name,item", list(_item_params()))
def test_item_equal(name, item, runs_of):
    """The entries of one command (or event kind) in one scenario are equal in both transcripts."""
    runs = runs_of(name)
    ref, ours = runs["reference"], runs["jdwpd"]
    want, got = ref.of(item), ours.of(item)
    assert want, f"scenario {name} registers {item} but never sent it ({_describe(ref) if ref.error else ''})"
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        assert g == w, f"{item} entry {i} differs\n--- reference ---\n{pprint.pformat(w)}\n--- jdwpd ---\n" \
                       f"{pprint.pformat(g)}"
    assert len(got) == len(want), (
        f"{item}: reference {len(want)} entries, jdwpd {len(got)}\n{_describe(ours) if ours.error else ''}")
