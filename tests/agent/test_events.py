"""Filters, events, suspension, stepping and invoke against a real JVM (tests/agent/java/Target.java)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest
import trio
from agent_support import Jvm, run_jvm

from jdwpd.errors import AgentError, AgentLinkClosed
from jdwpd.testing.debuggees import javac_argv
from protocol import link as L

pytestmark = pytest.mark.jvm
BREAKPOINT, SINGLE_STEP, EXCEPTION, CLASS_PREPARE, VM_START, VM_DEATH = 2, 1, 4, 8, 90, 99
NONE, EVENT_THREAD, ALL = 0, 1, 2
LINE, MIN = 1, 0
INTO, OVER, OUT = 0, 1, 2


def loc_mod(loc: L.LinkLocation) -> dict:
    return {"mod_kind": 7, "args": {"location": loc}}


async def set_request(jvm: Jvm, request_id: int, kind: int, policy: int, *mods: dict) -> None:
    await jvm.request("SET_REQUEST", request_id=request_id, event_kind=kind, suspend_policy=policy,
                      modifiers=list(mods))


async def line_at(jvm: Jvm, loc: L.LinkLocation) -> tuple[str, int]:
    """(method name, source line) of a location."""
    methods = (await jvm.request("CLASS_METHODS", ref=loc.ref))["methods"]
    name = next(m["name"] for m in methods if m["method"] == loc.method)
    try:
        table = (await jvm.request("METHOD_LINE_TABLE", method=loc.method))["lines"]
    except AgentError as e:
        if e.status == 104:  # JVMTI NATIVE_METHOD
            return name, -1
        raise
    line = max((e for e in table if e["index"] <= loc.index), key=lambda e: e["index"])["line"]
    return name, line


@contextlib.asynccontextmanager
async def target_jvm(agent_so, classes, **options) -> AsyncIterator[tuple[Jvm, int, int]]:
    """Target's JVM, ready: (jvm, Target's class id, main's thread id)."""
    async with run_jvm(agent_so, classes, **options) as jvm:
        await jvm.expect("ready")
        yield jvm, await jvm.class_id("LTarget;"), await jvm.thread_named("main")


async def parked_at_event(jvm: Jvm, thread: int) -> dict:
    """The thread's status, asserted suspended once, parked by its event."""
    status = await jvm.request("THREAD_STATUS", thread=thread)
    assert status["suspend_count"] == 1 and status["at_event"] is True
    return status


async def no_event(jvm: Jvm, within: float = 0.3) -> None:
    with trio.move_on_after(within):
        msg = await jvm.link.events.receive()
        raise AssertionError(f"unexpected event {msg}")


async def test_breakpoint_count_thread_only_and_locals(agent_so, classes, lines):
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        other = await jvm.thread_named("Reference Handler")
        loc = await jvm.location_of_line(target, "add", lines["ADD_1"])
        await set_request(jvm, 10, BREAKPOINT, EVENT_THREAD, {"mod_kind": 1, "args": {"count": 3}}, loc_mod(loc))
        await set_request(jvm, 11, BREAKPOINT, EVENT_THREAD, {"mod_kind": 3, "args": {"thread": other}}, loc_mod(loc))
        stats = {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}
        assert stats["breakpoints"] == 1 and stats["filters"] == 2  # one physical breakpoint, two filters
        await jvm.send("run 5")
        ev = await jvm.event()
        assert ev["thread"] == main and ev["suspend_policy"] == EVENT_THREAD
        assert [(h["request_id"], h["event_kind"]) for h in ev["hits"]] == [(10, BREAKPOINT)]
        assert ev["hits"][0]["data"]["location"] == loc
        status = await parked_at_event(jvm, main)
        # Parked in the callback it looks like the reference's event-suspended thread: alive, runnable, suspended.
        assert status["state"] & 0x1 and status["state"] & 0x4 and status["state"] & 0x100000
        assert not status["state"] & (0x80 | 0x400)  # neither waiting nor blocked on a monitor
        frames = (await jvm.request("THREAD_FRAMES", thread=main, start=0, length=2))["frames"]
        assert (frames[0]["method"], frames[0]["index"]) == (loc.method, loc.index)
        assert await line_at(jvm, L.LinkLocation(1, frames[1]["ref"], frames[1]["method"], frames[1]["index"])) == \
            ("run", lines["RUN_2"])
        # Third call: i == 2, so add(20, 1).
        values = (await jvm.request("FRAME_GET_LOCALS", thread=main, depth=0,
                                    slots=[{"slot": 1, "tag": ord("I")}, {"slot": 2, "tag": ord("I")}]))["values"]
        assert [v["value"].value for v in values] == [20, 1]
        this = (await jvm.request("FRAME_THIS", thread=main, depth=0))["object"]
        assert this.kind == L.ObjectKind.OBJECT and this.object != 0
        await jvm.request("FRAME_SET_LOCALS", thread=main, depth=0,
                          values=[{"slot": 2, "value": L.LinkValue(ord("I"), 1000)}])
        await jvm.request("THREAD_RESUME", thread=main)
        # Count expired: no more events; the change to b shows in the counter.
        out = await jvm.expect("ok run")
        await no_event(jvm)
        # counter = 7 + sum(twice(10*i + 1)) for i < 5, plus twice(+999) for the patched call.
        assert int(out.split()[-1]) == 7 + sum(2 * (10 * i + 1) for i in range(5)) + 2 * 999
        stats = {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}
        assert stats["filters"] == 1 and stats["breakpoints"] == 1
        await jvm.request("CLEAR_REQUEST", request_id=11)
        stats = {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}
        assert stats["filters"] == 0 and stats["breakpoints"] == 0


