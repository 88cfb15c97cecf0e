"""EventRequest and the events: every kind with a wire form, every modifier the spec allows, composites."""

from __future__ import annotations

from protocol.constants import EventKind, ModKind, StepDepth, StepSize, SuspendPolicy
from tests.conformance.registry import scenario

BAD = 0x7EADBEEF
E = EventKind


def count(n: int) -> dict:
    return {"mod_kind": ModKind.COUNT, "count": n}


def thread_only(thread: int) -> dict:
    return {"mod_kind": ModKind.THREAD_ONLY, "thread": thread}


def class_only(ref: int) -> dict:
    return {"mod_kind": ModKind.CLASS_ONLY, "clazz": ref}


def class_match(pattern: str) -> dict:
    return {"mod_kind": ModKind.CLASS_MATCH, "class_pattern": pattern}


def class_exclude(pattern: str) -> dict:
    return {"mod_kind": ModKind.CLASS_EXCLUDE, "class_pattern": pattern}


def instance_only(obj: int) -> dict:
    return {"mod_kind": ModKind.INSTANCE_ONLY, "instance": obj}


def step(thread: int, size: int, depth: int) -> dict:
    return {"mod_kind": ModKind.STEP, "thread": thread, "size": size, "depth": depth}


def exception_only(ref: int, caught: bool, uncaught: bool) -> dict:
    return {"mod_kind": ModKind.EXCEPTION_ONLY, "exception_or_null": ref, "caught": caught, "uncaught": uncaught}


def field_only(ref: int, field: int) -> dict:
    return {"mod_kind": ModKind.FIELD_ONLY, "declaring": ref, "field_id": field}


async def _object_of(t, ref: int) -> int:
    r = await t.client.command("ReferenceType", "Instances", ref_type=ref, max_instances=1)
    return r.instances[0].instance.object_id


async def _static(t, ref: int, name: str) -> int:
    f = (await t.fields(ref))[name].field_id
    return (await t.client.command("ReferenceType", "GetValues", ref_type=ref, fields=[{"field_id": f}])
            ).values[0].value.value


@scenario(commands=["EventRequest.Set", "EventRequest.Clear"], events=[
    "SINGLE_STEP", "BREAKPOINT", "METHOD_ENTRY", "METHOD_EXIT", "METHOD_EXIT_WITH_RETURN_VALUE", "VM_DEATH",
])
async def events_steps_entries_exits_and_composites(t):
    """Step, breakpoint and method entry at one location in one composite; exits with values; every step kind."""
    sample = await t.start("Sample")
    bp = await t.run_to(sample, "CALL_COMPUTE")
    main = bp.thread
    obj = await _object_of(t, sample)
    compute = (await t.methods(sample))["compute"].method_id
    first = {"type_tag": 1, "class_id": sample, "method_id": compute, "index": 0}
    # Into compute: a line step, a breakpoint at its first bytecode and its entry, all at one location.
    rq_step = await t.set_request(E.SINGLE_STEP, step(main, StepSize.LINE, StepDepth.INTO), class_exclude("java.*"),
                                  class_exclude("jdk.*"), class_exclude("sun.*"))
    rq_bp = await t.set_request(E.BREAKPOINT, {"mod_kind": ModKind.LOCATION_ONLY, "loc": first}, thread_only(main))
    rq_entry = await t.set_request(E.METHOD_ENTRY, class_only(sample), thread_only(main), instance_only(obj))
    await t.ok("VirtualMachine", "Resume")
    await t.event("step + breakpoint + entry")
    for kind, rid in ((E.SINGLE_STEP, rq_step), (E.BREAKPOINT, rq_bp), (E.METHOD_ENTRY, rq_entry)):
        await t.ok("EventRequest", "Clear", event_kind=kind, request_id=rid)
    # Step over the lines of compute, then out.
    steps = ((StepSize.LINE, StepDepth.OVER, "line over"), (StepSize.MIN, StepDepth.OVER, "min over"),
             (StepSize.MIN, StepDepth.INTO, "min into"), (StepSize.LINE, StepDepth.OVER, "line over 2"),
             (StepSize.LINE, StepDepth.OUT, "line out"))
    for size, depth, why in steps:
        rid = await t.set_request(E.SINGLE_STEP, step(main, size, depth), count(1), note=why)
        await t.ok("VirtualMachine", "Resume")
        await t.event(why)
        await t.ok("EventRequest", "Clear", event_kind=E.SINGLE_STEP, request_id=rid)
    # The next exit of a Sample method (outerSum, through its Inner), then the next one with its value.
    rq_exit = await t.set_request(E.METHOD_EXIT, class_match("Sample*"), count(1))
    await t.ok("VirtualMachine", "Resume")
    await t.event("exit")
    await t.ok("EventRequest", "Clear", event_kind=E.METHOD_EXIT, request_id=rq_exit, note="expired already")
    rq_value = await t.set_request(E.METHOD_EXIT_WITH_RETURN_VALUE, class_match("Samp*"), thread_only(main),
                                   class_exclude("*Circle"), count(2))
    await t.ok("VirtualMachine", "Resume")
    await t.event("second exit with value")
    await t.ok("EventRequest", "Clear", event_kind=E.METHOD_EXIT_WITH_RETURN_VALUE, request_id=rq_value)
    # Entry into a JDK class's methods excluded; the next Sample entry is outerSum.
    rq_entry = await t.set_request(E.METHOD_ENTRY, class_exclude("java.*"), class_exclude("jdk.*"),
                                   class_exclude("sun.*"), class_exclude("*Inner"), count(1))
    await t.ok("VirtualMachine", "Resume")
    await t.event("entry, JDK excluded")
    await t.ok("EventRequest", "Clear", event_kind=E.METHOD_ENTRY, request_id=rq_entry)
    await t.set_request(E.VM_DEATH, policy=SuspendPolicy.NONE, note="VMDeath")
    await t.to_the_end()


