"""Objects: ObjectReference, StringReference, ArrayReference and ThreadGroupReference sets."""

from __future__ import annotations

from protocol.constants import InvokeOptions, Tag
from tests.conformance.registry import scenario

BAD = 0x7EADBEEF


async def _sample_object(t, sample: int) -> int:
    r = await t.client.command("ReferenceType", "Instances", ref_type=sample, max_instances=1)
    return r.instances[0].instance.object_id


@scenario(commands=[
    "ObjectReference.ReferenceType", "ObjectReference.GetValues", "ObjectReference.SetValues",
    "ObjectReference.MonitorInfo", "ObjectReference.InvokeMethod", "ObjectReference.DisableCollection",
    "ObjectReference.EnableCollection", "ObjectReference.IsCollected", "ObjectReference.ReferringObjects",
])
async def object_fields_invocations_and_collection(t):
    """Instance fields read and written, virtual/nonvirtual invokes, pins, referrers, and bad ids."""
    sample = await t.start("Sample")
    bp = await t.run_to(sample, "TOTAL_AREA_LOOP")
    thread = bp.thread
    obj = await _sample_object(t, sample)
    fields = await t.fields(sample)
    instance = [f for f in fields.values() if not f.mod_bits & 0x8]
    await t.ok("ObjectReference", "ReferenceType", object=obj)
    got = await t.ok("ObjectReference", "GetValues", object=obj, fields=[{"field_id": f.field_id} for f in instance])
    by_name = {f.name: g.value for f, g in zip(instance, got.values, strict=True)}
    await t.ok("ObjectReference", "GetValues", object=obj, fields=[], note="none")
    ids = {n: f.field_id for n, f in fields.items()}
    await t.ok("ObjectReference", "SetValues", object=obj, values=[
        {"field_id": ids["fInt"], "value": (Tag.INT, 7)}, {"field_id": ids["fBoolean"], "value": (Tag.BOOLEAN, True)},
        {"field_id": ids["fByte"], "value": (Tag.BYTE, -1)}, {"field_id": ids["fChar"], "value": (Tag.CHAR, 0xDF)},
        {"field_id": ids["fShort"], "value": (Tag.SHORT, 1)}, {"field_id": ids["fLong"], "value": (Tag.LONG, -3)},
        {"field_id": ids["fFloat"], "value": (Tag.FLOAT, 0.25)},
        {"field_id": ids["fDouble"], "value": (Tag.DOUBLE, 1e9)},
        {"field_id": ids["fString"], "value": (Tag.OBJECT, 0)}, {"field_id": ids["fNull"], "value": (Tag.OBJECT, obj)}])
    await t.ok("ObjectReference", "GetValues", object=obj, fields=[{"field_id": f.field_id} for f in instance],
               note="after SetValues")
    await t.ok("ObjectReference", "SetValues", object=obj, values=[], note="none")
    circle = by_name["fShape"].value
    circle_class = await t.class_id("LSample$Circle;")
    await t.ok("ObjectReference", "ReferenceType", object=circle, note="circle")
    await t.ok("ObjectReference", "GetValues", object=circle,
               fields=[{"field_id": f.field_id} for f in (await t.fields(circle_class)).values()], note="circle")
    # Values carry the runtime kind: thread, group, loader, class object, string, array.
    await t.ok("ObjectReference", "ReferenceType", object=thread, note="a thread")
    thread_class = await t.class_id("Ljava/lang/Thread;")
    tf = await t.fields(thread_class)
    wanted = [n for n in ("name", "priority", "daemon", "contextClassLoader", "tid") if n in tf]
    await t.ok("ObjectReference", "GetValues", object=thread, fields=[{"field_id": tf[n].field_id} for n in wanted],
               note="a thread")
    # Invocations: virtual, nonvirtual (skips the override), throwing, on a string, errors.
    shape = await t.class_id("LSample$Shape;")
    object_class = await t.class_id("Ljava/lang/Object;")
    opts = InvokeOptions.INVOKE_SINGLE_THREADED
    call = {"thread": thread, "options": opts}
    sample_methods = await t.methods(sample)
    await t.ok("ObjectReference", "InvokeMethod", object=obj, clazz=sample,
               method_id=sample_methods["compute"].method_id, arguments=[(Tag.INT, 3)], **call)
    await t.ok("ObjectReference", "InvokeMethod", object=circle, clazz=shape,
               method_id=(await t.methods(shape))["area"].method_id, arguments=[], **call, note="interface method")
    to_string = (await t.methods(object_class))["toString"].method_id
    code, r = await t.cmd("ObjectReference", "InvokeMethod", object=circle, clazz=object_class, method_id=to_string,
                          arguments=[], thread=thread, options=opts | InvokeOptions.INVOKE_NONVIRTUAL,
                          note="nonvirtual Object.toString", record=False)
    t.note("ObjectReference.InvokeMethod", "nonvirtual toString starts with", (
        code, (await t.client.command("StringReference", "Value", string_object=r.return_value.value)).string_value
        .split("@")[0]))
    get_class = (await t.methods(object_class))["getClass"].method_id
    await t.ok("ObjectReference", "InvokeMethod", object=obj, clazz=object_class, method_id=get_class,
               arguments=[], **call, note="getClass")
    # (Missing, extra or mistyped arguments kill the reference's VM: see test_conformance_differences.)
    # (So does a method of another class.)
    await t.cmd("ObjectReference", "InvokeMethod", object=BAD, clazz=sample,
                method_id=sample_methods["compute"].method_id, arguments=[(Tag.INT, 3)], **call, note="unknown")
    await t.cmd("ObjectReference", "InvokeMethod", object=obj, clazz=sample,
                method_id=sample_methods["compute"].method_id, arguments=[(Tag.INT, 3)], thread=BAD, options=opts,
                note="unknown thread")
    await t.cmd("ObjectReference", "InvokeMethod", object=obj, clazz=sample,
                method_id=sample_methods["compute"].method_id, arguments=[(Tag.INT, 3)], thread=obj, options=opts,
                note="an object as thread")
    # Monitors, pins, collection, referrers.
    await t.ok("ObjectReference", "MonitorInfo", object=obj)
    await t.ok("ObjectReference", "MonitorInfo", object=thread, note="a thread")
    for name in ("IsCollected", "DisableCollection", "DisableCollection", "EnableCollection", "EnableCollection",
                 "EnableCollection", "IsCollected"):
        await t.ok("ObjectReference", name, object=circle, note="circle")
    code, referrers = await t.cmd("ObjectReference", "ReferringObjects", object=circle, max_referrers=0,
                                  record=False)
    t.note("ObjectReference.ReferringObjects", "circle's referrers", (
        code, sorted([(await t.client.command("ObjectReference", "ReferenceType", object=o.instance.object_id)
                       ).type_id == sample for o in referrers.referring_objects])))
    await t.ok("ObjectReference", "ReferringObjects", object=obj, max_referrers=1, note="sample, one")
    await t.cmd("ObjectReference", "ReferringObjects", object=circle, max_referrers=-1, note="negative")
    # (The null id kills the reference's VM in all but IsCollected: see test_conformance_differences.)
    await t.cmd("ObjectReference", "IsCollected", object=0, note="null")
    await t.cmd("ObjectReference", "MonitorInfo", object=0, note="null")
    for bad, note in ((BAD, "unknown"),):
        for name in ("ReferenceType", "MonitorInfo", "IsCollected", "DisableCollection", "EnableCollection"):
            await t.cmd("ObjectReference", name, object=bad, note=note)
        await t.cmd("ObjectReference", "ReferringObjects", object=bad, max_referrers=0, note=note)
    await t.cmd("ObjectReference", "GetValues", object=BAD, fields=[{"field_id": ids["fInt"]}], note="unknown")
    await t.cmd("ObjectReference", "SetValues", object=BAD, values=[{"field_id": ids["fInt"], "value": (Tag.INT, 1)}],
                note="unknown")