async def test_two_requests_one_composite_and_suspend_all(agent_so, classes, lines):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        target = await jvm.class_id("LTarget;")
        loc = await jvm.location_of_line(target, "twice", lines["TWICE"])
        await set_request(jvm, 1, BREAKPOINT, NONE, loc_mod(loc))
        await set_request(jvm, 2, BREAKPOINT, ALL, loc_mod(loc), {"mod_kind": 5, "args": {"pattern": "Tar*"}})
        await set_request(jvm, 3, BREAKPOINT, EVENT_THREAD, loc_mod(loc), {"mod_kind": 6, "args": {"pattern": "*get"}})
        await jvm.send("run 1")
        ev = await jvm.event()
        assert sorted(h["request_id"] for h in ev["hits"]) == [1, 2]
        assert ev["suspend_policy"] == ALL
        other = await jvm.thread_named("Reference Handler")
        assert (await jvm.request("THREAD_STATUS", thread=other))["suspend_count"] == 1
        await jvm.request("RESUME_ALL")
        await jvm.expect("ok run")
        assert (await jvm.request("THREAD_STATUS", thread=other))["suspend_count"] == 0
        stats = {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}
        assert stats["events_enabled"] == 1  # BREAKPOINT only
        await jvm.request("CLEAR_ALL_REQUESTS")
        stats = {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}
        assert stats["filters"] == 0 and stats["breakpoints"] == 0 and stats["suspend_all_depth"] == 0
        assert stats["events_enabled"] == 0  # idle again: nothing but VMInit/VMDeath


async def test_class_prepare_with_pattern(agent_so, classes):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        await set_request(jvm, 7, CLASS_PREPARE, EVENT_THREAD, {"mod_kind": 5, "args": {"pattern": "*Late"}})
        await jvm.send("load")
        ev = await jvm.event()
        hit = ev["hits"][0]
        assert hit["request_id"] == 7 and hit["event_kind"] == CLASS_PREPARE
        assert hit["data"]["signature"] == "LLate;" and hit["data"]["ref_kind"] == L.RefKind.CLASS
        assert hit["data"]["status"] & 0x2  # prepared
        assert (await jvm.request("CLASS_SIGNATURE", ref=hit["data"]["ref"]))["signature"] == "LLate;"
        with pytest.raises(trio.TooSlowError):
            await jvm.expect("ok load", timeout=0.3)
        await jvm.request("THREAD_RESUME", thread=ev["thread"])
        await jvm.expect("ok load")


async def step(jvm: Jvm, thread: int, size: int, depth: int, request_id: int = 50) -> L.LinkLocation:
    await set_request(jvm, request_id, SINGLE_STEP, EVENT_THREAD,
                      {"mod_kind": 10, "args": {"thread": thread, "size": size, "depth": depth}})
    await jvm.request("THREAD_RESUME", thread=thread)
    ev = await jvm.event()
    assert ev["thread"] == thread
    hit = next(h for h in ev["hits"] if h["event_kind"] == SINGLE_STEP)
    await jvm.request("CLEAR_REQUEST", request_id=request_id)
    return hit["data"]["location"]


@pytest.mark.parametrize("profile", ["full", "nothrow"])
async def test_step_into_over_out(agent_so, classes, lines, profile):
    async with target_jvm(agent_so, classes, options={"profile": profile}) as (jvm, target, main):
        run_2 = await jvm.location_of_line(target, "run", lines["RUN_2"])
        await set_request(jvm, 1, BREAKPOINT, EVENT_THREAD, loc_mod(run_2), {"mod_kind": 1, "args": {"count": 1}})
        await jvm.send("run 2")
        assert (await jvm.event())["hits"][0]["request_id"] == 1
        assert await line_at(jvm, await step(jvm, main, LINE, INTO)) == ("add", lines["ADD_1"])
        assert await line_at(jvm, await step(jvm, main, LINE, OVER)) == ("add", lines["ADD_2"])
        assert await line_at(jvm, await step(jvm, main, LINE, OUT)) == ("run", lines["RUN_2"])
        assert await line_at(jvm, await step(jvm, main, LINE, OVER)) == ("run", lines["RUN_3"])
        assert await line_at(jvm, await step(jvm, main, LINE, OVER)) == ("run", lines["RUN_4"])
        loc = await step(jvm, main, MIN, INTO)
        name, line = await line_at(jvm, loc)
        assert name == "run" and line == lines["RUN_4"]
        # Stepping over the end of a method stops in its caller.
        assert (await line_at(jvm, await step(jvm, main, LINE, OVER)))[0] == "run"
        assert await line_at(jvm, await step(jvm, main, LINE, OVER)) == ("main", lines["RUN_LOOP"])
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.expect("ok run")
        # Step over a call that throws and is caught in the stepping frame.
        await set_request(jvm, 2, BREAKPOINT, EVENT_THREAD,
                          loc_mod(await jvm.location_of_line(target, "catcher", lines["CATCH_CALL"])))
        await jvm.send("catch")
        await jvm.event()
        # javac puts the handler's first instruction (storing the exception) on the catch clause's line, but
        # a step the exception carries there never stops on it (the reference's step machine turns
        # single-step on at the handler's entry, whose own step HotSpot then does not post): with frame-pop
        # and exception events (full) or stepping through (nothrow), the next line is the first stop.
        assert await line_at(jvm, await step(jvm, main, LINE, OVER)) == ("catcher", lines["CAUGHT"])
        await jvm.request("CLEAR_ALL_REQUESTS")
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.expect("ok catch")


