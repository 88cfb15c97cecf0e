"""Method command set: line and variable tables, bytecodes, obsolescence, as the reference answers them."""

from __future__ import annotations

import pytest
from types_support import differential, nodebug_classpath

from protocol.constants import ErrorCode

pytestmark = pytest.mark.jvm

COMMANDS = ["LineTable", "VariableTable", "VariableTableWithGeneric", "Bytecodes", "IsObsolete"]


async def test_tables_of_every_method(sample_classes, sample_markers):
    async def scenario(t):
        await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        # Sample (compiled with -g), a nested class, an interface (abstract methods), and
        # JDK classes: compiled without local variable tables, with native methods.
        for sig in ("LSample;", "LSample$Circle;", "LSample$Shape;", "Ljava/lang/Thread;", "Ljava/lang/Object;"):
            ref = await t.class_id(sig)
            methods = await t.ok("ReferenceType", "MethodsWithGeneric", ref_type=ref)
            for m in methods.declared:
                for name in COMMANDS:
                    note = f"{sig}.{m.name}{m.signature}"
                    await t.cmd("Method", name, ref_type=ref, method_id=m.method_id, note=note)
        obj = await t.class_id("Ljava/lang/Object;")
        hash_code = next(m for m in (await t.ok("ReferenceType", "Methods", ref_type=obj)).declared
                         if m.name == "hashCode")
        code, _ = await t.cmd("Method", "LineTable", ref_type=obj, method_id=hash_code.method_id, note="native")
        assert code == ErrorCode.NATIVE_METHOD
        string = await t.class_id("Ljava/lang/String;")
        length = next(m for m in (await t.ok("ReferenceType", "Methods", ref_type=string)).declared
                      if m.name == "length")
        # The class is checked (a string is no class) before the method is looked at.
        code, _ = await t.cmd("Method", "LineTable", ref_type=(await t.ok(
            "ReferenceType", "GetValues", ref_type=await t.class_id("LSample;"),
            fields=[{"field_id": next(f.field_id for f in (await t.ok(
                "ReferenceType", "Fields", ref_type=await t.class_id("LSample;"))).declared if f.name == "sAscii")}]
        )).values[0].value.value, method_id=length.method_id, note="string as class")
        assert code == ErrorCode.INVALID_CLASS

    await differential(sample_classes, "Sample", scenario)


async def test_classes_without_debug_attributes(sample_classes, sample_markers, tmp_path):
    """javac -g:none: no source file, no line table (but a code range), no variable table."""

    async def scenario(t):
        await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        ref = await t.class_id("LNoDebug;")
        await t.cmd("ReferenceType", "SourceFile", ref_type=ref)
        for m in (await t.ok("ReferenceType", "Methods", ref_type=ref)).declared:
            for name in COMMANDS:
                await t.cmd("Method", name, ref_type=ref, method_id=m.method_id, note=f"{m.name}{m.signature}")
            code, table = await t.cmd("Method", "LineTable", ref_type=ref, method_id=m.method_id, note="again")
            if m.name == "twice":
                assert code == 0 and table.lines == () and table.end > table.start
            code, _ = await t.cmd("Method", "VariableTable", ref_type=ref, method_id=m.method_id, note="again")
            if m.name == "twice":
                assert code == ErrorCode.ABSENT_INFORMATION

    await differential(nodebug_classpath(tmp_path, sample_classes), "NoDebug", scenario)


REDEF_V1 = """\
public class Redef {
    static int twice(int x) {
        return x * 2;
    }

    public static void main(String[] args) throws Exception {
        twice(3);
        Sample.main(args);
    }
}
"""
# Same methods and fields (a legal redefinition), different lines and locals.
REDEF_V2 = """\
public class Redef {


    static int twice(int x) {
        int doubled = x + x;
        return doubled;
    }

    public static void main(String[] args) throws Exception {
        twice(3);
        Sample.main(args);
    }
}
"""


def _compile_redef(tmp_path, sample_classes, name, source):
    from jdwpd.testing import debuggees

    src = tmp_path / name
    src.mkdir()
    (src / "Redef.java").write_text(source)
    return debuggees.compile_sources(src, extra_args=("-cp", str(sample_classes)))


async def test_tables_follow_a_redefinition(sample_classes, sample_markers, tmp_path):
    """The cache drops a redefined class's tables: what follows RedefineClasses is the new class."""
    v1 = _compile_redef(tmp_path, sample_classes, "v1", REDEF_V1)
    v2 = _compile_redef(tmp_path, sample_classes, "v2", REDEF_V2)
    new_bytes = (v2 / "Redef.class").read_bytes()

    async def scenario(t):
        await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        ref = await t.class_id("LRedef;")
        methods = (await t.ok("ReferenceType", "Methods", ref_type=ref)).declared
        twice = next(m.method_id for m in methods if m.name == "twice")
        before = await t.ok("Method", "LineTable", ref_type=ref, method_id=twice)
        await t.cmd("Method", "VariableTable", ref_type=ref, method_id=twice)
        await t.cmd("Method", "Bytecodes", ref_type=ref, method_id=twice)
        await t.ok("VirtualMachine", "RedefineClasses", classes=[{"ref_type": ref, "classfile": new_bytes}])
        after = await t.ok("Method", "LineTable", ref_type=ref, method_id=twice)
        assert [ln.line_number for ln in after.lines] != [ln.line_number for ln in before.lines]
        await t.cmd("Method", "VariableTable", ref_type=ref, method_id=twice, note="after")
        await t.cmd("Method", "Bytecodes", ref_type=ref, method_id=twice, note="after")
        await t.cmd("Method", "IsObsolete", ref_type=ref, method_id=twice, note="after")
        await t.cmd("ReferenceType", "Methods", ref_type=ref, note="after")

    await differential(f"{v1}:{sample_classes}", "Redef", scenario)