@scenario(commands=["EventRequest.Set"], events=["BREAKPOINT"])
async def events_two_steps_on_one_thread(t):
    """Two step requests on one thread (JDI refuses the second; both servers accept it), one cleared."""
    sample = await t.start("Sample")
    main = (await t.run_to(sample, "CALL_COMPUTE")).thread
    first = await t.set_request(E.SINGLE_STEP, step(main, StepSize.LINE, StepDepth.OVER), note="a step")
    second = await t.set_request(E.SINGLE_STEP, step(main, StepSize.LINE, StepDepth.OVER), note="a second step")
    await t.ok("EventRequest", "Clear", event_kind=E.SINGLE_STEP, request_id=first)
    await t.breakpoint(sample, "MAIN_END", SuspendPolicy.ALL)
    await t.ok("VirtualMachine", "Resume")
    await t.event("the second step, or the breakpoint")
    await t.ok("EventRequest", "Clear", event_kind=E.SINGLE_STEP, request_id=second)
    await t.to_the_end()


@scenario(events=["BREAKPOINT", "SINGLE_STEP", "FIELD_ACCESS", "CLASS_PREPARE", "METHOD_EXIT",
                  "METHOD_EXIT_WITH_RETURN_VALUE"])
async def events_of_one_kind_in_one_composite(t):
    """Several requests of one kind met at once: the order of their events in the composite."""
    sample = await t.start("Sample")
    await t.run_to(sample, "CALL_COMPUTE")
    for _ in range(3):
        await t.breakpoint(sample, "COMPUTE_TOTAL", SuspendPolicy.ALL)
    await t.ok("VirtualMachine", "Resume")
    bp = await t.event_of(E.BREAKPOINT, "three breakpoints")
    await t.ok("EventRequest", "ClearAllBreakpoints")
    # A breakpoint on the instruction that reads a watched field.
    compute = (await t.methods(sample))["compute"].method_id
    code = (await t.client.command("Method", "Bytecodes", ref_type=sample, method_id=compute)).bytes
    loc = {"type_tag": 1, "class_id": sample, "method_id": compute, "index": code.index(0xB4)}  # getfield
    await t.set_request(E.BREAKPOINT, {"mod_kind": ModKind.LOCATION_ONLY, "loc": loc})
    await t.set_request(E.FIELD_ACCESS, field_only(sample, (await t.fields(sample))["fInt"].field_id), count(1))
    await t.ok("VirtualMachine", "Resume")
    await t.event("breakpoint on a watched read")
    await t.ok("EventRequest", "ClearAllBreakpoints")
    # A line step that ends on a breakpoint's line: one composite (the field read may come first).
    await t.breakpoint(sample, "COMPUTE_RETURN", SuspendPolicy.EVENT_THREAD)
    rid = await t.set_request(E.SINGLE_STEP, step(bp.thread, StepSize.LINE, StepDepth.OVER))
    while True:
        await t.ok("VirtualMachine", "Resume")
        _, events = await t.event("step onto a breakpoint")
        if any(int(e.event_kind) == E.SINGLE_STEP for e in events):
            break
    await t.ok("EventRequest", "Clear", event_kind=E.SINGLE_STEP, request_id=rid)
    await t.ok("EventRequest", "ClearAllBreakpoints")
    await t.set_request(E.METHOD_EXIT, class_match("Sample"), count(1))
    await t.set_request(E.METHOD_EXIT_WITH_RETURN_VALUE, class_match("Sample"), count(1))
    await t.set_request(E.METHOD_EXIT, class_match("Sample"), count(1), note="second")
    await t.ok("VirtualMachine", "Resume")
    await t.event("exits")
    await t.set_request(E.CLASS_PREPARE, class_match("Late*"))
    await t.set_request(E.CLASS_PREPARE, {"mod_kind": ModKind.SOURCE_NAME_MATCH, "source_name_pattern": "*ded.java"},
                        policy=SuspendPolicy.EVENT_THREAD, note="source name")
    await t.ok("VirtualMachine", "Resume")
    await t.event("LateLoaded twice")
    await t.to_the_end()


