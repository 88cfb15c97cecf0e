"""ArrayReference and ArrayType: regions of every component type, bounds, writes, new arrays."""

from __future__ import annotations

import pytest
from types_support import differential

from protocol.constants import ErrorCode, Tag

pytestmark = pytest.mark.jvm

ARRAYS = ["sInts", "sLongs", "sDoubles", "sFloats", "sBooleans", "sChars", "sBytes", "sShorts", "sStrings",
          "sObjects", "sMatrix", "sEmptyInts"]


async def statics(t, names):
    sample = await t.class_id("LSample;")
    fields = {f.name: f.field_id for f in (await t.ok("ReferenceType", "Fields", ref_type=sample)).declared}
    values = await t.ok("ReferenceType", "GetValues", ref_type=sample, fields=[{"field_id": fields[n]} for n in names])
    return {n: g.value.value for n, g in zip(names, values.values, strict=True)}


async def test_regions_bounds_and_writes(sample_classes, sample_markers):
    async def scenario(t):
        await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        ids = await statics(t, [*ARRAYS, "sAscii"])
        for name in ARRAYS:
            array = ids[name]
            await t.cmd("ArrayReference", "Length", array_object=array, note=name)
            await t.cmd("ArrayReference", "GetValues", array_object=array, first_index=0, length=-1, note=name)
            for first, length in ((1, 1), (0, 0), (1, -1), (2, 5), (-1, 1), (0, 4), (3, 0), (4, 0), (0, -2)):
                await t.cmd("ArrayReference", "GetValues", array_object=array, first_index=first, length=length,
                            note=f"{name}[{first}:{length}]")
        code, _ = await t.cmd("ArrayReference", "GetValues", array_object=ids["sEmptyInts"], first_index=0,
                              length=0, note="empty")
        assert code == ErrorCode.INVALID_INDEX
        # Writes: primitives, objects, a wrong object for the component type, out of bounds.
        await t.cmd("ArrayReference", "SetValues", array_object=ids["sInts"], first_index=1,
                    values=[(Tag.INT, 77), (Tag.INT, -88)])
        await t.cmd("ArrayReference", "SetValues", array_object=ids["sDoubles"], first_index=0,
                    values=[(Tag.DOUBLE, 0.25)])
        await t.cmd("ArrayReference", "SetValues", array_object=ids["sChars"], first_index=2,
                    values=[(Tag.CHAR, 0x263A)])
        await t.cmd("ArrayReference", "SetValues", array_object=ids["sStrings"], first_index=1,
                    values=[(Tag.STRING, ids["sAscii"])])
        code, _ = await t.cmd("ArrayReference", "SetValues", array_object=ids["sStrings"], first_index=0,
                              values=[(Tag.ARRAY, ids["sInts"])], note="int[] into String[]")
        assert code == ErrorCode.TYPE_MISMATCH
        await t.cmd("ArrayReference", "SetValues", array_object=ids["sInts"], first_index=3,
                    values=[(Tag.INT, 1), (Tag.INT, 2)], note="past the end")
        await t.cmd("ArrayReference", "SetValues", array_object=ids["sInts"], first_index=4,
                    values=[], note="index = length")
        for name in ("sInts", "sDoubles", "sChars", "sStrings"):
            await t.cmd("ArrayReference", "GetValues", array_object=ids[name], first_index=0, length=-1,
                        note=f"{name} after")
        # Not an array; unknown.
        for bad, note in ((ids["sAscii"], "a string"), (0x7EADBEEF, "unknown")):
            await t.cmd("ArrayReference", "Length", array_object=bad, note=note)
            await t.cmd("ArrayReference", "GetValues", array_object=bad, first_index=0, length=1, note=note)

    await differential(sample_classes, "Sample", scenario)


async def test_new_arrays(sample_classes, sample_markers):
    async def scenario(t):
        await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        for sig in ("[I", "[Ljava/lang/String;", "[[I", "[D", "[Z"):
            code, made = await t.cmd("ArrayType", "NewInstance", arr_type=await t.class_id(sig), length=3, note=sig)
            assert code == 0
            await t.cmd("ArrayReference", "GetValues", array_object=made.new_array.object_id, first_index=0,
                        length=-1, note=sig)
        await t.cmd("ArrayType", "NewInstance", arr_type=await t.class_id("[I"), length=0, note="empty")
        await t.cmd("ArrayType", "NewInstance", arr_type=await t.class_id("[I"), length=-1, note="negative")
        await t.cmd("ArrayType", "NewInstance", arr_type=await t.class_id("Ljava/lang/String;"), length=1,
                    note="not an array type")

    await differential(sample_classes, "Sample", scenario)