async def test_step_into_is_filtered_by_class_exclude(agent_so, classes, lines):
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        load = await jvm.location_of_line(target, "main", lines["LOAD"])
        await set_request(jvm, 1, BREAKPOINT, EVENT_THREAD, loc_mod(load))
        await jvm.send("load")
        await jvm.event()
        await jvm.request("CLEAR_REQUEST", request_id=1)
        # INTO from `new Late().touch()`: class loading code (java.*) is excluded; the step lands in Late.
        await set_request(jvm, 9, SINGLE_STEP, EVENT_THREAD,
                          {"mod_kind": 10, "args": {"thread": main, "size": LINE, "depth": INTO}},
                          {"mod_kind": 6, "args": {"pattern": "java.*"}},
                          {"mod_kind": 6, "args": {"pattern": "jdk.*"}},
                          {"mod_kind": 6, "args": {"pattern": "sun.*"}})
        await jvm.request("THREAD_RESUME", thread=main)
        ev = await jvm.event()
        loc = ev["hits"][0]["data"]["location"]
        assert (await jvm.request("CLASS_SIGNATURE", ref=loc.ref))["signature"] == "LLate;"
        await jvm.request("CLEAR_REQUEST", request_id=9)
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.expect("ok load")


async def test_exception_event_with_catch_location(agent_so, classes, lines):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        target = await jvm.class_id("LTarget;")
        ise = None
        await set_request(jvm, 4, EXCEPTION, EVENT_THREAD,
                          {"mod_kind": 8, "args": {"ref": 0, "caught": True, "uncaught": True}},
                          {"mod_kind": 4, "args": {"ref": target}})
        await jvm.send("catch")
        ev = await jvm.event()
        data = ev["hits"][0]["data"]
        assert await line_at(jvm, data["location"]) == ("fail", lines["FAIL"])
        assert await line_at(jvm, data["catch_location"]) == ("catcher", lines["CATCH_CLAUSE"])
        ise = (await jvm.request("OBJECT_TYPE", object=data["exception"].object))["ref"]
        assert (await jvm.request("CLASS_SIGNATURE", ref=ise))["signature"] == "Ljava/lang/IllegalStateException;"
        await jvm.request("THREAD_RESUME", thread=ev["thread"])
        await jvm.expect("ok catch")


async def test_invoke_on_the_event_thread(agent_so, classes, lines):
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        await set_request(jvm, 1, BREAKPOINT, EVENT_THREAD,
                          loc_mod(await jvm.location_of_line(target, "add", lines["ADD_1"])),
                          {"mod_kind": 1, "args": {"count": 1}})
        await jvm.send("run 1")
        await jvm.event()
        this = (await jvm.request("FRAME_THIS", thread=main, depth=0))["object"].object
        twice = (await jvm.method(target, "twice"))["method"]
        add = (await jvm.method(target, "add"))["method"]
        fail = (await jvm.method(target, "fail"))["method"]
        init = (await jvm.method(target, "<init>"))["method"]
        i = lambda v: {"value": L.LinkValue(ord("I"), v)}  # noqa: E731
        r = await jvm.request("INVOKE", thread=main, kind=L.InvokeKind.STATIC, ref=target, object=0, method=twice,
                              options=0, args=[i(21)])
        assert r["result"] == L.LinkValue(ord("I"), 42) and r["exception"].object == 0
        r = await jvm.request("INVOKE", thread=main, kind=L.InvokeKind.INSTANCE, ref=target, object=this,
                              method=add, options=1, args=[i(2), i(3)])
        assert r["result"] == L.LinkValue(ord("I"), 5)
        r = await jvm.request("INVOKE", thread=main, kind=L.InvokeKind.STATIC, ref=target, object=0, method=fail,
                              options=0, args=[i(3)])
        assert r["exception"].object != 0
        exc_type = (await jvm.request("OBJECT_TYPE", object=r["exception"].object))["ref"]
        assert (await jvm.request("CLASS_SIGNATURE", ref=exc_type))["signature"] == \
            "Ljava/lang/IllegalStateException;"
        r = await jvm.request("INVOKE", thread=main, kind=L.InvokeKind.NEW_INSTANCE, ref=target, object=0,
                              method=init, options=0, args=[])
        assert r["result"].tag == ord("L") and r["result"].value not in (0, this)
        # Wrong arity and wrong types are refused before JNI sees them.
        with pytest.raises(AgentError):
            await jvm.request("INVOKE", thread=main, kind=L.InvokeKind.STATIC, ref=target, object=0, method=twice,
                              options=0, args=[])
        with pytest.raises(AgentError):
            await jvm.request("INVOKE", thread=main, kind=L.InvokeKind.STATIC, ref=target, object=0, method=twice,
                              options=0, args=[{"value": L.LinkValue(ord("J"), 1)}])
        # Object arguments must fit the parameter type (CharSequence): a String does, an int[] does not.
        length = (await jvm.method(target, "len"))["method"]
        name = (await jvm.request("CREATE_STRING", utf="four"))["string"]
        r = await jvm.request("INVOKE", thread=main, kind=L.InvokeKind.STATIC, ref=target, object=0, method=length,
                              options=0, args=[{"value": L.LinkValue(ord("s"), name)}])
        assert r["result"] == L.LinkValue(ord("I"), 4)
        fields = {f["name"]: f["field"] for f in (await jvm.request("CLASS_FIELDS", ref=target))["fields"]}
        numbers = (await jvm.request("OBJECT_GET_FIELDS", object=this, fields=[
            {"field": fields["numbers"], "tag": ord("[")}]))["values"][0]["value"]
        with pytest.raises(AgentError) as e:
            await jvm.request("INVOKE", thread=main, kind=L.InvokeKind.STATIC, ref=target, object=0, method=length,
                              options=0, args=[{"value": numbers}])
        assert e.value.status == 34
        # Only a thread parked at an event can invoke.
        other = await jvm.thread_named("Reference Handler")
        await jvm.request("THREAD_SUSPEND", thread=other)
        with pytest.raises(AgentError) as e:
            await jvm.request("INVOKE", thread=other, kind=L.InvokeKind.STATIC, ref=target, object=0,
                              method=twice, options=0, args=[i(1)])
        assert e.value.status == L.LinkStatus.NOT_AT_EVENT
        await jvm.request("THREAD_RESUME", thread=other)
        await parked_at_event(jvm, main)
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.expect("ok run")