@scenario(commands=["EventRequest.Set", "EventRequest.Clear", "EventRequest.ClearAllBreakpoints",
                    "ThreadReference.Status", "ThreadReference.ThreadGroup",
                    "ThreadReference.FrameCount", "ThreadReference.SuspendCount", "ThreadReference.OwnedMonitors",
                    "ThreadReference.CurrentContendedMonitor", "ThreadReference.Suspend", "ThreadReference.Resume",
                    "ThreadReference.Interrupt", "ThreadReference.Frames", "ReferenceType.Status",
                    "ReferenceType.Methods", "ReferenceType.Fields", "ReferenceType.GetValues", "ClassType.Superclass"],
          events=[
    "BREAKPOINT", "EXCEPTION", "THREAD_START", "THREAD_DEATH", "CLASS_PREPARE", "METHOD_ENTRY", "SINGLE_STEP",
    "VM_DEATH",
])
async def events_breakpoints_exceptions_threads_classes(t):
    """Count, ThreadOnly, InstanceOnly, ClassOnly, ExceptionOnly, SourceNameMatch; exceptions, threads, classes."""
    sample = await t.start("Sample")
    bp = await t.run_to(sample, "CALL_FACTORIAL")
    main = bp.thread
    # factorial(5) reaches FACT_RECURSE four times: a count of 3 fires on the third, then expires.
    rid = await t.breakpoint(sample, "FACT_RECURSE", SuspendPolicy.ALL, count(3))
    await t.ok("VirtualMachine", "Resume")
    await t.event("third recursion")
    await t.ok("ThreadReference", "FrameCount", thread=main, record=False)
    t.note("EventRequest.Set", "depth at the third hit", len(await t.frames(main)))
    await t.ok("EventRequest", "Clear", event_kind=E.BREAKPOINT, request_id=rid, note="expired")
    # Area of the Circle only: InstanceOnly on method entry; a thread filter on a breakpoint.
    circle_class = await t.class_id("LSample$Circle;")
    circle = await _object_of(t, circle_class)
    rq_entry = await t.set_request(E.METHOD_ENTRY, instance_only(circle), class_match("Sample$*"))
    await t.ok("VirtualMachine", "Resume")
    await t.event("circle's area")
    await t.ok("EventRequest", "Clear", event_kind=E.METHOD_ENTRY, request_id=rq_entry)
    # ClassOnly takes subtypes: the next method of a Shape is the Square's area.
    rq_entry = await t.set_request(E.METHOD_ENTRY, class_only(await t.class_id("LSample$Shape;")), count(1))
    await t.ok("VirtualMachine", "Resume")
    await t.event("a Shape's method")
    # Exceptions: the caught one by class, caught only; then the uncaught one, of any class.
    runtime = await t.class_id("Ljava/lang/RuntimeException;")
    rq_caught = await t.set_request(E.EXCEPTION, exception_only(runtime, True, False), class_match("Sample"))
    rq_uncaught = await t.set_request(E.EXCEPTION, exception_only(0, False, True), policy=SuspendPolicy.EVENT_THREAD)
    await t.ok("VirtualMachine", "Resume")
    await t.event("caught")
    await t.ok("EventRequest", "Clear", event_kind=E.EXCEPTION, request_id=rq_caught)
    # A step out of the throwing frame lands in the handler, frames below unwound.
    rid = await t.set_request(E.SINGLE_STEP, step(main, StepSize.LINE, StepDepth.OUT))
    await t.ok("VirtualMachine", "Resume")
    await t.event("step out into the handler")
    await t.ok("EventRequest", "Clear", event_kind=E.SINGLE_STEP, request_id=rid)
    # Threads: the first worker to start; then its death alone.
    await t.ok("EventRequest", "ClearAllBreakpoints")
    await t.run_to(sample, "CALL_WORKERS")
    rq_start = await t.set_request(E.THREAD_START, count(1))
    await t.ok("VirtualMachine", "Resume")
    started = await t.event_of(E.THREAD_START, "a worker starts")
    await t.set_request(E.THREAD_DEATH, thread_only(started.thread))
    # A breakpoint for main only in the workers' loop never fires; main's next one does.
    await t.breakpoint(sample, "WORK_LOOP", SuspendPolicy.ALL, thread_only(main))
    await t.breakpoint(sample, "WORKERS_JOINED", SuspendPolicy.ALL)
    await t.ok("VirtualMachine", "Resume")
    await t.event("the worker ends")
    await t.ok("VirtualMachine", "Resume")
    await t.event("joined")
    # The worker has ended: what its id still answers.  (Which worker reaches its start callback first
    # is a race: nothing here names it.)
    for name in ("Status", "ThreadGroup", "FrameCount", "SuspendCount", "OwnedMonitors",
                 "CurrentContendedMonitor", "Suspend", "Resume", "Interrupt"):
        await t.cmd("ThreadReference", name, thread=started.thread, note="ended")
    await t.cmd("ThreadReference", "Frames", thread=started.thread, start_frame=0, length=-1, note="ended")
    await t.cmd("ObjectReference", "ReferenceType", object=started.thread, note="ended thread")
    # Requests naming the ended thread: a step has nothing to step (INVALID_THREAD); a filter is taken.
    for kind, mods in ((E.SINGLE_STEP, [step(started.thread, StepSize.LINE, StepDepth.OVER)]),
                       (E.SINGLE_STEP, [step(started.thread, StepSize.MIN, StepDepth.INTO), count(1)]),
                       (E.THREAD_DEATH, [thread_only(started.thread)])):
        code, reply = await t.cmd("EventRequest", "Set", event_kind=kind, suspend_policy=SuspendPolicy.ALL,
                                  modifiers=mods, record=False)
        t.note("EventRequest.Set", f"kind {int(kind)} naming the ended thread", code)
        if code == 0:
            await t.ok("EventRequest", "Clear", event_kind=kind, request_id=reply.request_id, record=False)
    await t.ok("EventRequest", "Clear", event_kind=E.THREAD_START, request_id=rq_start)
    await t.ok("EventRequest", "ClearAllBreakpoints")
    # The uncaught exception in thread "doomed" (suspends that thread only).
    await t.ok("VirtualMachine", "Resume")
    ev = await t.event_of(E.EXCEPTION, "uncaught")
    await t.ok("EventRequest", "Clear", event_kind=E.EXCEPTION, request_id=rq_uncaught)
    await t.ok("ThreadReference", "SuspendCount", thread=ev.thread, note="doomed")
    # LateLoaded's preparation (set while main waits for doomed): matched by source name; excluded otherwise.
    await t.set_request(E.CLASS_PREPARE, class_match("Late*"), class_exclude("*Loaded"), note="excluded")
    await t.set_request(E.CLASS_PREPARE, {"mod_kind": ModKind.SOURCE_NAME_MATCH, "source_name_pattern": "*ded.java"},
                        count(1), policy=SuspendPolicy.EVENT_THREAD, note="source name")
    await t.set_request(E.CLASS_PREPARE, class_match("NoSuchClass"), note="never")
    await t.ok("ThreadReference", "Resume", thread=ev.thread)
    late = await t.event_of(E.CLASS_PREPARE, "LateLoaded")
    # A class just prepared, not yet initialized: what it answers; its static read before <clinit>.
    for name in ("Status", "Methods", "Fields", "ClassLoader", "SourceFile", "Interfaces", "Modifiers"):
        await t.ok("ReferenceType", name, ref_type=late.type_id, note="just prepared")
    await t.ok("ClassType", "Superclass", clazz=late.type_id, note="just prepared")
    greeting = (await t.fields(late.type_id))["GREETING"].field_id
    await t.ok("ReferenceType", "GetValues", ref_type=late.type_id, fields=[{"field_id": greeting}],
               note="before <clinit>")
    await t.ok("ThreadReference", "SuspendCount", thread=late.thread, note="at the ClassPrepare")
    await t.ok("ThreadReference", "FrameCount", thread=late.thread, note="at the ClassPrepare")
    await t.to_the_end()


