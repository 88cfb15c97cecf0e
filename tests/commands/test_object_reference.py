"""ObjectReference: fields, monitors, collection, referrers, bad ids; against the reference."""

from __future__ import annotations

import pytest
from types_support import differential, field_ids, method_ids

from protocol.constants import InvokeOptions, Tag

pytestmark = pytest.mark.jvm


async def _sample_object(t):
    sample = await t.class_id("LSample;")
    inst = await t.ok("ReferenceType", "Instances", ref_type=sample, max_instances=1)
    return sample, inst.instances[0].instance.object_id


async def test_fields_monitors_and_collection(sample_classes, sample_markers):
    async def scenario(t):
        await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        sample, obj = await _sample_object(t)
        await t.cmd("ObjectReference", "ReferenceType", object=obj)
        fields = await t.ok("ReferenceType", "Fields", ref_type=sample)
        ids = field_ids(fields)
        instance = [f for f in fields.declared if not f.mod_bits & 0x8]
        values = await t.ok("ObjectReference", "GetValues", object=obj,
                            fields=[{"field_id": f.field_id} for f in instance])
        by_name = {f.name: g.value for f, g in zip(instance, values.values, strict=True)}
        assert by_name["fInt"].value == 123456 and by_name["fNull"].tag == Tag.OBJECT
        assert by_name["fString"].tag == Tag.STRING
        # (A static field's id through ObjectReference.GetValues kills the reference's VM; JDI
        # sends statics through ReferenceType.GetValues.)
        await t.ok("ObjectReference", "SetValues", object=obj,
                   values=[{"field_id": ids["fInt"], "value": (Tag.INT, 7)},
                           {"field_id": ids["fBoolean"], "value": (Tag.BOOLEAN, True)},
                           {"field_id": ids["fLong"], "value": (Tag.LONG, -3)},
                           {"field_id": ids["fString"], "value": (Tag.OBJECT, 0)}])
        await t.cmd("ObjectReference", "GetValues", object=obj,
                    fields=[{"field_id": ids[n]} for n in ("fInt", "fBoolean", "fLong", "fString")], note="after set")
        # The Circle in fShape: its class, its field, its own class's view.
        circle = by_name["fShape"].value
        await t.cmd("ObjectReference", "ReferenceType", object=circle, note="circle")
        circle_fields = await t.ok("ReferenceType", "Fields", ref_type=await t.class_id("LSample$Circle;"))
        await t.cmd("ObjectReference", "GetValues", object=circle,
                    fields=[{"field_id": f.field_id} for f in circle_fields.declared], note="circle")
        await t.cmd("ObjectReference", "MonitorInfo", object=obj)
        await t.cmd("ObjectReference", "IsCollected", object=obj)
        await t.cmd("ObjectReference", "DisableCollection", object=obj)
        await t.cmd("ObjectReference", "EnableCollection", object=obj)
        await t.cmd("ObjectReference", "EnableCollection", object=obj, note="twice")
        code, referrers = await t.cmd("ObjectReference", "ReferringObjects", object=circle, max_referrers=0,
                                      record=False)
        t.note("circle referrers", (code, len(referrers.referring_objects) if referrers else None))
        await t.cmd("ObjectReference", "ReferringObjects", object=circle, max_referrers=-1, note="negative")
        for bad, note in ((0x7EADBEEF, "unknown"),):
            for name in ("ReferenceType", "MonitorInfo", "IsCollected", "DisableCollection"):
                await t.cmd("ObjectReference", name, object=bad, note=note)
            await t.cmd("ObjectReference", "GetValues", object=bad, fields=[{"field_id": ids["fInt"]}], note=note)
        await t.cmd("ObjectReference", "IsCollected", object=0, note="null")

    await differential(sample_classes, "Sample", scenario)