async def test_link_loss_resumes_everything_and_the_agent_reconnects(agent_so, classes, lines):
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        other = await jvm.thread_named("Reference Handler")
        await set_request(jvm, 1, BREAKPOINT, ALL, loc_mod(await jvm.location_of_line(target, "add", lines["ADD_1"])))
        await jvm.request("THREAD_SUSPEND", thread=other)
        await jvm.send("run 3")
        await jvm.event()
        s = (await jvm.request("CREATE_STRING", utf="pinned"))["string"]
        await jvm.request("OBJECT_PIN", object=s)
        await jvm.link.aclose()
        with pytest.raises(AgentLinkClosed):
            await jvm.link.request("VM_INFO")
        # The breakpoint is gone and every thread runs: the command completes.
        await jvm.expect("ok run", timeout=5)
        jvm.link = await jvm.accept()
        stats = {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}
        assert stats["filters"] == 0 and stats["breakpoints"] == 0 and stats["pins"] == 0
        assert stats["events_enabled"] == 0 and stats["suspend_all_depth"] == 0
        assert (await jvm.request("THREAD_STATUS", thread=main))["suspend_count"] == 0
        assert (await jvm.request("THREAD_STATUS", thread=other))["suspend_count"] == 0
        # Object ids survive the reconnect.
        assert (await jvm.request("CLASS_SIGNATURE", ref=target))["signature"] == "LTarget;"
        await jvm.send("exit")
        await jvm.expect("bye")
        assert await jvm.wait_exit() == 0


async def test_suspend_on_start_and_vm_death(agent_so, classes):
    async with run_jvm(agent_so, classes, options={"suspend": True}) as jvm:
        assert jvm.link.hello["flags"] & L.HelloFlag.SUSPEND_ON_START
        ev = await jvm.event()
        assert ev["suspend_policy"] == ALL and ev["hits"] == [{"request_id": 0, "event_kind": VM_START, "data": {}}]
        assert (await jvm.request("THREAD_INFO", thread=ev["thread"]))["name"] == "main"
        with pytest.raises(trio.TooSlowError):
            await jvm.expect("ready", timeout=0.5)
        await set_request(jvm, 99, VM_DEATH, NONE)
        await jvm.request("RELEASE_START")
        await jvm.request("RESUME_ALL")
        await jvm.expect("ready")
        await jvm.send("exit")
        ev = await jvm.event()
        assert ev["thread"] == 0 and ev["hits"] == [{"request_id": 99, "event_kind": VM_DEATH, "data": {}}]
        with trio.fail_after(10):
            notice = await jvm.link.events.receive()
        assert notice == {"notice": L.NOTICE_VM_DEATH, "detail": ""}
        assert await jvm.wait_exit() == 0


@pytest.mark.parametrize("depth", [0, 1])
async def test_pop_frames_completes_before_the_reply(agent_so, classes, lines, depth):
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        add_1 = await jvm.location_of_line(target, "add", lines["ADD_1"])
        await set_request(jvm, 1, BREAKPOINT, EVENT_THREAD, loc_mod(add_1))
        await jvm.send("run 1")
        await jvm.event()
        before = (await jvm.request("THREAD_FRAMES", thread=main, start=0, length=-1))["frames"]
        await jvm.request("THREAD_POP_FRAMES", thread=main, depth=depth)
        after = (await jvm.request("THREAD_FRAMES", thread=main, start=0, length=-1))["frames"]
        assert after == before[depth + 1:][:1] + after[1:] and len(after) == len(before) - depth - 1
        top = L.LinkLocation(1, after[0]["ref"], after[0]["method"], after[0]["index"])
        assert await line_at(jvm, top) == (("run", lines["RUN_2"]) if depth == 0 else ("main", lines["RUN_LOOP"]))
        status = await jvm.request("THREAD_STATUS", thread=main)
        assert status["suspend_count"] == 1
        # Resumed, the popped call is made again and hits the breakpoint again.
        await jvm.request("THREAD_RESUME", thread=main)
        ev = await jvm.event()
        assert ev["hits"][0]["data"]["location"] == add_1
        await jvm.request("CLEAR_ALL_REQUESTS")
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.expect("ok run")


