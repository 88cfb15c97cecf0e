import pytest

from jdwpd.daemon.model.requests import ACCEPTED_KINDS, EventRequest, Modifier, RequestTable, check_modifier
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode, EventKind, ModKind


def _code(event_kind, mod):
    try:
        check_modifier(event_kind, mod)
    except JdwpError as e:
        return e.code
    return 0


def test_modifier_rules_follow_the_reference():
    loc = Modifier(ModKind.LOCATION_ONLY, {"location": None})
    assert _code(EventKind.BREAKPOINT, loc) == 0
    assert _code(EventKind.METHOD_ENTRY, loc) == ErrorCode.ILLEGAL_ARGUMENT
    assert _code(EventKind.THREAD_START, Modifier(ModKind.CLASS_MATCH, {"pattern": "x"})) == ErrorCode.ILLEGAL_ARGUMENT
    assert _code(EventKind.CLASS_UNLOAD, Modifier(ModKind.THREAD_ONLY, {"thread": 1})) == ErrorCode.ILLEGAL_ARGUMENT
    assert _code(EventKind.CLASS_PREPARE, Modifier(ModKind.SOURCE_NAME_MATCH, {"pattern": "*.java"})) == 0
    assert _code(EventKind.BREAKPOINT, Modifier(ModKind.SOURCE_NAME_MATCH, {"pattern": "x"})) == 103
    assert _code(EventKind.BREAKPOINT, Modifier(ModKind.COUNT, {"count": 0})) == ErrorCode.INTERNAL
    assert _code(EventKind.BREAKPOINT, Modifier(77)) == ErrorCode.ILLEGAL_ARGUMENT
    assert _code(EventKind.SINGLE_STEP, Modifier(ModKind.STEP, {"thread": 1, "size": 0, "depth": 0})) == 0
    assert _code(EventKind.BREAKPOINT, Modifier(ModKind.STEP, {"thread": 1, "size": 0, "depth": 0})) == 103


def test_breakpoints_and_watchpoints_need_their_modifier():
    from jdwpd.daemon.model.requests import check_request
    with pytest.raises(JdwpError) as e:
        check_request(EventKind.BREAKPOINT, [Modifier(ModKind.COUNT, {"count": 1})])
    assert e.value.code == ErrorCode.INTERNAL
    with pytest.raises(JdwpError):
        check_request(EventKind.FIELD_ACCESS, [])
    check_request(EventKind.BREAKPOINT, [Modifier(ModKind.LOCATION_ONLY, {"location": None})])
    check_request(EventKind.CLASS_PREPARE, [])


def test_user_defined_is_not_accepted():
    for kind in (EventKind.USER_DEFINED, EventKind.FRAME_POP, EventKind.CLASS_LOAD, EventKind.EXCEPTION_CATCH):
        assert kind not in ACCEPTED_KINDS
    assert EventKind.VM_DEATH in ACCEPTED_KINDS


def test_table_ids_are_unique_and_clear_looks_in_the_kinds_table():
    table = RequestTable()
    a, b = object(), object()
    r1 = table.new_request(a, EventKind.BREAKPOINT, 2)
    r2 = table.new_request(b, EventKind.METHOD_EXIT_WITH_RETURN_VALUE, 0)
    table.add(r1)
    table.add(r2)
    assert r1.agent_id != r2.agent_id
    assert r1.request_id == r2.request_id == 2  # each session counts from 2, as the reference after attach
    assert table.get(r2.agent_id) is r2
    assert table.find(a, EventKind.BREAKPOINT, r1.request_id) is r1
    assert table.find(a, EventKind.SINGLE_STEP, r1.request_id) is None
    assert table.find(b, EventKind.BREAKPOINT, r1.request_id) is None  # not b's
    assert table.find(b, EventKind.METHOD_EXIT, r2.request_id) is r2
    assert table.owned_by(a) == [r1]
    assert table.forget_owner(a) == [r1]
    assert table.new_request(a, EventKind.BREAKPOINT, 0).request_id == 2


def test_jdwp_ids_count_up_per_session():
    table = RequestTable()
    a = object()
    assert [table.new_request(a, EventKind.CLASS_PREPARE, 0).request_id for _ in range(3)] == [2, 3, 4]


def test_agent_fields_carry_modifiers():
    r = EventRequest(9, 5, EventKind.CLASS_PREPARE, 1, (Modifier(ModKind.CLASS_MATCH, {"pattern": "a.*"}),))
    f = r.agent_fields()
    assert f["modifiers"] == [{"mod_kind": 5, "args": {"pattern": "a.*"}}]
    assert f["request_id"] == 9 and f["suspend_policy"] == 1  # the agent sees the global id


def test_requests_the_reference_accepts_and_never_fires():
    from jdwpd.daemon.model.requests import is_inert, suspension

    step = Modifier(ModKind.STEP, {"thread": 1, "size": 1, "depth": 0})
    assert not is_inert(EventKind.SINGLE_STEP, [step])
    assert is_inert(EventKind.SINGLE_STEP, [])
    assert is_inert(EventKind.SINGLE_STEP, [Modifier(ModKind.STEP, {"thread": 1, "size": 7, "depth": 0})])
    assert is_inert(EventKind.SINGLE_STEP, [Modifier(ModKind.STEP, {"thread": 1, "size": 0, "depth": 7})])
    assert is_inert(EventKind.METHOD_ENTRY, [Modifier(ModKind.INSTANCE_ONLY, {"object": 0})])
    assert not is_inert(EventKind.METHOD_ENTRY, [Modifier(ModKind.INSTANCE_ONLY, {"object": 5})])
    assert [suspension(p) for p in (0, 1, 2, 7)] == [0, 1, 2, 0]
