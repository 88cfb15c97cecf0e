"""EventRequest: validation codes, ids, events delivered; reference agent vs jdwpd."""

import pytest

from protocol.constants import EventKind, ModKind, SuspendPolicy
from tests.commands.types_support import TIMEOUT, differential

pytestmark = pytest.mark.jvm


def _mods(*mods):
    return list(mods)


async def test_set_validation_like_the_reference(sample_classes):
    async def scenario(t):
        await t.client.next_event(TIMEOUT)  # VMStart
        sample = await t.class_id("Ljava/lang/String;")
        threads = (await t.ok("VirtualMachine", "AllThreads")).threads
        thread = threads[0].thread
        group = (await t.ok("VirtualMachine", "TopLevelThreadGroups")).groups[0].group
        cases = [
            (EventKind.USER_DEFINED, []),
            (77, []),
            (EventKind.VM_START, []),
            (EventKind.BREAKPOINT, []),  # no location
            (EventKind.FIELD_ACCESS, []),  # no field
            (EventKind.CLASS_PREPARE, [{"mod_kind": ModKind.COUNT, "count": 0}]),
            (EventKind.CLASS_PREPARE, [{"mod_kind": ModKind.COUNT, "count": 2}]),
            (EventKind.CLASS_PREPARE, [{"mod_kind": ModKind.CONDITIONAL, "expr_id": 1}]),
            (EventKind.THREAD_START, [{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "x.*"}]),
            (EventKind.THREAD_START, [{"mod_kind": ModKind.CLASS_ONLY, "clazz": sample}]),
            (EventKind.CLASS_UNLOAD, [{"mod_kind": ModKind.THREAD_ONLY, "thread": thread}]),
            (EventKind.CLASS_PREPARE, [{"mod_kind": ModKind.SOURCE_NAME_MATCH, "source_name_pattern": "*.java"}]),
            (EventKind.BREAKPOINT, [{"mod_kind": ModKind.SOURCE_NAME_MATCH, "source_name_pattern": "*.java"}]),
            (EventKind.THREAD_START, [{"mod_kind": ModKind.THREAD_ONLY, "thread": 0x7FFFFFF0}]),
            (EventKind.THREAD_START, [{"mod_kind": ModKind.THREAD_ONLY, "thread": group}]),
            (EventKind.CLASS_PREPARE, [{"mod_kind": ModKind.CLASS_ONLY, "clazz": thread}]),
            (EventKind.METHOD_ENTRY, [{"mod_kind": ModKind.CLASS_ONLY, "clazz": sample},
                                      {"mod_kind": ModKind.INSTANCE_ONLY, "instance": 0x7FFFFFF0}]),
            (EventKind.SINGLE_STEP, [{"mod_kind": ModKind.STEP, "thread": group, "size": 1, "depth": 0}]),
            (EventKind.EXCEPTION, [{"mod_kind": ModKind.EXCEPTION_ONLY, "exception_or_null": 0, "caught": True,
                                    "uncaught": False}]),
            (EventKind.CLASS_PREPARE, [{"mod_kind": ModKind.EXCEPTION_ONLY, "exception_or_null": 0, "caught": True,
                                        "uncaught": False}]),
            (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, [{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "Sample"}]),
            (EventKind.VM_DEATH, []),
            (EventKind.FRAME_POP, []),
            (EventKind.EXCEPTION_CATCH, []),
            (EventKind.CLASS_LOAD, []),
            (EventKind.MONITOR_WAIT, []),
        ]
        ids = []
        for kind, mods in cases:
            code, reply = await t.cmd("EventRequest", "Set", event_kind=kind, suspend_policy=SuspendPolicy.NONE,
                                      modifiers=mods, note=f"kind {int(kind)}")
            if code == 0:
                ids.append((kind, reply.request_id))
        assert len(ids) >= 5, t.entries
        # Clear: unknown ids and wrong kinds are no error; bad kinds are
        await t.cmd("EventRequest", "Clear", event_kind=EventKind.CLASS_PREPARE, request_id=9999)
        await t.cmd("EventRequest", "Clear", event_kind=EventKind.USER_DEFINED, request_id=1)
        for kind, rid in ids:
            await t.cmd("EventRequest", "Clear", event_kind=kind, request_id=rid)
        await t.ok("EventRequest", "ClearAllBreakpoints")
        code, reply = await t.cmd("EventRequest", "Set", event_kind=EventKind.CLASS_PREPARE,
                                  suspend_policy=SuspendPolicy.NONE, modifiers=[])
        await t.ok("VirtualMachine", "Resume")

    await differential(sample_classes, "Sample", scenario)