async def test_values_carry_the_runtime_kind_of_the_object(sample_classes, sample_markers):
    """Thread ('t'), thread group ('g'), class loader ('l') and class object ('c') values, as tagged."""

    async def scenario(t):
        thread, sample = await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        await t.cmd("ObjectReference", "ReferenceType", object=thread, note="thread")
        thread_class = await t.class_id("Ljava/lang/Thread;")
        fields = {f.name: f.field_id for f in (await t.ok("ReferenceType", "Fields", ref_type=thread_class)).declared}
        wanted = ["name", "priority", "daemon", "group", "contextClassLoader", "tid"]
        code, values = await t.cmd("ObjectReference", "GetValues", object=thread,
                                   fields=[{"field_id": fields[n]} for n in wanted if n in fields])
        assert code == 0
        tags = {chr(g.value.tag) for g in values.values}
        assert {"s", "l"} <= tags, tags
        # (JDK 21+ moved Thread.group away; the group's own parent field is in every release.)
        group = (await t.ok("ThreadReference", "ThreadGroup", thread=thread)).group
        group_class = await t.class_id("Ljava/lang/ThreadGroup;")
        group_fields = {f.name: f.field_id
                        for f in (await t.ok("ReferenceType", "Fields", ref_type=group_class)).declared}
        parent = await t.ok("ObjectReference", "GetValues", object=group,
                            fields=[{"field_id": group_fields["parent"]}])
        assert chr(parent.values[0].value.tag) == "g"
        _, obj = await _sample_object(t)
        object_class = await t.class_id("Ljava/lang/Object;")
        get_class = method_ids(await t.ok("ReferenceType", "Methods", ref_type=object_class))[
            ("getClass", "()Ljava/lang/Class;")]
        code, r = await t.cmd("ObjectReference", "InvokeMethod", object=obj, thread=thread, clazz=sample,
                              method_id=get_class, arguments=[], options=1)
        assert code == 0 and chr(r.return_value.tag) == "c"
        await t.cmd("ClassObjectReference", "ReflectedType", class_object=r.return_value.value)
        await t.cmd("ObjectReference", "ReferenceType", object=r.return_value.value, note="class object")
        await t.cmd("ObjectReference", "ReferenceType", object=parent.values[0].value.value, note="group")

    await differential(sample_classes, "Sample", scenario)


async def test_debugger_made_objects_through_gc(sample_classes, sample_markers):
    """Objects only a debugger holds, then System.gc() with the VM suspended: the reference keeps them all.

    (While every thread is suspended, here by a SUSPEND_ALL breakpoint, the reference makes every
    ID strong.)
    """

    async def scenario(t):
        thread, _ = await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        circle = await t.class_id("LSample$Circle;")
        ctor = method_ids(await t.ok("ReferenceType", "Methods", ref_type=circle))[("<init>", "(D)V")]
        invoke = {"thread": thread, "options": InvokeOptions.INVOKE_SINGLE_THREADED}
        loose = (await t.ok("ClassType", "NewInstance", clazz=circle, method_id=ctor,
                            arguments=[(Tag.DOUBLE, 1.0)], **invoke)).new_object.object_id
        kept = (await t.ok("ClassType", "NewInstance", clazz=circle, method_id=ctor,
                           arguments=[(Tag.DOUBLE, 2.0)], **invoke)).new_object.object_id
        string = await t.class_id("Ljava/lang/String;")
        value_of = method_ids(await t.ok("ReferenceType", "Methods", ref_type=string))[
            ("valueOf", "(I)Ljava/lang/String;")]
        returned = (await t.ok("ClassType", "InvokeMethod", clazz=string, method_id=value_of,
                               arguments=[(Tag.INT, 12345)], **invoke)).return_value.value
        array = (await t.ok("ArrayType", "NewInstance", arr_type=await t.class_id("[I"), length=5)).new_array.object_id
        await t.cmd("ObjectReference", "ReferenceType", object=loose, note="before gc")
        await t.ok("ObjectReference", "DisableCollection", object=kept)
        system = await t.class_id("Ljava/lang/System;")
        gc = method_ids(await t.ok("ReferenceType", "Methods", ref_type=system))[("gc", "()V")]
        await t.ok("ClassType", "InvokeMethod", clazz=system, method_id=gc, arguments=[], **invoke)
        code, r = await t.cmd("ObjectReference", "IsCollected", object=loose)
        assert code == 0 and not r.is_collected
        await t.cmd("ObjectReference", "IsCollected", object=returned, note="invoke result")
        await t.cmd("ObjectReference", "IsCollected", object=array, note="new array")
        for name in ("ReferenceType", "MonitorInfo"):
            await t.cmd("ObjectReference", name, object=loose, note="collected")
        fields = (await t.ok("ReferenceType", "Fields", ref_type=circle)).declared
        await t.cmd("ObjectReference", "GetValues", object=loose, fields=[{"field_id": fields[0].field_id}],
                    note="collected")
        await t.cmd("ObjectReference", "IsCollected", object=kept, note="pinned")
        await t.cmd("ObjectReference", "GetValues", object=kept, fields=[{"field_id": fields[0].field_id}],
                    note="pinned")
        await t.ok("ObjectReference", "EnableCollection", object=kept)

    await differential(sample_classes, "Sample", scenario)