@scenario(commands=[
    "ArrayReference.Length", "ArrayReference.GetValues", "ArrayReference.SetValues", "StringReference.Value",
    "ArrayType.NewInstance", "VirtualMachine.CreateString",
])
async def arrays_and_strings(t):
    """Every array component type: lengths, regions, bounds, writes, wrong types; strings of every kind."""
    sample = await t.start("Sample")
    await t.run_to(sample, "TOTAL_AREA_LOOP")
    fields = await t.fields(sample)
    names = ["sInts", "sLongs", "sDoubles", "sFloats", "sBooleans", "sChars", "sBytes", "sShorts", "sStrings",
             "sObjects", "sMatrix", "sEmptyInts"]
    got = await t.ok("ReferenceType", "GetValues", ref_type=sample,
                     fields=[{"field_id": fields[n].field_id} for n in names], record=False)
    arrays = {n: g.value.value for n, g in zip(names, got.values, strict=True)}
    for n, arr in arrays.items():
        length = (await t.ok("ArrayReference", "Length", array_object=arr, note=n)).array_length
        await t.cmd("ArrayReference", "GetValues", array_object=arr, first_index=0, length=length, note=n)
        for first, count, why in ((length, 0, "empty at end"), (0, length + 1, "too long"), (-1, 1, "negative"),
                                  (length, 1, "past the end"), (0, -1, "negative length")):
            await t.cmd("ArrayReference", "GetValues", array_object=arr, first_index=first, length=count,
                        note=f"{n} {why}")
    s_strings = arrays["sStrings"]
    ascii_id = (await t.client.command("ReferenceType", "GetValues", ref_type=sample,
                                       fields=[{"field_id": fields["sAscii"].field_id}])).values[0].value.value
    writes = [("sInts", [(1, [5, -6])], Tag.INT), ("sLongs", [(0, [1 << 62])], Tag.LONG),
              ("sDoubles", [(1, [0.1])], Tag.DOUBLE), ("sFloats", [(0, [2.5])], Tag.FLOAT),
              ("sBooleans", [(0, [False, True])], Tag.BOOLEAN), ("sChars", [(2, [0x263A])], Tag.CHAR),
              ("sBytes", [(0, [-1])], Tag.BYTE), ("sShorts", [(1, [12])], Tag.SHORT),
              ("sStrings", [(1, [ascii_id])], Tag.OBJECT), ("sObjects", [(0, [0])], Tag.OBJECT)]
    for n, regions, tag in writes:
        for first, values in regions:
            await t.cmd("ArrayReference", "SetValues", array_object=arrays[n], first_index=first,
                        values=[(tag, v) for v in values], note=n)
        length = (await t.client.command("ArrayReference", "Length", array_object=arrays[n])).array_length
        await t.ok("ArrayReference", "GetValues", array_object=arrays[n], first_index=0, length=length,
                   note=f"{n} after")
    for first, values, why in ((3, [1, 2], "past the end"), (-1, [1], "negative"), (4, [], "empty at end")):
        await t.cmd("ArrayReference", "SetValues", array_object=arrays["sInts"], first_index=first,
                    values=[(Tag.INT, v) for v in values], note=why)
    await t.cmd("ArrayReference", "SetValues", array_object=s_strings, first_index=0,
                values=[(Tag.ARRAY, arrays["sInts"])], note="an int[] into String[]")
    await t.cmd("ArrayReference", "SetValues", array_object=arrays["sMatrix"], first_index=0,
                values=[(Tag.ARRAY, arrays["sLongs"])], note="a long[] into int[][]")
    # (The null array kills the reference's VM: see test_conformance_differences.)
    for bad, note in ((BAD, "unknown"), (ascii_id, "a string")):
        await t.cmd("ArrayReference", "Length", array_object=bad, note=note)
        await t.cmd("ArrayReference", "GetValues", array_object=bad, first_index=0, length=0, note=note)
    await t.cmd("ArrayReference", "SetValues", array_object=BAD, first_index=0, values=[], note="unknown")
    # Big answers: a new int[100000] whole, a long[] region, a string of 100000 characters.
    big = (await t.ok("ArrayType", "NewInstance", arr_type=await t.class_id("[I"), length=100000,
                      note="big")).new_array.object_id
    await t.ok("ArrayReference", "SetValues", array_object=big, first_index=99990,
               values=[(Tag.INT, i * 1000003) for i in range(10)], note="big")
    await t.ok("ArrayReference", "GetValues", array_object=big, first_index=0, length=100000, note="big")
    long_text = "\u00e9\U0001d11e" * 50000
    made = (await t.ok("VirtualMachine", "CreateString", utf=long_text, note="big")).string_object
    await t.ok("StringReference", "Value", string_object=made, note="big")
    for n in ("sAscii", "sUnicode", "sSupplementary", "sEmpty"):
        sid = (await t.client.command("ReferenceType", "GetValues", ref_type=sample,
                                      fields=[{"field_id": fields[n].field_id}])).values[0].value.value
        await t.ok("StringReference", "Value", string_object=sid, note=n)
    await t.cmd("StringReference", "Value", string_object=arrays["sInts"], note="an array")
    await t.cmd("StringReference", "Value", string_object=BAD, note="unknown")


