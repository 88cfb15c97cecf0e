
from jdwpd.errors import JdwpError
from jdwpd.model.requests import ACCEPTED_KINDS, EventRequest, Modifier, RequestTable, check_modifier
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
    assert _code(EventKind.BREAKPOINT, Modifier(ModKind.COUNT, {"count": 0})) == ErrorCode.INVALID_COUNT
    assert _code(EventKind.BREAKPOINT, Modifier(77)) == ErrorCode.ILLEGAL_ARGUMENT
    assert _code(EventKind.SINGLE_STEP, Modifier(ModKind.STEP, {"thread": 1, "size": 0, "depth": 0})) == 0
    assert _code(EventKind.BREAKPOINT, Modifier(ModKind.STEP, {"thread": 1, "size": 0, "depth": 0})) == 103


def test_user_defined_is_not_accepted():
    assert EventKind.USER_DEFINED not in ACCEPTED_KINDS
    assert EventKind.VM_DEATH in ACCEPTED_KINDS


def test_table_ids_are_unique_and_clear_looks_in_the_kinds_table():
    table = RequestTable()
    a, b = object(), object()
    r1 = EventRequest(table.allocate_id(), EventKind.BREAKPOINT, 2, owner=a)
    r2 = EventRequest(table.allocate_id(), EventKind.METHOD_EXIT_WITH_RETURN_VALUE, 0, owner=b)
    table.add(r1)
    table.add(r2)
    assert r1.request_id != r2.request_id
    assert table.find(a, EventKind.BREAKPOINT, r1.request_id) is r1
    assert table.find(a, EventKind.SINGLE_STEP, r1.request_id) is None
    assert table.find(b, EventKind.BREAKPOINT, r1.request_id) is None  # not b's
    assert table.find(b, EventKind.METHOD_EXIT, r2.request_id) is r2
    assert table.owned_by(a) == [r1]


def test_agent_fields_carry_modifiers():
    r = EventRequest(5, EventKind.CLASS_PREPARE, 1, (Modifier(ModKind.CLASS_MATCH, {"pattern": "a.*"}),))
    f = r.agent_fields()
    assert f["modifiers"] == [{"mod_kind": 5, "args": {"pattern": "a.*"}}]
    assert f["request_id"] == 5 and f["suspend_policy"] == 1
