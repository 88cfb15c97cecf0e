"""Class facts read in batches: a walk through the class list (model/class_walk.py), a class's variable tables."""

from __future__ import annotations

import trio
import trio.testing

from jdwpd.daemon.model import class_walk
from jdwpd.daemon.model.class_walk import ClassWalk
from jdwpd.daemon.model.classes import ClassCache
from jdwpd.errors import AgentError
from protocol.link import LinkStatus


def _walk(n: int) -> ClassWalk:
    walk = ClassWalk()
    for ref in range(100, 100 + n):
        walk.listed(ref)
    return walk


def test_nothing_is_read_ahead_until_misses_follow_each_other_in_the_listing() -> None:
    walk = _walk(50)
    everything = lambda ref: True  # noqa: E731
    assert walk.ahead(100, everything) == []
    assert walk.ahead(101, everything) == []
    assert walk.ahead(103, everything) == [104, 105]  # the third, within the window: the walk is on
    assert walk.ahead(106, everything) == [107, 108, 109, 110]  # twice as many each time
    assert walk.ahead(111, everything) == list(range(112, 120))


def test_a_miss_elsewhere_ends_the_walk_and_the_amount_is_bounded(monkeypatch) -> None:
    monkeypatch.setattr(class_walk, "READ_AHEAD_MAX", 4)
    walk = _walk(60)
    everything = lambda ref: True  # noqa: E731
    for ref in (100, 101, 102):
        walk.ahead(ref, everything)
    assert walk.ahead(105, everything) == [106, 107, 108, 109]
    assert walk.ahead(110, everything) == [111, 112, 113, 114]  # capped
    assert walk.ahead(140, everything) == []  # far away: a new walk must begin
    assert walk.ahead(141, everything) == []
    assert walk.ahead(99, everything) == []  # never listed
    assert walk.ahead(142, everything) == []  # the unlisted miss broke the run


def test_the_latest_listing_gives_the_order_and_classes_never_listed_are_not_read() -> None:
    walk = _walk(20)
    for ref in range(119, 99, -1):  # listed again, the other way round
        walk.listed(ref)
    walk.listing_ended()
    everything = lambda ref: True  # noqa: E731
    walk.ahead(119, everything)
    walk.ahead(118, everything)
    assert walk.ahead(117, everything) == [116, 115]
    fresh = ClassWalk()
    assert [fresh.ahead(ref, everything) for ref in (1, 2, 3, 4)] == [[], [], [], []]


async def test_classes_prepared_before_the_listing_follow_the_listing_order() -> None:
    link = BatchLink()
    cache = ClassCache(link)
    for ref in range(100, 120):
        cache.learn(ref, 1, f"LG{ref};")  # ClassPrepare events: no generic signature, no order
    for ref in range(119, 99, -1):
        cache.learn(ref, 1, f"LG{ref};", "")  # then AllClasses, in its own order
    for ref in (119, 118, 117):
        await cache.methods(ref)
    assert link.asked() == [119, 118, 117, 116, 115]


def test_only_wanted_classes_are_read_ahead_and_the_walk_goes_on_after_them() -> None:
    walk = _walk(30)
    odd = lambda ref: ref % 2 == 1  # noqa: E731
    walk.ahead(100, odd)
    walk.ahead(101, odd)
    assert walk.ahead(102, odd) == [103, 105]
    assert walk.ahead(107, odd) == [109, 111, 113, 115]  # 107 is within reach of 105, the last read ahead


class BatchLink:
    """A fake agent with request_many, answering every class with two methods and their lines."""

    def __init__(self, unknown_kind: bool = False) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.writes = 0
        self.unknown_kind = unknown_kind
        self.methods_per_class = 2

    def _answer(self, name: str, fields: dict) -> dict:
        self.calls.append((name, fields))
        if name == "CLASS_METHODS_LINES" and self.unknown_kind:
            raise AgentError(int(LinkStatus.UNKNOWN_KIND), name)
        if name == "METHOD_VARIABLE_TABLE":
            method = fields["method"]
            if method % 10 == 2:
                raise AgentError(101, name)  # ABSENT_INFORMATION: compiled without -g:vars
            return {"arg_slots": 1, "variables": [{"start": 0, "name": f"v{method}", "signature": "I", "generic": "",
                                                   "length": 4, "slot": 0}]}
        ref = fields["ref"]
        if ref == 107:
            raise AgentError(int(LinkStatus.INVALID_ID), name)
        return {"methods": [{"method": ref * 10 + i, "name": f"m{i}", "signature": "()V", "generic": "",
                             "modifiers": 0x101 if i == 3 else 1, "synthetic": False, "lines_status": 0, "start": 0,
                             "end": 4, "lines": [{"index": 0, "line": ref}]} for i in range(self.methods_per_class)]}

    async def request(self, name: str, **fields):
        self.writes += 1
        return self._answer(name, fields)

    async def request_many(self, calls):
        self.writes += 1
        out = []
        for name, fields in calls:
            try:
                out.append(self._answer(name, fields))
            except AgentError as e:
                out.append(e)
        return out

    def asked(self) -> list[int]:
        return [f["ref"] for n, f in self.calls if n.startswith("CLASS_METHODS")]


