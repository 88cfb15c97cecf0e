"""ReferenceType (and ClassType.Superclass, ClassObjectReference): jdwpd answers as the reference agent does.

Each scenario runs on tests/java/Sample under both servers (types_support.differential);
the transcripts, IDs normalized, must be equal entry by entry.
"""

from __future__ import annotations

import pytest
from types_support import differential, field_ids

from protocol.constants import ErrorCode, Tag

pytestmark = pytest.mark.jvm

# Stopped in totalArea's loop, every nested class of Sample is loaded; lambdas are not yet.
STOP = "TOTAL_AREA_LOOP"

TYPES = [
    "LSample;", "LSample$Circle;", "LSample$Shape;", "LSample$Inner;", "Ljava/lang/String;",
    "Ljava/util/List;", "Ljava/util/ArrayList;", "Ljava/lang/Thread;", "[I", "[Ljava/lang/String;", "[[I",
]
PER_TYPE = [
    "Signature", "SignatureWithGeneric", "ClassLoader", "Modifiers", "Fields", "FieldsWithGeneric", "Methods",
    "MethodsWithGeneric", "SourceFile", "Status", "Interfaces", "ClassObject", "SourceDebugExtension",
    "ClassFileVersion", "Module",
]


async def test_every_query_on_classes_interfaces_and_arrays(sample_classes, sample_markers):
    async def scenario(t):
        await t.run_to_line("Sample", sample_markers[STOP])
        for sig in TYPES:
            ref = await t.class_id(sig)
            for name in PER_TYPE:
                await t.cmd("ReferenceType", name, ref_type=ref, note=sig)
            await t.nested_types(ref, note=sig)
            await t.cmd("ClassObjectReference", "ReflectedType", class_object=ref, note=sig)
            await t.cmd("ClassType", "Superclass", clazz=ref, note=sig)
        sample = await t.class_id("LSample;")
        code, nested = await t.nested_types(sample, note="again")
        assert code == 0 and sorted(s for _, s in nested) == [
            "LSample$Circle;", "LSample$Inner;", "LSample$Shape;", "LSample$Square;"], nested
        code, pool = await t.cmd("ReferenceType", "ConstantPool", ref_type=await t.class_id("LSample$Circle;"))
        assert code == 0 and pool.count > 10
        await t.cmd("ReferenceType", "ConstantPool", ref_type=await t.class_id("[I"), note="array")
        # Inner's synthetic this$0 carries JDWP's synthetic bit.
        inner = await t.ok("ReferenceType", "Fields", ref_type=await t.class_id("LSample$Inner;"))
        this0 = next(f for f in inner.declared if f.name == "this$0")
        assert (this0.mod_bits & 0xFFFFFFFF) >> 28 == 0xF

    await differential(sample_classes, "Sample", scenario)


async def test_static_values_instances_and_bad_ids(sample_classes, sample_markers):
    async def scenario(t):
        await t.run_to_line("Sample", sample_markers[STOP])
        sample = await t.class_id("LSample;")
        fields = await t.ok("ReferenceType", "Fields", ref_type=sample)
        statics = [f for f in fields.declared if f.mod_bits & 0x8]
        values = await t.ok("ReferenceType", "GetValues", ref_type=sample,
                            fields=[{"field_id": f.field_id} for f in statics])
        by_name = dict(zip([f.name for f in statics], [g.value for g in values.values], strict=True))
        assert by_name["sInt"].value == 2147483647
        assert by_name["sNull"].tag == Tag.OBJECT and by_name["sNull"].value == 0
        assert by_name["sAscii"].tag == Tag.STRING and by_name["sInts"].tag == Tag.ARRAY
        await t.cmd("ReferenceType", "GetValues", ref_type=sample, fields=[], note="none")
        # Statics of a superinterface's or a superclass's field through a subclass are
        # not in Sample; ask through the declaring class instead.
        await t.cmd("ReferenceType", "Instances", ref_type=await t.class_id("LSample$Circle;"), max_instances=0)
        await t.cmd("ReferenceType", "Instances", ref_type=sample, max_instances=1)
        await t.cmd("ReferenceType", "Instances", ref_type=sample, max_instances=-1, note="negative")
        # Bad ids: a string object is not a class; an id nobody handed out is no object.
        string_id = by_name["sAscii"].value
        for bad, note in ((string_id, "a string"), (0x7EADBEEF, "unknown")):
            for name in ("Signature", "Fields", "Methods", "Status", "SourceFile", "Interfaces", "ClassObject"):
                code, _ = await t.cmd("ReferenceType", name, ref_type=bad, note=note)
                assert code == (ErrorCode.INVALID_CLASS if note == "a string" else ErrorCode.INVALID_OBJECT)
            # (ClassObjectReference.ReflectedType on a string kills the reference's VM: see
            # test_misc_types for what jdwpd answers instead.)
        # Set a static, read it back.
        ids = field_ids(fields)
        await t.ok("ClassType", "SetValues", clazz=sample,
                   values=[{"field_id": ids["sInt"], "value": (Tag.INT, -5)},
                           {"field_id": ids["sDouble"], "value": (Tag.DOUBLE, 6.5)},
                           {"field_id": ids["sAscii"], "value": (Tag.OBJECT, by_name["sEmpty"].value)}])
        after = await t.ok("ReferenceType", "GetValues", ref_type=sample,
                           fields=[{"field_id": ids[n]} for n in ("sInt", "sDouble", "sAscii")])
        assert [g.value.value for g in after.values[:2]] == [-5, 6.5]

    await differential(sample_classes, "Sample", scenario)