async def test_step_and_breakpoint_at_one_place_make_one_composite(agent_so, classes, lines):
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        run_2 = await jvm.location_of_line(target, "run", lines["RUN_2"])
        add_1 = await jvm.location_of_line(target, "add", lines["ADD_1"])
        await set_request(jvm, 1, BREAKPOINT, EVENT_THREAD, loc_mod(run_2), {"mod_kind": 1, "args": {"count": 1}})
        await set_request(jvm, 2, BREAKPOINT, EVENT_THREAD, loc_mod(add_1))
        await set_request(jvm, 3, 40, NONE, {"mod_kind": 4, "args": {"ref": target}},
                          {"mod_kind": 3, "args": {"thread": main}})  # METHOD_ENTRY in Target, on main
        await jvm.send("run 1")
        ev = await jvm.event()  # entry of run() comes first, alone (no breakpoint at its start)
        assert [h["request_id"] for h in ev["hits"]] == [3]
        assert (await line_at(jvm, ev["hits"][0]["data"]["location"]))[0] == "run"
        ev = await jvm.event()
        assert [h["request_id"] for h in ev["hits"]] == [1]
        await set_request(jvm, 50, SINGLE_STEP, ALL, {"mod_kind": 10, "args": {"thread": main, "size": LINE,
                                                                                "depth": INTO}})
        await jvm.request("THREAD_RESUME", thread=main)
        ev = await jvm.event()
        # Entry of add(), the step into it and the breakpoint at its first line: one composite.
        assert [(h["request_id"], h["event_kind"]) for h in ev["hits"]] == [(3, 40), (50, SINGLE_STEP), (2, BREAKPOINT)]
        assert all(h["data"]["location"] == add_1 for h in ev["hits"])
        assert ev["suspend_policy"] == ALL
        await jvm.request("CLEAR_ALL_REQUESTS")
        await jvm.request("RESUME_ALL")
        await jvm.expect("ok run")


async def test_method_exit_with_return_value_and_field_watches(agent_so, classes, lines):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        target = await jvm.class_id("LTarget;")
        fields = {f["name"]: f["field"] for f in (await jvm.request("CLASS_FIELDS", ref=target))["fields"]}
        await set_request(jvm, 1, 42, NONE, {"mod_kind": 5, "args": {"pattern": "Target"}},
                          {"mod_kind": 1, "args": {"count": 2}})  # METHOD_EXIT_WITH_RETURN_VALUE, 2nd exit
        await jvm.send("run 1")
        ev = await jvm.event()
        data = ev["hits"][0]["data"]
        # run(0): add(0, 1) returns 1 (first exit), twice(1) returns 2 (second).
        assert await line_at(jvm, data["location"]) == ("twice", lines["TWICE"])
        assert data["value"] == L.LinkValue(ord("I"), 2)
        await jvm.expect("ok run")
        await set_request(jvm, 2, 20, EVENT_THREAD, {"mod_kind": 9, "args": {"ref": target, "field": fields["value"]}})
        await set_request(jvm, 3, 21, EVENT_THREAD, {"mod_kind": 9, "args": {"ref": target, "field": fields["value"]}})
        await jvm.send("touch")
        ev = await jvm.event()
        access = ev["hits"][0]
        assert access["event_kind"] == 20 and access["data"]["field"] == fields["value"]
        assert await line_at(jvm, access["data"]["location"]) == ("main", lines["TOUCH"])
        assert access["data"]["ref"] == target and access["data"]["object"].object != 0
        await jvm.request("THREAD_RESUME", thread=ev["thread"])
        ev = await jvm.event()
        mod = ev["hits"][0]
        assert mod["event_kind"] == 21 and mod["data"]["value"] == L.LinkValue(ord("I"), 43)
        await jvm.request("THREAD_RESUME", thread=ev["thread"])
        await jvm.expect("ok touch")


async def test_threads_started_during_suspend_all_start_suspended(agent_so, classes):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        main = await jvm.thread_named("main")
        await set_request(jvm, 6, 6, NONE)  # THREAD_START
        await set_request(jvm, 7, 7, NONE)  # THREAD_DEATH
        await jvm.request("SUSPEND_ALL")
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.send("thread")
        ev = await jvm.event()
        assert ev["hits"][0]["event_kind"] == 6
        child = ev["thread"]
        assert (await jvm.request("THREAD_INFO", thread=child))["name"] == "child"
        assert (await jvm.request("THREAD_STATUS", thread=child))["suspend_count"] == 1
        with pytest.raises(trio.TooSlowError):
            await jvm.expect("child says hi", timeout=0.5)
        await jvm.request("RESUME_ALL")
        await jvm.expect("child says hi")
        ev = await jvm.event()
        assert ev["thread"] == child and ev["hits"][0]["event_kind"] == 7
        await jvm.expect("ok thread")
        # An ended thread, as in the reference: NOT_SUSPENDED until suspended, then INVALID_THREAD (its
        # stack is gone); its count goes on (VM-wide suspensions under way at its first suspension
        # included, and those that come while it is counted), and never shows as SUSPENDED.
        stack = (("THREAD_FRAMES", {"start": 0, "length": -1}), ("THREAD_FRAME_COUNT", {}))
        for want, steps in ((1004, ()), (10, ("SUSPEND_ALL", "THREAD_SUSPEND"))):
            for step in steps:
                await jvm.request(step, **({"thread": child} if step.startswith("THREAD_") else {}))
            for name, fields in stack:
                with pytest.raises(AgentError) as e:
                    await jvm.request(name, thread=child, **fields)
                assert e.value.status == want, name
        counts = []
        for step in ("THREAD_STATUS", "SUSPEND_ALL", "RESUME_ALL", "RESUME_ALL", "THREAD_RESUME", "THREAD_RESUME"):
            if step != "THREAD_STATUS":
                await jvm.request(step, **({"thread": child} if step.startswith("THREAD_") else {}))
            status = await jvm.request("THREAD_STATUS", thread=child)
            assert not status["state"] & 0x100000, step  # JVMTI_THREAD_STATE_SUSPENDED
            counts.append(status["suspend_count"])
        assert counts == [2, 3, 2, 1, 0, 0]
        with pytest.raises(AgentError) as e:
            await jvm.request("THREAD_FRAME_COUNT", thread=child)
        assert e.value.status == 1004