@scenario(debuggee="conf", main="Conf", commands=["EventRequest.Set", "EventRequest.Clear"], events=[
    "FIELD_ACCESS", "FIELD_MODIFICATION", "MONITOR_CONTENDED_ENTER", "MONITOR_CONTENDED_ENTERED", "MONITOR_WAIT",
    "MONITOR_WAITED", "CLASS_PREPARE", "CLASS_UNLOAD", "VM_DEATH",
])
async def events_fields_monitors_and_unloading(t):
    """Field watches (FieldOnly, InstanceOnly), monitor contention and waits, a class loaded then unloaded."""
    conf = await t.start("Conf")
    main = (await t.run_to(conf, "C_CALL_BUMP")).thread
    obj = await _object_of(t, conf)
    fields = await t.fields(conf)
    value, label = fields["value"].field_id, fields["label"].field_id
    rq_access = await t.set_request(E.FIELD_ACCESS, field_only(conf, value), instance_only(obj))
    rq_mod = await t.set_request(E.FIELD_MODIFICATION, field_only(conf, value), class_only(conf))
    await t.set_request(E.FIELD_ACCESS, field_only(conf, label), note="label: never read")
    await t.ok("VirtualMachine", "Resume")
    await t.event("read value")
    await t.ok("VirtualMachine", "Resume")
    await t.event("write value")
    await t.ok("EventRequest", "Clear", event_kind=E.FIELD_ACCESS, request_id=rq_access)
    await t.ok("EventRequest", "Clear", event_kind=E.FIELD_MODIFICATION, request_id=rq_mod)
    await t.cmd("EventRequest", "Set", event_kind=E.FIELD_ACCESS, suspend_policy=SuspendPolicy.ALL,
                modifiers=[field_only(conf, BAD)], note="unknown field")
    # Monitors: the contender blocks on lock, enters once main lets go; main waits on waitLock.
    await t.run_to(conf, "C_CALL_CONTEND")
    lock, wait_lock = await _static(t, conf, "lock"), await _static(t, conf, "waitLock")
    # (Counts of 1: the reference also lets through, now and then, the contention on the contender's
    # own Thread object as it ends and main joins it, InstanceOnly notwithstanding.)
    await t.set_request(E.MONITOR_CONTENDED_ENTER, instance_only(lock), count(1))
    await t.set_request(E.MONITOR_CONTENDED_ENTERED, instance_only(lock), count(1))
    await t.set_request(E.MONITOR_WAIT, instance_only(wait_lock))
    # (The class of a wait event is the one of the frame that waits: Object's native wait.)
    await t.set_request(E.MONITOR_WAITED, instance_only(wait_lock), class_match("java.lang.Object"))
    for why in ("contended enter", "contended entered", "wait", "waited"):
        await t.ok("VirtualMachine", "Resume")
        await t.event(why)
    # Unloading: ConfUnloaded is prepared, then its loader dropped and collected.
    await t.set_request(E.CLASS_PREPARE, class_match("ConfUnloaded"))
    # SUSPEND_ALL: the reference suspends nothing for an unload and its composite says NONE.
    await t.set_request(E.CLASS_UNLOAD, class_match("Conf*"), policy=SuspendPolicy.ALL)
    await t.breakpoint(conf, "C_AFTER_UNLOAD", SuspendPolicy.ALL)
    await t.ok("VirtualMachine", "Resume")
    await t.event("ConfUnloaded prepared")
    await t.ok("VirtualMachine", "Resume")
    # Both the unload and the breakpoint after it come; compared whatever their order, which is
    # compared on its own.
    arrived = [await t.client.next_event(30), await t.client.next_event(30)]
    kinds = [[E(int(e.event_kind)).name for e in events] for _, events in arrived]
    for policy, events in sorted(arrived, key=lambda a: int(a[1][0].event_kind)):
        t.record_event(policy, events, "unload, breakpoint")
    t.note("Event.CLASS_UNLOAD", "reported before the next event", kinds)
    # A static field read and written on the breakpoint's line (counter += 100): no object.
    counter = fields["counter"].field_id
    await t.set_request(E.FIELD_ACCESS, field_only(conf, counter), class_only(conf), count(1))
    await t.set_request(E.FIELD_MODIFICATION, field_only(conf, counter), thread_only(main), count(1))
    await t.ok("VirtualMachine", "Resume")
    await t.event("counter read")
    await t.ok("VirtualMachine", "Resume")
    await t.event("counter written")
    await t.set_request(E.VM_DEATH, policy=SuspendPolicy.ALL, note="VMDeath, suspend all")
    await t.to_the_end()