def _listed_cache(link, n: int = 40) -> ClassCache:
    cache = ClassCache(link)
    for ref in range(100, 100 + n):
        cache.learn(ref, 1, f"LG{ref};", "")
    cache.learn(200, 3, "[LG100;", "")  # an array type: no methods to read
    return cache


async def test_a_walk_through_the_listing_costs_few_round_trips_and_every_fact_is_kept() -> None:
    link = BatchLink()
    cache = _listed_cache(link)
    for ref in range(100, 140):
        if ref == 107:
            continue  # gone meanwhile (read ahead, it failed; that failure is not kept)
        methods = await cache.methods(ref)
        assert [m.method_id for m in methods] == [ref * 10, ref * 10 + 1]
        assert (await cache.line_table(ref * 10 + 1)).lines == ((0, ref),)
        assert cache.known_method(ref * 10).declaring == ref
    assert link.writes < 12  # 39 classes; one round trip each without the read-ahead
    assert sorted(set(link.asked())) == list(range(100, 140))
    assert link.asked().count(107) == 1
    assert not any(n == "METHOD_LINE_TABLE" for n, _ in link.calls)
    assert cache.round_trips == link.writes


async def test_classes_read_ahead_are_forgotten_like_the_others() -> None:
    link = BatchLink()
    cache = _listed_cache(link)
    for ref in (100, 101, 102):
        await cache.methods(ref)
    assert 104 in link.asked()
    cache.redefined([104])
    asked = len(link.calls)
    await cache.methods(104)
    assert len(link.calls) > asked  # fetched again after the redefinition


async def test_an_agent_without_the_message_gets_no_read_ahead() -> None:
    link = BatchLink(unknown_kind=True)
    cache = _listed_cache(link)
    for ref in range(100, 107):
        await cache.methods(ref)
    assert [n for n, _ in link.calls].count("CLASS_METHODS") == 7


async def test_the_first_variable_table_of_a_class_brings_the_others() -> None:
    link = BatchLink()
    link.methods_per_class = 4  # m0, m1, m2 (no variables), m3 (native)
    cache = _listed_cache(link)
    await cache.methods(100)
    writes = link.writes
    assert (await cache.variable_table(1000)).variables[0].name == "v1000"
    assert link.writes == writes + 1
    asked = [f["method"] for n, f in link.calls if n == "METHOD_VARIABLE_TABLE"]
    assert asked == [1000, 1001, 1002]  # not the native one
    assert (await cache.variable_table(1001)).variables[0].name == "v1001"
    for _ in range(2):
        try:
            await cache.variable_table(1002)
            raise AssertionError("absent information expected")
        except AgentError as e:
            assert e.status == 101
    assert link.writes == writes + 1  # all three answered by the one write


async def test_variable_tables_read_with_a_class_redefined_meanwhile_are_not_kept() -> None:
    link = BatchLink()
    cache = _listed_cache(link)
    await cache.methods(100)
    gate = trio.Event()
    many = link.request_many

    async def slow_many(calls):
        await gate.wait()
        return await many(calls)

    link.request_many = slow_many
    async with trio.open_nursery() as nursery:
        nursery.start_soon(cache.variable_table, 1000)
        await trio.testing.wait_all_tasks_blocked()
        cache.redefined([100])
        gate.set()
    await cache.methods(100)
    before = len(link.calls)
    await cache.variable_table(1001)
    assert len(link.calls) > before  # asked again: what came with 1000 was from before the redefinition


def test_an_unloaded_class_ends_the_chain_until_the_next_listing() -> None:
    walk = _walk(10)
    everything = lambda ref: True  # noqa: E731
    walk.forget(103)
    walk.ahead(100, everything)
    walk.ahead(101, everything)
    assert walk.ahead(102, everything) == [103]  # what follows 103 is not known any more
    for ref in (100, 101, 102, 104, 105, 106):  # listed again, without 103
        walk.listed(ref)
    walk.listing_ended()
    assert walk.ahead(104, everything) == []  # 103, where the walk was, leads nowhere now: a new walk
    assert walk.ahead(105, everything) == []
    assert walk.ahead(106, everything) == [107, 108]
