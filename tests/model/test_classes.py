"""ClassCache: sharing of fetches, remembered failures, invalidation; and the pure signature helpers.

The fake link below stands in for the agent only to count and gate round trips: what the
facts *are* is tested against a real JVM in tests/commands.
"""

from __future__ import annotations

import pytest
import trio

from jdwpd.daemon.facade.classes import is_nested_signature
from jdwpd.daemon.model.classes import (
    JVMTI_NATIVE_METHOD,
    ClassCache,
    jdwp_class_status,
    signature_tag,
    split_method_signature,
)
from jdwpd.errors import AgentError, JdwpError
from protocol.constants import ErrorCode
from protocol.link import LinkStatus

ABSENT = int(ErrorCode.ABSENT_INFORMATION)
INVALID_ID = 1002


class GatedLink:
    """Answers from a table; a request whose name is in ``gates`` waits until the gate opens."""

    def __init__(self, answers: dict) -> None:
        self.answers = answers
        self.calls: list[tuple[str, dict]] = []
        self.gates: dict[str, trio.Event] = {}

    async def request(self, name: str, **fields):
        self.calls.append((name, fields))
        gate = self.gates.get(name)
        if gate is not None:
            await gate.wait()
        answer = self.answers[name]
        if callable(answer):
            answer = answer(**fields)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def count(self, name: str) -> int:
        return sum(1 for n, _ in self.calls if n == name)


def sig_answer(ref: int) -> dict:
    if ref == 99:
        return AgentError(INVALID_ID, "CLASS_SIGNATURE")
    return {"ref_kind": 1, "signature": f"LC{ref};", "generic": ""}


RUN = {"method": 21, "name": "run", "signature": "(I[Ljava/lang/String;)V", "generic": "", "modifiers": 1,
       "synthetic": False}
RUN_LINES = {"lines_status": 0, "start": 0, "end": 9, "lines": [{"index": 0, "line": 3}, {"index": 4, "line": 4}]}


def base_answers() -> dict:
    return {
        "CLASS_SIGNATURE": sig_answer,
        "CLASS_FIELDS": {"fields": [
            {"field": 11, "name": "a", "signature": "I", "generic": "", "modifiers": 0x8, "synthetic": False},
            {"field": 12, "name": "this$0", "signature": "LC1;", "generic": "", "modifiers": 0x10, "synthetic": True},
        ]},
        "CLASS_METHODS": {"methods": [RUN]},
        "CLASS_METHODS_LINES": {"methods": [{**RUN, **RUN_LINES}]},
        "CLASS_SOURCE_FILE": AgentError(ABSENT, "CLASS_SOURCE_FILE"),
        "CLASS_SUPERCLASS": lambda ref: {"superclass": 0 if ref == 2 else 2},
        "CLASS_INTERFACES": {"interfaces": []},
        "METHOD_LINE_TABLE": {"start": 0, "end": 9, "lines": [{"index": 0, "line": 3}, {"index": 4, "line": 4}]},
        "METHOD_BYTECODES": {"bytecodes": b"\x00" * 7},
        "CLASS_STATUS": {"status": 7 | 16},
    }


async def test_concurrent_requests_share_one_round_trip():
    link = GatedLink(base_answers())
    link.gates["CLASS_METHODS_LINES"] = gate = trio.Event()
    cache = ClassCache(link)
    results = []

    async def ask():
        results.append(await cache.methods(5))

    async with trio.open_nursery() as nursery:
        for _ in range(5):
            nursery.start_soon(ask)
        await trio.testing.wait_all_tasks_blocked()
        assert link.count("CLASS_METHODS_LINES") == 1
        gate.set()
    assert len(results) == 5 and all(r is results[0] for r in results)
    assert link.count("CLASS_METHODS_LINES") == 1
    assert link.count("CLASS_SIGNATURE") == 1
    assert (await cache.methods(5))[0].name == "run"
    assert link.count("CLASS_METHODS_LINES") == 1


async def test_synthetic_bit_is_folded_into_signed_modifiers():
    cache = ClassCache(GatedLink(base_answers()))
    a, this0 = await cache.fields(1)
    assert a.modifiers == 0x8 and a.is_static
    assert this0.modifiers == 0xF0000010 - (1 << 32)  # signed, as JDWP's int modBits
    assert this0.declaring == 1