MATRIX_KINDS = (E.SINGLE_STEP, E.BREAKPOINT, E.FRAME_POP, E.EXCEPTION, E.USER_DEFINED, E.THREAD_START,
                E.THREAD_DEATH, E.CLASS_PREPARE, E.CLASS_UNLOAD, E.CLASS_LOAD, E.FIELD_ACCESS, E.FIELD_MODIFICATION,
                E.EXCEPTION_CATCH, E.METHOD_ENTRY, E.METHOD_EXIT, E.METHOD_EXIT_WITH_RETURN_VALUE,
                E.MONITOR_CONTENDED_ENTER, E.MONITOR_CONTENDED_ENTERED, E.MONITOR_WAIT, E.MONITOR_WAITED, E.VM_START,
                E.VM_DEATH)


@scenario(commands=["EventRequest.Set"])
async def event_modifiers_allowed_per_kind(t):
    """Every event kind with every modifier (well-formed arguments): which the servers accept."""
    await t.event_of(E.VM_START, "start")
    string = await t.class_id("Ljava/lang/String;")
    thread = (await t.client.command("VirtualMachine", "AllThreads")).threads[0].thread
    length = (await t.methods(string))["length"].method_id
    hash_field = (await t.fields(string))["hash"].field_id
    location = {"type_tag": 1, "class_id": string, "method_id": length, "index": 0}
    mods = {
        ModKind.COUNT: count(1),
        ModKind.CONDITIONAL: {"mod_kind": ModKind.CONDITIONAL, "expr_id": 1},
        ModKind.THREAD_ONLY: thread_only(thread),
        ModKind.CLASS_ONLY: class_only(string),
        ModKind.CLASS_MATCH: class_match("java.*"),
        ModKind.CLASS_EXCLUDE: class_exclude("java.*"),
        ModKind.LOCATION_ONLY: {"mod_kind": ModKind.LOCATION_ONLY, "loc": location},
        ModKind.EXCEPTION_ONLY: exception_only(0, True, True),
        ModKind.FIELD_ONLY: field_only(string, hash_field),
        ModKind.STEP: step(thread, StepSize.LINE, StepDepth.OVER),
        ModKind.INSTANCE_ONLY: instance_only(thread),
        ModKind.SOURCE_NAME_MATCH: {"mod_kind": ModKind.SOURCE_NAME_MATCH, "source_name_pattern": "*.java"},
        ModKind.PLATFORM_THREADS_ONLY: {"mod_kind": ModKind.PLATFORM_THREADS_ONLY},
    }
    # The modifier a kind cannot go without comes first (a breakpoint needs its location...).
    needs = {E.BREAKPOINT: ModKind.LOCATION_ONLY, E.SINGLE_STEP: ModKind.STEP, E.FIELD_ACCESS: ModKind.FIELD_ONLY,
             E.FIELD_MODIFICATION: ModKind.FIELD_ONLY}
    for kind in MATRIX_KINDS:
        accepted = {}
        for mod_kind, mod in [(None, None), *mods.items()]:
            base = [mods[needs[kind]]] if kind in needs and mod_kind != needs[kind] else []
            chosen = base + ([mod] if mod else [])
            code, reply = await t.cmd("EventRequest", "Set", event_kind=kind, suspend_policy=SuspendPolicy.NONE,
                                      modifiers=chosen, record=False)
            accepted[mod_kind.name if mod_kind else "none"] = code
            if code == 0:
                await t.ok("EventRequest", "Clear", event_kind=kind, request_id=reply.request_id, record=False)
        t.note("EventRequest.Set", f"{E(kind).name} with each modifier", accepted)
    await t.to_the_end()


