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
from tests.conformance.registry import known_bugs_for, load_scenarios

pytestmark = pytest.mark.jvm

SCENARIOS = load_scenarios()
KNOWN_BUGS = known_bugs_for(harness.java_feature_release())
_RUNS: dict[str, dict[str, harness.Run]] = {}


# A scenario's debuggee: its class directory and markers, by fixture name.
DEBUGGEES = {"sample": ("sample_classes", "sample_markers"), "conf": ("conf_classes", "conf_markers"),
             "conf_sde": ("conf_sde_classes", "conf_markers"), "nodebug": ("nodebug_classes", "sample_markers")}


@pytest.fixture
def runs_of(request, tmp_path_factory):
    def get(name: str) -> dict[str, harness.Run]:
        if name not in _RUNS:
            scn = SCENARIOS[name]
            classes, markers = (request.getfixturevalue(f) for f in DEBUGGEES[scn.debuggee])
            _RUNS[name] = harness.run_pair(scn, classes, markers, tmp_path_factory.mktemp("conformance"))
        runs = _RUNS[name]
        if "jdwpd" not in runs:
            pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
        return runs

    return get


def _describe(run: harness.Run) -> str:
    return f"{run.kind} stopped with:\n{run.error}\n{run.output[-3000:]}"


def _known(name: str) -> set[str]:
    return {label for (scn, _, label) in KNOWN_BUGS if scn == name}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_runs_alike(name, runs_of):
    """Both servers ran the scenario to its end, through the same requests and events with the same codes
    (known bugs aside)."""
    runs = runs_of(name)
    ref, ours = runs["reference"], runs["jdwpd"]
    assert ref.error is None, f"the scenario fails on the reference itself: {_describe(ref)}"
    known = _known(name)
    labels = [(e.label, e.code) for e in ref.entries if e.label not in known]
    got = [(e.label, e.code) for e in ours.entries if e.label not in known]
    assert ours.error is None and got == labels, (
        f"{_describe(ours) if ours.error else ''}\n--- reference ---\n{pprint.pformat(labels)}\n"
        f"--- jdwpd ---\n{pprint.pformat(got)}")


def _compare(want: list, got: list, what: str, ours: harness.Run) -> None:
    for i, (w, g) in enumerate(zip(want, got, strict=False)):
        assert g == w, f"{what} entry {i} differs\n--- reference ---\n{pprint.pformat(w)}\n--- jdwpd ---\n" \
                       f"{pprint.pformat(g)}"
    assert len(got) == len(want), (
        f"{what}: reference {len(want)} entries, jdwpd {len(got)}\n{_describe(ours) if ours.error else ''}")


@pytest.mark.parametrize("name,item", [pytest.param(n, i, id=f"{n}:{i}")
                                       for n in sorted(SCENARIOS) for i in SCENARIOS[n].items])
def test_item_equal(name, item, runs_of):
    """The entries of one command (or event kind) in one scenario are equal in both transcripts."""
    runs = runs_of(name)
    ref, ours = runs["reference"], runs["jdwpd"]
    known = _known(name)
    want = [e for e in ref.of(item) if e[0] not in known]
    got = [e for e in ours.of(item) if e[0] not in known]
    assert ref.of(item), f"scenario {name} registers {item} but never sent it ({_describe(ref) if ref.error else ''})"
    _compare(want, got, item, ours)


@pytest.mark.parametrize("name,item,label", [
    pytest.param(n, i, label, id=f"{n}:{i}:{label}", marks=pytest.mark.xfail(strict=True, reason=reason))
    for (n, i, label), reason in sorted(KNOWN_BUGS.items())])
def test_known_bug(name, item, label, runs_of):
    """A known difference, entry by entry: an unexpected pass means it is fixed (remove it from KNOWN_BUGS)."""
    runs = runs_of(name)
    want = [e for e in runs["reference"].of(item) if e[0] == label]
    got = [e for e in runs["jdwpd"].of(item) if e[0] == label]
    assert want, f"{name} has no entry {label!r} of {item}"
    _compare(want, got, label, runs["jdwpd"])