async def test_monitor_events(agent_so, classes, lines):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        main = await jvm.thread_named("main")
        for rid, kind in ((43, 43), (44, 44), (45, 45), (46, 46)):
            await set_request(jvm, rid, kind, NONE, {"mod_kind": 3, "args": {"thread": main}})
        # Class filters: waits by the monitor's class (an Object here), contended entries by the location's.
        for rid, kind in ((143, 43), (144, 44)):
            await set_request(jvm, rid, kind, NONE, {"mod_kind": 5, "args": {"pattern": "java.lang.Object"}})
        for rid, kind in ((145, 45), (146, 46)):
            await set_request(jvm, rid, kind, NONE, {"mod_kind": 5, "args": {"pattern": "Target"}})
        for rid, kind, pattern in ((243, 43, "Target"), (245, 45, "java.lang.Object")):
            await set_request(jvm, rid, kind, NONE, {"mod_kind": 5, "args": {"pattern": pattern}})
        await jvm.send("contend")
        got = []
        for _ in range(4):
            ev = await jvm.event()
            assert ev["thread"] == main
            hit = ev["hits"][0]
            kind = hit["event_kind"]
            expected = [kind + 200, kind] if kind in (43, 45) else [kind]  # newest request first
            assert [h["request_id"] for h in ev["hits"]] == expected
            got.append((kind, (await line_at(jvm, hit["data"]["location"]))[1], hit["data"]))
        # Waits are located in the top frame, Object.wait itself (native on 17), as the reference does.
        # HotSpot's interpreter may report the contended monitorenter at the next bytecode (the
        # reference agent reads the same GetFrameLocation), so either line of the block's start.
        assert [k for k, _, _ in got[:2]] == [43, 44]
        assert all(line in (lines["CONTEND"], lines["WAIT"]) for _, line, _ in got[:2])
        assert [k for k, _, _ in got[2:]] == [45, 46]
        for _, _, d in got[2:]:
            assert (await jvm.request("CLASS_SIGNATURE", ref=d["location"].ref))["signature"] == "Ljava/lang/Object;"
        monitor = got[0][2]["object"].object
        assert all(d["object"].object == monitor for _, _, d in got)
        assert got[2][2]["timeout"] == 50 and got[3][2]["timed_out"] is True
        await jvm.expect("ok contend")


async def test_instance_only_and_source_name_filters(agent_so, classes, lines):
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        add_1 = await jvm.location_of_line(target, "add", lines["ADD_1"])
        await set_request(jvm, 1, BREAKPOINT, EVENT_THREAD, loc_mod(add_1), {"mod_kind": 1, "args": {"count": 1}})
        await jvm.send("run 1")
        await jvm.event()
        this = (await jvm.request("FRAME_THIS", thread=main, depth=0))["object"].object
        init = (await jvm.method(target, "<init>"))["method"]
        other = (await jvm.request("INVOKE", thread=main, kind=L.InvokeKind.NEW_INSTANCE, ref=target, object=0,
                                   method=init, options=0, args=[]))["result"].value
        await jvm.request("OBJECT_PIN", object=other)
        await set_request(jvm, 2, BREAKPOINT, EVENT_THREAD, loc_mod(add_1), {"mod_kind": 11, "args": {"object": other}})
        await set_request(jvm, 3, BREAKPOINT, EVENT_THREAD, loc_mod(add_1), {"mod_kind": 11, "args": {"object": this}},
                          {"mod_kind": 12, "args": {"pattern": "*get.java"}})
        await set_request(jvm, 4, BREAKPOINT, EVENT_THREAD, loc_mod(add_1),
                          {"mod_kind": 12, "args": {"pattern": "Other.java"}})
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.expect("ok run")
        await jvm.send("run 1")
        ev = await jvm.event()
        assert [h["request_id"] for h in ev["hits"]] == [3]
        await jvm.request("CLEAR_ALL_REQUESTS")
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.expect("ok run")


async def test_class_unload(agent_so, classes):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        await set_request(jvm, 9, 9, NONE, {"mod_kind": 5, "args": {"pattern": "La*"}})  # CLASS_UNLOAD
        await jvm.send("unload")
        await jvm.expect("loaded by URLClassLoader")
        ev = await jvm.event(timeout=20)
        assert ev["thread"] == 0 and ev["hits"] == [{"request_id": 9, "event_kind": 9, "data": {"signature": "LLate;"}}]
        await jvm.expect("ok unload")
        # The app loader's Late is still there.
        await jvm.send("load")
        await jvm.expect("ok load")


async def test_class_unloaded_without_a_request(agent_so, classes):
    """No CLASS_UNLOAD request: the unload of a class whose id the agent sent (here in its ClassPrepare
    event) still reaches the daemon, as CLASS_UNLOADED with that id, and no event goes out for it."""
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        await set_request(jvm, 7, CLASS_PREPARE, NONE, {"mod_kind": 5, "args": {"pattern": "*Late"}})
        await jvm.send("unload")
        ev = await jvm.event()
        [hit] = ev["hits"]
        assert hit["data"]["signature"] == "LLate;"
        await jvm.expect("ok unload")
        msg = await jvm.class_unloaded(timeout=20)
        assert msg == {"class_unloaded": hit["data"]["ref"], "signature": "LLate;"}
        with pytest.raises(AgentError) as dead:  # its id is dead: collected
            await jvm.request("CLASS_SIGNATURE", ref=hit["data"]["ref"])
        assert dead.value.status == L.LinkStatus.COLLECTED
        stats = {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}
        assert stats["events_enabled"] == 1  # CLASS_PREPARE only: nothing was enabled for the unload