@scenario(commands=["ThreadGroupReference.Name", "ThreadGroupReference.Parent", "ThreadGroupReference.Children"])
async def thread_groups(t):
    """The group tree from the top-level groups down; bad ids."""
    sample = await t.start("Sample")
    await t.run_to(sample, "WORKERS_JOINED")
    groups = (await t.client.command("VirtualMachine", "TopLevelThreadGroups")).groups
    todo = [g.group for g in groups]
    while todo:
        group = todo.pop(0)
        await t.ok("ThreadGroupReference", "Name", group=group)
        await t.ok("ThreadGroupReference", "Parent", group=group)
        code, children = await t.cmd("ThreadGroupReference", "Children", group=group, record=False)
        names = sorted([(await t.client.command("ThreadReference", "Name", thread=c.child_thread)).thread_name
                        for c in children.child_threads])
        t.note("ThreadGroupReference.Children", "thread names", (code, names))
        subgroups = [c.child_group for c in children.child_groups]
        t.note("ThreadGroupReference.Children", "group count", len(subgroups))
        todo.extend(subgroups)
    # (The null group kills the reference's VM: see test_conformance_differences.)
    thread = (await t.client.command("VirtualMachine", "AllThreads")).threads[0].thread
    for bad, note in ((BAD, "unknown"), (thread, "a thread")):
        for name in ("Name", "Parent", "Children"):
            await t.cmd("ThreadGroupReference", name, group=bad, note=note)