async def test_events_reach_the_session_that_asked(sample_classes, sample_markers):
    async def scenario(t):
        c = t.client
        await c.next_event(TIMEOUT)  # VMStart
        await t.ok("EventRequest", "Set", event_kind=EventKind.CLASS_PREPARE, suspend_policy=SuspendPolicy.ALL,
                   modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "LateLoaded"}])
        await t.ok("EventRequest", "Set", event_kind=EventKind.METHOD_ENTRY,
                   suspend_policy=SuspendPolicy.EVENT_THREAD,
                   modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "Sample"},
                              {"mod_kind": ModKind.COUNT, "count": 3}])
        await t.ok("EventRequest", "Set", event_kind=EventKind.EXCEPTION, suspend_policy=SuspendPolicy.NONE,
                   modifiers=[{"mod_kind": ModKind.EXCEPTION_ONLY, "exception_or_null": 0, "caught": False,
                               "uncaught": True}])
        await t.ok("EventRequest", "Set", event_kind=EventKind.VM_DEATH, suspend_policy=SuspendPolicy.NONE,
                   modifiers=[])
        await t.ok("VirtualMachine", "Resume")
        # the third entry into a method of Sample (Count 3) suspends its thread, once
        policy, events = await c.wait_for_event(EventKind.METHOD_ENTRY, TIMEOUT)
        t.note("method entry", (policy, events))
        await t.ok("ThreadReference", "SuspendCount", thread=events[0].thread)
        await t.ok("ThreadReference", "Status", thread=events[0].thread)
        await t.ok("ThreadReference", "Resume", thread=events[0].thread)
        policy, events = await c.wait_for_event(EventKind.EXCEPTION, TIMEOUT)
        t.note("uncaught", (policy, [e.event_kind for e in events], events[0].catch_location))
        policy, events = await c.wait_for_event(EventKind.CLASS_PREPARE, TIMEOUT)
        t.note("prepare", (policy, events))
        await t.ok("VirtualMachine", "Resume")
        policy, events = await c.wait_for_event(EventKind.VM_DEATH, TIMEOUT)
        t.note("death", (policy, events))

    await differential(sample_classes, "Sample", scenario)


async def test_held_events_come_after_release(sample_classes):
    import trio

    async def scenario(t):
        c = t.client
        await c.next_event(TIMEOUT)  # VMStart
        await t.ok("EventRequest", "Set", event_kind=EventKind.CLASS_PREPARE, suspend_policy=SuspendPolicy.ALL,
                   modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "LateLoaded"}])
        await t.ok("VirtualMachine", "HoldEvents")
        await t.ok("VirtualMachine", "Resume")
        with trio.move_on_after(1.0):
            await c.next_event(TIMEOUT)
            raise AssertionError("an event went out while events were held")
        await t.ok("VirtualMachine", "ReleaseEvents")
        policy, events = await c.wait_for_event(EventKind.CLASS_PREPARE, TIMEOUT)
        t.note("released", (policy, events))
        await t.ok("ThreadReference", "SuspendCount", thread=events[0].thread)
        await t.ok("VirtualMachine", "Resume")
        policy, events = await c.wait_for_event(EventKind.VM_DEATH, TIMEOUT)
        t.note("death", (policy, events))

    await differential(sample_classes, "Sample", scenario)