@scenario(commands=["EventRequest.Set", "EventRequest.Clear", "EventRequest.ClearAllBreakpoints"])
async def event_requests_refused_and_accepted(t):
    """Which kinds, modifiers and arguments each server accepts, and the error codes of the rest."""
    await t.event_of(E.VM_START, "start")
    string = await t.class_id("Ljava/lang/String;")
    thread = (await t.client.command("VirtualMachine", "AllThreads")).threads[0].thread
    group = (await t.client.command("VirtualMachine", "TopLevelThreadGroups")).groups[0].group
    step_mod = step(thread, StepSize.LINE, StepDepth.OVER)
    length = (await t.methods(string))["length"].method_id
    object_class = await t.class_id("Ljava/lang/Object;")
    hash_code = (await t.methods(object_class))["hashCode"].method_id
    cases = [
        (E.USER_DEFINED, []), (77, []), (E.VM_START, []), (E.FRAME_POP, []), (E.EXCEPTION_CATCH, []),
        (E.CLASS_LOAD, []), (E.BREAKPOINT, []), (E.FIELD_ACCESS, []), (E.FIELD_MODIFICATION, []),
        (E.SINGLE_STEP, []), (E.VM_DEATH, []), (E.VM_DEATH, [count(1)]), (E.MONITOR_WAIT, []),
        (E.CLASS_PREPARE, [count(0)]), (E.CLASS_PREPARE, [count(-1)]), (E.CLASS_PREPARE, [count(2)]),
        (E.CLASS_PREPARE, [{"mod_kind": ModKind.CONDITIONAL, "expr_id": 1}]),
        (E.THREAD_START, [class_match("x.*")]), (E.THREAD_START, [class_only(string)]),
        (E.THREAD_DEATH, [thread_only(thread)]), (E.CLASS_UNLOAD, [thread_only(thread)]),
        (E.CLASS_UNLOAD, [class_match("*")]), (E.CLASS_UNLOAD, [class_only(string)]),
        (E.CLASS_PREPARE, [{"mod_kind": ModKind.SOURCE_NAME_MATCH, "source_name_pattern": "*.java"}]),
        (E.BREAKPOINT, [{"mod_kind": ModKind.SOURCE_NAME_MATCH, "source_name_pattern": "*.java"}]),
        (E.THREAD_START, [thread_only(BAD)]), (E.THREAD_START, [thread_only(group)]),
        (E.CLASS_PREPARE, [class_only(thread)]),
        (E.CLASS_PREPARE, [class_only(BAD)]), (E.METHOD_ENTRY, [instance_only(BAD)]),
        (E.METHOD_ENTRY, [instance_only(0)]), (E.THREAD_START, [instance_only(thread)]),
        (E.SINGLE_STEP, [step(group, StepSize.LINE, StepDepth.OVER)]), (E.SINGLE_STEP, [step(BAD, 1, 1)]),
        (E.SINGLE_STEP, [step(thread, 7, 1)]), (E.SINGLE_STEP, [step(thread, 1, 7)]),
        (E.SINGLE_STEP, [step_mod, step_mod]), (E.BREAKPOINT, [step_mod]),
        (E.EXCEPTION, [exception_only(0, True, False)]), (E.EXCEPTION, [exception_only(string, True, True)]),
        (E.EXCEPTION, [exception_only(BAD, True, True)]), (E.EXCEPTION, [exception_only(0, False, False)]),
        (E.CLASS_PREPARE, [exception_only(0, True, False)]),
        (E.METHOD_EXIT_WITH_RETURN_VALUE, [class_match("Sample")]), (E.METHOD_EXIT, [class_exclude("java.*")]),
        (E.MONITOR_CONTENDED_ENTER, [class_only(string)]), (E.MONITOR_WAITED, [thread_only(thread)]),
        (E.FIELD_ACCESS, [field_only(string, BAD)]), (E.FIELD_ACCESS, [field_only(BAD, BAD)]),
        (E.THREAD_START, [{"mod_kind": ModKind.PLATFORM_THREADS_ONLY}]),
        (E.THREAD_DEATH, [{"mod_kind": ModKind.PLATFORM_THREADS_ONLY}]),
        (E.CLASS_PREPARE, [{"mod_kind": ModKind.PLATFORM_THREADS_ONLY}]),
        (E.BREAKPOINT, [{"mod_kind": ModKind.LOCATION_ONLY, "loc": {"type_tag": 1, "class_id": BAD,
                                                                     "method_id": 1, "index": 0}}]),
        # (A method id nobody handed out kills the reference's VM: see test_conformance_differences.)
        (E.BREAKPOINT, [{"mod_kind": ModKind.LOCATION_ONLY, "loc": {"type_tag": 1, "class_id": string,
                                                                     "method_id": length, "index": 9999}}]),
        (E.BREAKPOINT, [{"mod_kind": ModKind.LOCATION_ONLY, "loc": {"type_tag": 1, "class_id": string,
                                                                     "method_id": length, "index": -1}}]),
        (E.BREAKPOINT, [{"mod_kind": ModKind.LOCATION_ONLY, "loc": {"type_tag": 1, "class_id": object_class,
                                                                     "method_id": hash_code, "index": 0}}]),
        (E.BREAKPOINT, [{"mod_kind": ModKind.LOCATION_ONLY, "loc": {"type_tag": 1, "class_id": object_class,
                                                                     "method_id": hash_code, "index": -1}}]),
    ]
    # Only the codes are compared: request ids are numbered by who accepted what before.
    cases.append((E.CLASS_PREPARE, [], 7))
    for i, (kind, mods, *policy) in enumerate(cases):
        label = f"case {i}: kind {int(kind)}, modifiers {[int(m['mod_kind']) for m in mods]}" + (
            f", policy {policy[0]}" if policy else "")
        code, reply = await t.cmd("EventRequest", "Set", event_kind=kind, suspend_policy=policy[0] if policy else 0,
                                  modifiers=mods, record=False)
        t.note("EventRequest.Set", label, code)
        if code == 0:
            await t.ok("EventRequest", "Clear", event_kind=kind, request_id=reply.request_id, record=False)
    await t.cmd("EventRequest", "Clear", event_kind=E.CLASS_PREPARE, request_id=9999, note="unknown id")
    await t.cmd("EventRequest", "Clear", event_kind=E.USER_DEFINED, request_id=1, note="bad kind")
    await t.cmd("EventRequest", "Clear", event_kind=77, request_id=1, note="unknown kind")
    rid = await t.set_request(E.CLASS_PREPARE, class_match("Nothing"), policy=SuspendPolicy.NONE)
    await t.cmd("EventRequest", "Clear", event_kind=E.THREAD_START, request_id=rid, note="wrong kind")
    await t.ok("EventRequest", "Clear", event_kind=E.CLASS_PREPARE, request_id=rid)
    await t.ok("EventRequest", "Clear", event_kind=E.CLASS_PREPARE, request_id=rid, note="twice")
    await t.ok("EventRequest", "ClearAllBreakpoints")
    await t.ok("EventRequest", "ClearAllBreakpoints", note="twice")
    await t.to_the_end()