@scenario(commands=["StringReference.Value", "StackFrame.ThisObject"])
async def string_before_its_constructor_ran(t):
    """A String stopped at the first bytecode of its constructor: its value array is not set yet, and
    its Value is the empty string (JNI gives no characters and no exception).  (OpenJDK's own
    GetUninitializedStringValue test asks the same.)"""
    from protocol.constants import EventKind, ModKind, SuspendPolicy, TypeTag

    await t.event_of(EventKind.VM_START, "start")
    string = await t.class_id("Ljava/lang/String;")
    methods = (await t.client.command("ReferenceType", "Methods", ref_type=string)).declared
    for init in (m for m in methods if m.name == "<init>"):  # whichever runs first
        await t.ok("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.ALL,
                   modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": {
                       "type_tag": TypeTag.CLASS, "class_id": string, "method_id": init.method_id, "index": 0}}],
                   record=False)
    await t.ok("VirtualMachine", "Resume")
    hit = await t.event_of(EventKind.BREAKPOINT, "a String constructor")
    await t.ok("EventRequest", "ClearAllBreakpoints")
    frame = (await t.frames(hit.thread))[0].frame_id
    code, this = await t.cmd("StackFrame", "ThisObject", thread=hit.thread, frame=frame)
    await t.cmd("StringReference", "Value", string_object=this.object_this.object_id, note="not constructed yet")
    await t.to_the_end()