async def test_breakpoint_watch_and_step_validation(sample_classes, sample_markers):
    async def scenario(t):
        thread, sample = await t.run_to_line("Sample", sample_markers["COMPUTE_TOTAL"])
        frame = (await t.ok("ThreadReference", "Frames", thread=thread, start_frame=0, length=1)).frames[0]
        loc = frame.location

        def bp(**changes):
            where = {"type_tag": 1, "class_id": loc.class_id, "method_id": loc.method_id, "index": loc.index}
            where.update(changes)
            return [{"mod_kind": ModKind.LOCATION_ONLY, "loc": where}]

        for note, mods in [("ok", bp()), ("bad index", bp(index=99999)),
                           ("bad class", bp(class_id=0x7FFFFFF0)), ("thread as class", bp(class_id=thread))]:
            await t.cmd("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.ALL,
                        modifiers=mods, note=note)
        fields = (await t.ok("ReferenceType", "Fields", ref_type=sample)).declared
        f_int = next(f.field_id for f in fields if f.name == "fInt")
        for note, field in [("ok", f_int), ("bad field", 424242)]:
            await t.cmd("EventRequest", "Set", event_kind=EventKind.FIELD_ACCESS, suspend_policy=SuspendPolicy.NONE,
                        modifiers=[{"mod_kind": ModKind.FIELD_ONLY, "declaring": sample, "field_id": field}],
                        note=note)
        step = [{"mod_kind": ModKind.STEP, "thread": thread, "size": 1, "depth": 1}]
        code, first = await t.cmd("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP,
                                  suspend_policy=SuspendPolicy.EVENT_THREAD, modifiers=step)
        assert code == 0
        await t.cmd("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP,
                    suspend_policy=SuspendPolicy.EVENT_THREAD, modifiers=step, note="second step")
        await t.ok("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=first.request_id)
        await t.ok("EventRequest", "Set", event_kind=EventKind.SINGLE_STEP, suspend_policy=SuspendPolicy.EVENT_THREAD,
                   modifiers=step)
        await t.ok("VirtualMachine", "Resume")
        policy, events = await t.client.wait_for_event(EventKind.SINGLE_STEP, TIMEOUT)
        t.note("step", (policy, events))

    await differential(sample_classes, "Sample", scenario)


async def test_one_place_many_requests_one_composite(sample_classes, sample_markers):
    async def scenario(t):
        c = t.client
        thread, sample = await t.run_to_line("Sample", sample_markers["COMPUTE_START"])
        frame = (await t.ok("ThreadReference", "Frames", thread=thread, start_frame=0, length=1)).frames[0]
        table = await t.ok("Method", "LineTable", ref_type=sample, method_id=frame.location.method_id, record=False)
        index = min(r.line_code_index for r in table.lines if r.line_number == sample_markers["COMPUTE_TOTAL"])
        loc = {"type_tag": 1, "class_id": sample, "method_id": frame.location.method_id, "index": index}
        for policy in (SuspendPolicy.NONE, SuspendPolicy.EVENT_THREAD, SuspendPolicy.NONE):
            await t.ok("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=policy,
                       modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}])
        await t.ok("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.NONE,
                   modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc},
                              {"mod_kind": ModKind.THREAD_ONLY, "thread": thread}])
        await t.ok("VirtualMachine", "Resume")
        policy, events = await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
        t.note("composite", (policy, events))
        await t.ok("ThreadReference", "SuspendCount", thread=thread)
        await t.ok("EventRequest", "ClearAllBreakpoints")
        # The VM runs to its end from here (main's count reaches 0): a command after this one would race
        # the VM's exit (the reference then resets the connection before its reply).
        await t.ok("VirtualMachine", "Resume")

    await differential(sample_classes, "Sample", scenario)


async def test_a_burst_of_events_then_vm_death_last(sample_classes):
    async def scenario(t):
        c = t.client
        _, start = await c.next_event(TIMEOUT)
        main = start[0].thread
        await t.ok("EventRequest", "Set", event_kind=EventKind.METHOD_ENTRY, suspend_policy=SuspendPolicy.NONE,
                   modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "Sample*"}])
        await t.ok("VirtualMachine", "Resume")
        entries = []
        while True:
            policy, events = await c.next_event(TIMEOUT)
            if any(int(e.event_kind) == EventKind.VM_DEATH for e in events):
                t.note("death", (policy, events))
                break
            entries.extend(e for e in events)
        # every one of them before VMDeath; the main thread's in order (workers interleave freely)
        t.note("count", len(entries))
        t.note("main's entries", [e.location for e in entries if e.thread == main])

    await differential(sample_classes, "Sample", scenario)