async def test_the_same_field_id_in_two_classes_resolves_per_class():
    # HotSpot's instance field ids are offsets: unrelated classes share them.
    answers = base_answers()
    answers["CLASS_FIELDS"] = lambda ref: {"fields": [
        {"field": 31, "name": f"f{ref}", "signature": "D" if ref == 5 else "LC1;", "generic": "", "modifiers": 0,
         "synthetic": False}]}
    answers["CLASS_SUPERCLASS"] = lambda ref: {"superclass": 0}
    cache = ClassCache(GatedLink(answers))
    assert (await cache.find_field(5, 31)).signature == "D"
    assert (await cache.find_field(6, 31)).signature == "LC1;"
    assert (await cache.find_field(5, 31)).name == "f5"


async def test_absent_information_is_remembered_but_invalid_ids_are_not():
    link = GatedLink(base_answers())
    cache = ClassCache(link)
    for _ in range(3):
        with pytest.raises(AgentError) as e:
            await cache.source_file(1)
        assert e.value.status == ABSENT
    assert link.count("CLASS_SOURCE_FILE") == 1
    for _ in range(2):
        with pytest.raises(AgentError):
            await cache.signature(99)
    # class 1 once (for SourceFile's validity check), the unknown id each time it was asked
    assert [f["ref"] for n, f in link.calls if n == "CLASS_SIGNATURE"] == [1, 99, 99]


async def test_null_reference_type_is_invalid_class_without_a_round_trip():
    link = GatedLink(base_answers())
    with pytest.raises(JdwpError) as e:
        await ClassCache(link).signature(0)
    assert e.value.code == ErrorCode.INVALID_CLASS
    assert link.calls == []


async def test_forget_during_a_fetch_discards_its_result():
    answers = base_answers()
    versions = iter(["LOld;", "LNew;"])
    answers["CLASS_SIGNATURE"] = lambda ref: {"ref_kind": 1, "signature": next(versions), "generic": ""}
    link = GatedLink(answers)
    link.gates["CLASS_SIGNATURE"] = gate = trio.Event()
    cache = ClassCache(link)
    seen = []

    async def ask():
        seen.append((await cache.signature(7)).signature)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(ask)
        await trio.testing.wait_all_tasks_blocked()
        cache.forget(7)
        gate.set()
    assert seen == ["LOld;"]  # the caller gets its answer...
    assert (await cache.signature(7)).signature == "LNew;"  # ...but it was not kept
    assert link.count("CLASS_SIGNATURE") == 2


async def test_redefined_drops_members_and_method_tables_but_keeps_the_signature():
    link = GatedLink(base_answers())
    cache = ClassCache(link)
    await cache.methods(1)
    await cache.fields(1)
    assert (await cache.line_table(21)).lines == ((0, 3), (4, 4))
    cache.redefined([1])
    await cache.methods(1)
    await cache.fields(1)
    await cache.line_table(21)
    await cache.signature(1)
    assert link.count("CLASS_METHODS_LINES") == 2
    assert link.count("CLASS_FIELDS") == 2
    assert link.count("METHOD_LINE_TABLE") == 0  # each time, the tables came with the methods
    assert link.count("CLASS_SIGNATURE") == 1


async def test_redefined_drops_a_line_table_fetched_alone():
    link = GatedLink(base_answers())
    cache = ClassCache(link)
    await cache.line_table(21)  # known by id only (a frame), not through its class
    await cache.line_table(21)
    cache.redefined([1])
    await cache.line_table(21)
    assert link.count("METHOD_LINE_TABLE") == 2


async def test_line_table_without_debug_info_keeps_the_code_range():
    answers = base_answers()
    answers["METHOD_LINE_TABLE"] = AgentError(ABSENT, "METHOD_LINE_TABLE")
    cache = ClassCache(GatedLink(answers))
    table = await cache.line_table(21)
    assert (table.start, table.end, table.lines) == (0, 6, ())


async def test_status_is_fetched_every_time_and_loses_jvmti_only_bits():
    link = GatedLink(base_answers())
    cache = ClassCache(link)
    assert await cache.status(3) == 7
    assert await cache.status(3) == 7
    assert link.count("CLASS_STATUS") == 2


