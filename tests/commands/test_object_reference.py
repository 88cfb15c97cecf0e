"""ObjectReference: fields, monitors, collection, referrers, bad ids; against the reference."""

from __future__ import annotations

import pytest
from types_support import differential, field_ids, method_ids

from protocol.constants import Tag

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
        assert {"s", "g", "l"} <= tags, tags
        _, obj = await _sample_object(t)
        object_class = await t.class_id("Ljava/lang/Object;")
        get_class = method_ids(await t.ok("ReferenceType", "Methods", ref_type=object_class))[
            ("getClass", "()Ljava/lang/Class;")]
        code, r = await t.cmd("ObjectReference", "InvokeMethod", object=obj, thread=thread, clazz=sample,
                              method_id=get_class, arguments=[], options=1)
        assert code == 0 and chr(r.return_value.tag) == "c"
        await t.cmd("ClassObjectReference", "ReflectedType", class_object=r.return_value.value)
        await t.cmd("ObjectReference", "ReferenceType", object=r.return_value.value, note="class object")
        group = next(g.value.value for g in values.values if chr(g.value.tag) == "g")
        await t.cmd("ObjectReference", "ReferenceType", object=group, note="group")

    await differential(sample_classes, "Sample", scenario)