async def test_redefine_force_early_return_and_stop(agent_so, classes, lines, tmp_path):
    import subprocess

    from agent_support import JAVA

    text = (JAVA / "Target.java").read_text().replace("return x * 2; // @TWICE", "return x * 3; // @TWICE")
    (tmp_path / "Target.java").write_text(text)
    subprocess.run([*javac_argv(), "-g", "-d", str(tmp_path), str(tmp_path / "Target.java")], check=True, timeout=120)
    new_bytes = (tmp_path / "Target.class").read_bytes()
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        await jvm.send("run 1")  # counter = 7 + twice(1) = 9
        assert (await jvm.expect("ok run")).split()[-1] == "9"
        await jvm.request("REDEFINE_CLASSES", classes=[{"ref": target, "bytes": new_bytes}])
        await jvm.send("run 1")  # + 3 * 1
        assert (await jvm.expect("ok run")).split()[-1] == "12"
        with pytest.raises(AgentError):
            await jvm.request("REDEFINE_CLASSES", classes=[{"ref": target, "bytes": b"not a class file"}])
        # Force early return from twice(): the caller gets 100.
        await set_request(jvm, 1, BREAKPOINT, EVENT_THREAD,
                          loc_mod(await jvm.location_of_line(target, "twice", lines["TWICE"])),
                          {"mod_kind": 1, "args": {"count": 1}})
        await jvm.send("run 1")
        await jvm.event()
        with pytest.raises(AgentError) as e:  # wrong type for an int method
            await jvm.request("THREAD_FORCE_EARLY_RETURN", thread=main, value=L.LinkValue(ord("J"), 1))
        assert e.value.status == 34  # JVMTI TYPE_MISMATCH
        await jvm.request("THREAD_FORCE_EARLY_RETURN", thread=main, value=L.LinkValue(ord("I"), 100))
        await jvm.request("THREAD_RESUME", thread=main)
        assert (await jvm.expect("ok run")).split()[-1] == "112"
        # Stop: main gets an exception thrown at it and dies with it; so does the VM (uncaught in main).
        fail = (await jvm.method(target, "fail"))["method"]
        await set_request(jvm, 2, BREAKPOINT, EVENT_THREAD,
                          loc_mod(await jvm.location_of_line(target, "add", lines["ADD_1"])))
        await jvm.send("run 1")
        await jvm.event()
        exc = (await jvm.request("INVOKE", thread=main, kind=L.InvokeKind.STATIC, ref=target, object=0, method=fail,
                                 options=1, args=[{"value": L.LinkValue(ord("I"), 5)}]))["exception"].object
        await jvm.request("THREAD_STOP", thread=main, throwable=exc)
        await jvm.request("CLEAR_ALL_REQUESTS")
        await jvm.request("THREAD_RESUME", thread=main)
        assert await jvm.wait_exit() == 1


def _cpu_seconds(pid: int) -> float:
    import os

    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


async def test_event_inside_an_invoke_parks_the_invoking_thread(agent_so, classes, lines):
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        await set_request(jvm, 1, BREAKPOINT, EVENT_THREAD,
                          loc_mod(await jvm.location_of_line(target, "add", lines["ADD_1"])),
                          {"mod_kind": 1, "args": {"count": 1}})
        await jvm.send("run 1")
        await jvm.event()
        twice_loc = await jvm.location_of_line(target, "twice", lines["TWICE"])
        await set_request(jvm, 2, BREAKPOINT, EVENT_THREAD, loc_mod(twice_loc))
        twice = (await jvm.method(target, "twice"))["method"]
        result = []

        async def invoke():
            result.append(await jvm.request("INVOKE", thread=main, kind=L.InvokeKind.STATIC, ref=target, object=0,
                                            method=twice, options=1, args=[{"value": L.LinkValue(ord("I"), 5)}]))

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(invoke)
                ev = await jvm.event()
                assert ev["thread"] == main and ev["hits"][0]["data"]["location"] == twice_loc
                await parked_at_event(jvm, main)
                # Parked in the nested event: neither finishing nor spinning (CPU time stays flat).
                cpu_before = _cpu_seconds(jvm.proc.pid)
                await trio.sleep(0.5)
                assert result == []
                assert _cpu_seconds(jvm.proc.pid) - cpu_before < 0.25
                await jvm.request("CLEAR_REQUEST", request_id=2)
                await jvm.request("THREAD_RESUME", thread=main)
        assert result[0]["result"] == L.LinkValue(ord("I"), 10)
        # Back at the first event, still suspended once.
        await parked_at_event(jvm, main)
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.expect("ok run")


