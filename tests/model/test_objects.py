from jdwpd.daemon.model.objects import ObjectRefs


def test_dispose_releases_only_when_no_session_holds_the_id():
    refs = ObjectRefs()
    refs.sent("a", [10, 10, 11])
    refs.sent("b", [10])
    assert refs.disposed("a", 10, 1) is False
    assert refs.disposed("a", 10, 1) is False  # b still holds it
    assert refs.disposed("b", 10, 1) is True
    assert refs.disposed("a", 11, 5) is True
    assert refs.disposed("a", 12, 1) is False  # never counted: kept


def test_leaving_session_returns_pins_and_orphans():
    refs = ObjectRefs()
    refs.pinned("a", 7)
    refs.pinned("a", 7)
    refs.pinned("b", 8)
    refs.sent("a", [7, 9])
    refs.sent("b", [9])
    assert refs.unpinned("b", 7) is False
    pins, orphans = refs.forget_session("a")
    assert pins == {7: 2}
    assert orphans == [7]
    assert refs.pins_of("b") == {8: 1}


def test_counts_per_session_and_released_ids_lose_their_pins():
    refs = ObjectRefs()
    refs.sent("a", [5, 5, 6])
    assert (refs.count("a", 5), refs.count("a", 6), refs.count("b", 5)) == (2, 1, 0)
    refs.pinned("a", 5)
    refs.pinned("b", 5)
    assert refs.disposed("a", 5, 2) is True  # b pinned it but never received it: it holds no count
    refs.released([5])
    assert refs.pins_of("a") == {} and refs.pins_of("b") == {}
    assert refs.unpinned("a", 5) is False  # EnableCollection of a released id: nothing to undo
    assert refs.count("a", 5) == 0