@scenario(events=["SINGLE_STEP", "BREAKPOINT"])
async def events_step_over_a_throwing_call(t):
    """A line step over a call that throws, caught in the stepping frame."""
    sample = await t.start("Sample")
    main = (await t.run_to(sample, "CALL_THROWER")).thread
    rid = await t.set_request(E.SINGLE_STEP, step(main, StepSize.LINE, StepDepth.OVER))
    await t.ok("VirtualMachine", "Resume")
    await t.event("over the throwing call")
    await t.ok("EventRequest", "Clear", event_kind=E.SINGLE_STEP, request_id=rid)
    await t.to_the_end()


@scenario(events=["SINGLE_STEP", "BREAKPOINT"])
async def events_step_into_from_a_throw(t):
    """A line step into from the throw statement, the JDK excluded: where the exception is caught."""
    sample = await t.start("Sample")
    main = (await t.run_to(sample, "THROW")).thread
    rid = await t.set_request(E.SINGLE_STEP, step(main, StepSize.LINE, StepDepth.INTO), class_exclude("java.*"),
                              class_exclude("jdk.*"))
    await t.ok("VirtualMachine", "Resume")
    await t.event("into from the throw")
    await t.ok("EventRequest", "Clear", event_kind=E.SINGLE_STEP, request_id=rid)
    await t.to_the_end()


@scenario(events=["SINGLE_STEP", "BREAKPOINT"])
async def events_step_into_through_the_jdk(t):
    """Line steps into from lines that run much JDK code (string concatenation's bootstrap, println),
    the JDK excluded; then into Sample's own methods; then min steps."""
    sample = await t.start("Sample")
    main = (await t.run_to(sample, "MAIN_LOCALS")).thread
    for n in range(4):
        rid = await t.set_request(E.SINGLE_STEP, step(main, StepSize.LINE, StepDepth.INTO), class_exclude("java.*"),
                                  class_exclude("jdk.*"), class_exclude("sun.*"), count(1))
        await t.ok("VirtualMachine", "Resume")
        await t.event(f"into {n}")
        await t.ok("EventRequest", "Clear", event_kind=E.SINGLE_STEP, request_id=rid)
    for n in range(3):
        rid = await t.set_request(E.SINGLE_STEP, step(main, StepSize.MIN, StepDepth.OVER))
        await t.ok("VirtualMachine", "Resume")
        await t.event(f"min over {n}")
        await t.ok("EventRequest", "Clear", event_kind=E.SINGLE_STEP, request_id=rid)
    await t.to_the_end()
