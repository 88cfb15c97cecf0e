"""The fast path's one switch (jdwpd/daemon/fast/settings.py): JDWPD_FAST's forms, and its refusals."""

from __future__ import annotations

import pytest

from jdwpd.daemon.fast.settings import FastSettings


def test_unset_and_on_are_the_defaults():
    assert FastSettings.parse("") == FastSettings.parse("on") == FastSettings()
    assert FastSettings() == FastSettings(memo=True, lane_after_hits=2, spin_us=150, warmup=True, push_stops=True)


def test_off_turns_off_every_mechanism_with_a_slower_twin():
    off = FastSettings.parse("off")
    assert (off.memo, off.lane, off.spin_us, off.warmup, off.push_stops) == (False, False, 0, False, False)


def test_items_change_one_field_over_what_comes_before_them():
    assert FastSettings.parse("off,spin_us=150") == FastSettings(memo=False, spin_us=150, warmup=False,
                                                                 push_stops=False)
    assert FastSettings.parse("push_stops=off") == FastSettings(push_stops=False)
    assert FastSettings.parse("lane_after_hits=0") == FastSettings(lane_after_hits=0)
    assert FastSettings.parse(" memo = off , warmup=0") == FastSettings(memo=False, warmup=False)


@pytest.mark.parametrize("text", ["fast", "memo", "memo=maybe", "spin_us=-1", "spin_us=a", "lane=0"])
def test_a_typo_fails_loudly_rather_than_measuring_the_default(text):
    with pytest.raises(ValueError):
        FastSettings.parse(text)