async def test_find_field_walks_superclasses():
    answers = base_answers()
    answers["CLASS_FIELDS"] = lambda ref: {"fields": [] if ref == 3 else [
        {"field": 40 + ref, "name": "f", "signature": "J", "generic": "", "modifiers": 0, "synthetic": False}]}
    cache = ClassCache(GatedLink(answers))
    f = await cache.find_field(3, 42)  # declared in 2, the superclass of 3
    assert f.declaring == 2 and f.signature == "J"
    with pytest.raises(JdwpError) as e:
        await cache.find_field(3, 77)
    assert e.value.code == ErrorCode.INVALID_FIELDID


def test_signature_helpers():
    assert split_method_signature("(I[Ljava/lang/String;[[JLx/Y;)V") == (
        ["I", "[Ljava/lang/String;", "[[J", "Lx/Y;"], "V")
    assert split_method_signature("()Ljava/lang/Object;") == ([], "Ljava/lang/Object;")
    assert [chr(signature_tag(s)) for s in ("I", "Lx;", "[I", "Z")] == ["I", "L", "[", "Z"]
    assert jdwp_class_status(16 | 7) == 7 and jdwp_class_status(16) == 0


@pytest.mark.parametrize(
    ("candidate", "nested"),
    [
        ("Lp/Outer$Inner;", True),
        ("Lp/Outer$1;", False),  # anonymous
        ("Lp/Outer$1Local;", True),  # local: the reference reports it
        ("Lp/Outer$Inner$Deeper;", False),
        ("Lp/Outer;", False),
        ("Lp/OuterX$Inner;", False),
        ("Lp/Outer#Hidden;", False),  # another separator: checked on its own
    ],
)
def test_nested_type_rule(candidate, nested):
    assert is_nested_signature("Lp/Outer;", candidate, "$") is nested


async def test_class_unload_by_signature_forgets_that_class_only():
    link = GatedLink(base_answers())
    cache = ClassCache(link)
    cache.learn(8, 1, "LGone;", "")
    cache.learn(9, 1, "LStays;", "")
    await cache.methods(8)
    await cache.line_table(21)
    cache.forget_signature("LGone;")
    assert cache.known_signature(8) is None and cache.known_signature(9) is not None
    assert cache.known_method(21) is None
    await cache.methods(8)
    assert link.count("CLASS_METHODS_LINES") == 2


async def test_class_unloaded_by_id_forgets_that_class_only_even_under_a_shared_name():
    """CLASS_UNLOADED names the dead class by its id: another class of the same name (another loader)
    keeps its facts."""
    link = GatedLink(base_answers())
    cache = ClassCache(link)
    cache.learn(8, 1, "LTwin;", "")
    cache.learn(9, 1, "LTwin;", "")
    await cache.methods(8)
    await cache.line_table(21)
    cache.unloaded(8)
    assert cache.known_signature(8) is None and cache.known_signature(9) is not None
    assert cache.known_method(21) is None
    await cache.methods(8)
    assert link.count("CLASS_METHODS_LINES") == 2


def _method(method_id: int, name: str, modifiers: int, lines: dict) -> dict:
    return {"method": method_id, "name": name, "signature": "()V", "generic": "", "modifiers": modifiers,
            "synthetic": False, **lines}


MUST_POSSESS_CAPABILITY = 99


def methods_of_every_kind() -> dict:
    """A class whose methods have lines, no lines (-g:none), no code (abstract), native code, and one
    whose table the agent could not read for a reason that is not about the method."""
    answers = base_answers()
    answers["CLASS_METHODS_LINES"] = {"methods": [
        _method(31, "lined", 1, RUN_LINES),
        _method(32, "bare", 1, {"lines_status": ABSENT, "start": 0, "end": 6, "lines": []}),
        _method(33, "abstract", 0x401, {"lines_status": ABSENT, "start": -1, "end": -1, "lines": []}),
        _method(34, "native", 0x101, {"lines_status": JVMTI_NATIVE_METHOD, "start": -1, "end": -1, "lines": []}),
        _method(35, "unreadable", 1, {"lines_status": MUST_POSSESS_CAPABILITY, "start": 0, "end": 3, "lines": []}),
    ]}
    return answers


