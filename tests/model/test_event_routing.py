from jdwpd.daemon.events import route
from jdwpd.daemon.model.requests import RequestTable
from protocol.constants import EventKind, SuspendPolicy, TypeTag
from protocol.link import LinkLocation
from protocol.messages import Events
from protocol.wire import Location

A, B = "a", "b"
LOC = LinkLocation(1, 100, 200, 7)


def _hit(req, kind=EventKind.BREAKPOINT, data=None):
    return {"request_id": req.agent_id, "event_kind": int(kind), "data": data or {"location": LOC}}


def _table(*specs):
    t = RequestTable()
    reqs = []
    for owner, kind, policy in specs:
        r = t.new_request(owner, kind, policy)
        t.add(r)
        reqs.append(r)
    return t, reqs


def test_one_hit_per_session_with_its_own_strongest_policy():
    t, (ra, rb, rb2) = _table((A, EventKind.BREAKPOINT, SuspendPolicy.ALL),
                              (B, EventKind.BREAKPOINT, SuspendPolicy.NONE),
                              (B, EventKind.BREAKPOINT, SuspendPolicy.EVENT_THREAD))
    body = {"thread": 5, "suspend_policy": SuspendPolicy.ALL, "hits": [_hit(ra), _hit(rb), _hit(rb2)]}
    r = route(body, t)
    assert [(c.session, c.suspend_policy, len(c.events)) for c in r.composites] == [(A, 2, 1), (B, 1, 2)]
    ev = r.composites[0].events[0]
    assert ev == Events.Breakpoint(request_id=ra.request_id, thread=5, location=Location(1, 100, 200, 7))
    # the agent's ALL suspension belongs to A; B asked for its own thread suspension
    assert r.attributed.session == A and r.attributed.policy == SuspendPolicy.ALL
    assert [(s.session, s.policy, s.thread) for s in r.extra] == [(B, SuspendPolicy.EVENT_THREAD, 5)]
    assert r.orphaned is None


def test_cleared_request_leaves_an_orphaned_suspension():
    t, (ra,) = _table((A, EventKind.BREAKPOINT, SuspendPolicy.EVENT_THREAD))
    t.remove(ra.agent_id)
    r = route({"thread": 5, "suspend_policy": 1, "hits": [_hit(ra)]}, t)
    assert r.composites == () and r.attributed is None
    assert r.orphaned.policy == SuspendPolicy.EVENT_THREAD and r.orphaned.thread == 5


def test_no_suspension_no_bookkeeping():
    t, (ra,) = _table((A, EventKind.THREAD_START, SuspendPolicy.NONE))
    r = route({"thread": 9, "suspend_policy": 0, "hits": [_hit(ra, EventKind.THREAD_START, {})]}, t)
    assert r.composites[0].events == (Events.ThreadStart(request_id=2, thread=9),)
    assert r.attributed is None and r.extra == () and r.orphaned is None


def test_vm_death_lists_newest_request_first():
    t, (r1, r2) = _table((A, EventKind.VM_DEATH, 0), (A, EventKind.VM_DEATH, 1))
    r = route({"thread": 0, "suspend_policy": 1, "hits": [_hit(r1, EventKind.VM_DEATH, {}),
                                                          _hit(r2, EventKind.VM_DEATH, {})]}, t)
    assert [e.request_id for e in r.composites[0].events] == [3, 2]


def test_uncaught_exception_catch_location_is_a_null_class_location():
    t, (ra,) = _table((A, EventKind.EXCEPTION, 0))
    from protocol.link import Tagged
    data = {"location": LOC, "exception": Tagged(ord("L"), 77), "catch_location": LinkLocation(0, 0, 0, 0)}
    ev = route({"thread": 3, "suspend_policy": 0, "hits": [_hit(ra, EventKind.EXCEPTION, data)]}, t)
    e = ev.composites[0].events[0]
    assert e.catch_location == Location(int(TypeTag.CLASS), 0, 0, 0)
    assert e.exception.object_id == 77


def test_a_native_method_location_keeps_its_index_of_minus_one():
    from jdwpd.daemon.events import jdwp_location

    assert jdwp_location(LinkLocation(1, 5, 6, (1 << 64) - 1)).index == -1
    assert jdwp_location(LinkLocation(1, 5, 6, 42)).index == 42


def test_an_unknown_suspend_policy_is_reported_and_suspends_nothing():
    t, (ra, rb) = _table((A, EventKind.BREAKPOINT, 7), (B, EventKind.BREAKPOINT, SuspendPolicy.EVENT_THREAD))
    r = route({"thread": 5, "suspend_policy": SuspendPolicy.EVENT_THREAD, "hits": [_hit(ra), _hit(rb)]}, t)
    assert [(c.session, c.suspend_policy) for c in r.composites] == [(A, 7), (B, SuspendPolicy.EVENT_THREAD)]
    assert r.attributed.session == B and r.extra == ()
    assert ra.agent_fields()["suspend_policy"] == 0