async def test_link_loss_during_an_invoke_leaves_nothing_suspended(agent_so, classes, lines):
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        thread_class = await jvm.class_id("Ljava/lang/Thread;")
        sleep = next(m["method"] for m in (await jvm.request("CLASS_METHODS", ref=thread_class))["methods"]
                     if m["name"] == "sleep" and m["signature"] == "(J)V")
        await set_request(jvm, 1, BREAKPOINT, ALL, loc_mod(await jvm.location_of_line(target, "add", lines["ADD_1"])))
        await jvm.send("run 1")
        await jvm.event()

        async def invoke():
            with pytest.raises(AgentLinkClosed):
                await jvm.link.request("INVOKE", thread=main, kind=L.InvokeKind.STATIC, ref=thread_class, object=0,
                                       method=sleep, options=0, args=[{"value": L.LinkValue(ord("J"), 800)}])

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(invoke)
                await trio.sleep(0.3)
                await jvm.link.aclose()
        # The call finishes after the reset; nothing is suspended again: the command completes.
        await jvm.expect("ok run", timeout=10)
        jvm.link = await jvm.accept()
        assert (await jvm.request("THREAD_STATUS", thread=main))["suspend_count"] == 0
        stats = {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}
        assert stats["suspend_all_depth"] == 0


async def test_breakpoint_set_where_a_step_stopped_is_not_reported_again(agent_so, classes, lines):
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        run_2 = await jvm.location_of_line(target, "run", lines["RUN_2"])
        await set_request(jvm, 1, BREAKPOINT, EVENT_THREAD, loc_mod(run_2), {"mod_kind": 1, "args": {"count": 1}})
        await jvm.send("run 2")
        await jvm.event()
        stopped = await step(jvm, main, LINE, OVER)  # now at RUN_3, step request cleared
        assert await line_at(jvm, stopped) == ("run", lines["RUN_3"])
        await set_request(jvm, 2, BREAKPOINT, EVENT_THREAD, loc_mod(stopped))
        await jvm.request("THREAD_RESUME", thread=main)
        # Not again at once; the next time the line is reached (run(1)) it is reported.
        ev = await jvm.event()
        assert [h["request_id"] for h in ev["hits"]] == [2]
        frames = (await jvm.request("THREAD_FRAMES", thread=main, start=0, length=1))["frames"]
        values = (await jvm.request("FRAME_GET_LOCALS", thread=main, depth=0,
                                    slots=[{"slot": 1, "tag": ord("I")}]))["values"]
        assert values[0]["value"].value == 1  # i == 1: the second call of run()
        assert frames[0]["index"] == stopped.index
        await jvm.request("CLEAR_ALL_REQUESTS")
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.expect("ok run")


async def test_method_entry_and_step_into_make_one_composite(agent_so, classes, lines):
    async with target_jvm(agent_so, classes) as (jvm, target, main):
        run_2 = await jvm.location_of_line(target, "run", lines["RUN_2"])
        await set_request(jvm, 1, BREAKPOINT, EVENT_THREAD, loc_mod(run_2), {"mod_kind": 1, "args": {"count": 1}})
        await jvm.send("run 1")
        await jvm.event()
        await set_request(jvm, 3, 40, NONE, {"mod_kind": 5, "args": {"pattern": "Target"}},
                          {"mod_kind": 3, "args": {"thread": main}})
        await set_request(jvm, 50, SINGLE_STEP, EVENT_THREAD,
                          {"mod_kind": 10, "args": {"thread": main, "size": LINE, "depth": INTO}})
        await jvm.request("THREAD_RESUME", thread=main)
        ev = await jvm.event()
        assert [(h["request_id"], h["event_kind"]) for h in ev["hits"]] == [(3, 40), (50, SINGLE_STEP)]
        assert await line_at(jvm, ev["hits"][1]["data"]["location"]) == ("add", lines["ADD_1"])
        assert ev["hits"][0]["data"]["location"] == ev["hits"][1]["data"]["location"]
        await jvm.request("CLEAR_REQUEST", request_id=50)
        # Without a step, entries go out on their own.
        await jvm.request("THREAD_RESUME", thread=main)
        ev = await jvm.event()
        assert [(h["request_id"], h["event_kind"]) for h in ev["hits"]] == [(3, 40)]
        assert (await line_at(jvm, ev["hits"][0]["data"]["location"]))[0] == "twice"
        await jvm.request("CLEAR_ALL_REQUESTS")
        await jvm.expect("ok run")


async def test_suspend_on_start_is_released_by_link_loss(agent_so, classes):
    async with run_jvm(agent_so, classes, options={"suspend": True}) as jvm:
        assert (await jvm.event())["hits"][0]["event_kind"] == VM_START
        await jvm.link.aclose()
        await jvm.expect("ready")  # main runs: the reset released it
        jvm.link = await jvm.accept()
        assert not jvm.link.hello["flags"] & L.HelloFlag.SUSPEND_ON_START
        await jvm.send("exit")
        await jvm.expect("bye")


@pytest.mark.parametrize("profile", ["full", "nothrow"])
@pytest.mark.parametrize("depth", [OVER, OUT])
async def test_a_step_whose_frame_is_unwound_stops_at_the_handler(agent_so, classes, lines, profile, depth):
    async with target_jvm(agent_so, classes, options={"profile": profile}) as (jvm, target, main):
        await set_request(jvm, 1, BREAKPOINT, EVENT_THREAD,
                          loc_mod(await jvm.location_of_line(target, "fail", lines["FAIL"])))
        await jvm.send("catch")
        await jvm.event()
        await jvm.request("CLEAR_REQUEST", request_id=1)
        # fail() throws; catcher() catches: the step ends in the handler, one frame up.  OVER single-steps
        # the throw, so the handler's first bytecode (the catch clause's line) is a step; OUT waits with
        # single-step off until the handler's entry, whose own step HotSpot does not post (as the reference).
        expected = "CATCH_CLAUSE" if depth == OVER else "CAUGHT"
        assert await line_at(jvm, await step(jvm, main, LINE, depth)) == ("catcher", lines[expected])
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.expect("ok catch")
