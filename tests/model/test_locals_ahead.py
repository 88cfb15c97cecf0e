"""fast/locals_ahead.py: what is read ahead at a stop, and when it stops holding."""

from __future__ import annotations

from jdwpd.daemon.fast.locals_ahead import LocalsAhead

FRAMES = [{"method": 10, "index": 3}, {"method": 11, "index": 7}, {"method": 12, "index": 0}]
A, B = ((1, ord("I")),), ((0, ord("L")), (2, ord("J")))


def _first_stop(ahead: LocalsAhead, generation: int) -> None:
    ahead.saw_frames(5, generation, FRAMES)
    for depth, slots in ((0, A), (1, B)):
        assert ahead.answer(5, generation, depth, slots) is None
        ahead.plan(5, generation, depth, slots)


def test_nothing_is_read_ahead_before_locations_were_seen_read() -> None:
    ahead = LocalsAhead()
    ahead.saw_frames(5, 1, FRAMES)
    assert ahead.plan(5, 1, 0, A) == [(0, A)]


def test_the_next_stop_reads_every_frame_seen_read_there_in_one_plan() -> None:
    ahead = LocalsAhead()
    _first_stop(ahead, 1)
    ahead.saw_frames(5, 2, FRAMES)
    reads = ahead.plan(5, 2, 0, A)
    assert reads == [(0, A), (1, B)]
    ahead.keep(5, 2, reads[1:], ["frame 1's values"])
    assert ahead.answer(5, 2, 1, B) == "frame 1's values"
    assert ahead.answer(5, 2, 1, B) is None  # once: a second read goes to the VM
    assert ahead.plan(5, 2, 2, A) == [(2, A)]  # read ahead once per stop


def test_other_slots_another_generation_or_a_write_miss() -> None:
    ahead = LocalsAhead()
    _first_stop(ahead, 1)
    ahead.saw_frames(5, 2, FRAMES)
    reads = ahead.plan(5, 2, 0, A)
    ahead.keep(5, 2, reads[1:], ["v"])
    assert ahead.answer(5, 2, 1, A) is None
    assert ahead.answer(5, 3, 1, B) is None
    ahead.forget(5)
    assert ahead.answer(5, 2, 1, B) is None


def test_a_moved_location_is_not_read_ahead() -> None:
    ahead = LocalsAhead()
    _first_stop(ahead, 1)
    ahead.saw_frames(5, 2, [{"method": 10, "index": 3}, {"method": 11, "index": 9}])
    assert ahead.plan(5, 2, 0, A) == [(0, A)]