async def test_line_tables_come_with_the_methods():
    answers = methods_of_every_kind()
    answers["METHOD_LINE_TABLE"] = AgentError(MUST_POSSESS_CAPABILITY, "METHOD_LINE_TABLE")
    link = GatedLink(answers)
    cache = ClassCache(link)
    await cache.methods(4)
    assert (await cache.line_table(31)).lines == ((0, 3), (4, 4))
    bare = await cache.line_table(32)
    assert (bare.start, bare.end, bare.lines) == (0, 6, ())  # as the ABSENT_INFORMATION fallback answers
    abstract = await cache.line_table(33)
    assert (abstract.start, abstract.end, abstract.lines) == (-1, -1, ())
    for _ in range(2):
        with pytest.raises(AgentError) as e:
            await cache.line_table(34)
        assert e.value.status == JVMTI_NATIVE_METHOD
    assert link.count("METHOD_LINE_TABLE") == 0 and link.count("METHOD_BYTECODES") == 0
    # A failure that is not a fact about the method is not kept: asked again, alone.
    for _ in range(2):
        with pytest.raises(AgentError):
            await cache.line_table(35)
    assert link.count("METHOD_LINE_TABLE") == 2
    assert link.count("CLASS_METHODS_LINES") == 1


async def test_a_line_table_being_fetched_alone_is_not_overwritten():
    link = GatedLink(base_answers())
    link.answers["METHOD_LINE_TABLE"] = {"start": 0, "end": 9, "lines": [{"index": 0, "line": 77}]}
    link.gates["METHOD_LINE_TABLE"] = gate = trio.Event()
    cache = ClassCache(link)
    seen = []

    async def lines():
        seen.append(await cache.line_table(21))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(lines)
        await trio.testing.wait_all_tasks_blocked()
        await cache.methods(1)  # brings line 3 for the same method while the lone fetch is under way
        gate.set()
    assert seen[0].lines == ((0, 77),)
    assert (await cache.line_table(21)).lines == ((0, 77),)  # the first fetch's answer stands


async def test_line_tables_of_a_class_forgotten_during_the_fetch_are_not_kept():
    link = GatedLink(base_answers())
    link.gates["CLASS_METHODS_LINES"] = gate = trio.Event()
    cache = ClassCache(link)
    cache.learn(1, 1, "LC1;", "")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(cache.methods, 1)
        await trio.testing.wait_all_tasks_blocked()
        cache.redefined([1])
        gate.set()
    await cache.line_table(21)
    assert link.count("METHOD_LINE_TABLE") == 1


async def test_an_agent_without_class_methods_lines_gets_the_old_requests():
    answers = base_answers()
    answers["CLASS_METHODS_LINES"] = AgentError(int(LinkStatus.UNKNOWN_KIND), "CLASS_METHODS_LINES")
    link = GatedLink(answers)
    cache = ClassCache(link)
    assert (await cache.methods(1))[0].name == "run"
    assert (await cache.methods(2))[0].name == "run"
    assert (await cache.line_table(21)).lines == ((0, 3), (4, 4))
    assert link.count("CLASS_METHODS_LINES") == 1  # learned once that this agent lacks it
    assert link.count("CLASS_METHODS") == 2
    assert link.count("METHOD_LINE_TABLE") == 1


async def test_reply_bytes_kept_with_a_fact_go_with_it() -> None:
    link = GatedLink(base_answers())
    cache = ClassCache(link)
    await cache.methods(1)
    await cache.line_table(21)
    cache.keep(1, "reply", b"methods", derived_from="CLASS_METHODS")
    cache.keep(("method", 21), "reply", b"lines", derived_from="lines")
    cache.keep(1, "other", b"x", derived_from="CLASS_FIELDS")  # fields never fetched: nothing to derive from
    assert cache.kept(1, "reply") == b"methods" and cache.kept(("method", 21), "reply") == b"lines"
    assert cache.kept(1, "other") is None
    cache.redefined([1])
    assert cache.kept(1, "reply") is None and cache.kept(("method", 21), "reply") is None
    await cache.methods(1)
    cache.keep(1, "reply", b"again", derived_from="CLASS_METHODS")
    cache.forget_signature("LOther;")  # another class unloaded: nothing of this one goes
    assert cache.kept(1, "reply") == b"again"
    cache.forget(1)  # unloaded
    assert cache.kept(1, "reply") is None


async def test_a_failure_is_not_a_fact_to_derive_bytes_from() -> None:
    answers = base_answers()
    answers["METHOD_LINE_TABLE"] = AgentError(int(ErrorCode.NATIVE_METHOD), "METHOD_LINE_TABLE")
    cache = ClassCache(GatedLink(answers))
    with pytest.raises(AgentError):
        await cache.line_table(21)
    cache.keep(("method", 21), "reply", b"x", derived_from="lines")
    assert cache.kept(("method", 21), "reply") is None
