"""Core commands through our raw client, reference agent vs jdwpd: identical replies, events and error codes.

One scripted session per server: VMStart, Version, IDSizes, Capabilities(New),
a ClassPrepare request for Sample, a breakpoint at MAIN_LOCALS found through
the LineTable, then class facts (Signature, Fields, Methods, LineTable,
VariableTable, ...) of the sample classes, thread listing, values (statics,
locals, strings, arrays), monitors and instances, suspend counts, SetValues,
InvokeMethod / NewInstance, error codes for bad IDs, and the run to VMDeath.
Every step's reply (or error code) is normalized and the lists must be equal.
Where JDWP leaves an order undefined (AllThreads, NestedTypes) the script sorts.
"""

from __future__ import annotations

import attrs
import pytest
import trio

from jdwpd.testing.client import JdwpClient
from jdwpd.testing.transcript import Transcript, debuggee_session
from protocol import messages
from protocol.constants import EventKind, SuspendPolicy, Tag, TypeTag
from protocol.wire import Location, Value

pytestmark = pytest.mark.jvm

M = messages.Modifiers
BOGUS_ID = 0x7FFF_FFF0_0000_0001  # never handed out by either server
SAMPLE_CLASSES = ["LSample;", "LSample$Circle;", "LSample$Shape;", "LSample$Square;", "LSample$Inner;",
                  "Ljava/lang/String;", "[I", "[Ljava/lang/String;", "Ljava/lang/Runnable;"]


async def class_facts(t: Transcript, c: JdwpClient, sig: str) -> None:
    found = await t.cmd(c, "VirtualMachine", "ClassesBySignature", sig, signature=sig, must=True)
    for info in found.classes:
        ref = info.type_id
        for name in ("Signature", "SignatureWithGeneric", "Modifiers", "SourceFile", "Status", "Interfaces",
                     "ClassObject", "ClassLoader", "Fields", "FieldsWithGeneric", "Methods", "MethodsWithGeneric",
                     "ClassFileVersion", "SourceDebugExtension"):
            await t.cmd(c, "ReferenceType", name, sig, ref_type=ref)
        nested = await c.command_raw("ReferenceType", "NestedTypes", ref_type=ref)
        if nested[0] == 0:
            sigs = sorted([(await c.command("ReferenceType", "Signature", ref_type=x.type_id)).signature
                           for x in nested[1].classes])
            t.add(f"NestedTypes {sig} (signatures, sorted)", sigs)
        if info.ref_type_tag == TypeTag.CLASS:
            await t.cmd(c, "ClassType", "Superclass", sig, clazz=ref)
        methods = await c.command("ReferenceType", "Methods", ref_type=ref)
        if sig.startswith("LSample"):
            for m in methods.declared:
                label = f"{sig}.{m.name}{m.signature}"
                for name in ("LineTable", "VariableTable", "VariableTableWithGeneric", "IsObsolete"):
                    await t.cmd(c, "Method", name, label, ref_type=ref, method_id=m.method_id)


async def modules_and_paths(t: Transcript, c: JdwpClient, sample: int) -> None:
    # Both servers run the JVM in the same directory with the same class path, so ClassPaths compares bytes.
    await t.cmd(c, "VirtualMachine", "ClassPaths")
    modules = await c.command("VirtualMachine", "AllModules")
    names = sorted([(await c.command("ModuleReference", "Name", module=x.module)).name for x in modules.modules])
    t.add("module names (sorted)", names)
    module = await t.cmd(c, "ReferenceType", "Module", "Sample", ref_type=sample, must=True)
    await t.cmd(c, "ModuleReference", "Name", "Sample's", module=module.module)
    await t.cmd(c, "ModuleReference", "ClassLoader", "Sample's", module=module.module)
    string = (await c.command("VirtualMachine", "ClassesBySignature", signature="Ljava/lang/String;")).classes[0]
    base = await t.cmd(c, "ReferenceType", "Module", "String", ref_type=string.type_id, must=True)
    await t.cmd(c, "ModuleReference", "Name", "String's", module=base.module)
    await t.cmd(c, "ModuleReference", "ClassLoader", "String's", module=base.module)


async def threads(t: Transcript, c: JdwpClient) -> dict[str, int]:
    """Thread names, groups, status: in name order, since AllThreads' order is the server's."""
    all_threads = await c.command("VirtualMachine", "AllThreads")
    by_name = {}
    for th in all_threads.threads:
        by_name[(await c.command("ThreadReference", "Name", thread=th.thread)).thread_name] = th.thread
    for name in sorted(by_name):
        tid = by_name[name]
        t.add(f"thread {name}", {"thread": tid})
        group = await t.cmd(c, "ThreadReference", "ThreadGroup", name, thread=tid, must=True)
        await t.cmd(c, "ThreadGroupReference", "Name", name, group=group.group)
        await t.cmd(c, "ThreadReference", "Status", name, thread=tid)
        await t.cmd(c, "ThreadReference", "SuspendCount", name, thread=tid)
    top = await t.cmd(c, "VirtualMachine", "TopLevelThreadGroups", must=True)
    for g in top.groups:
        await t.cmd(c, "ThreadGroupReference", "Name", group=g.group)
        await t.cmd(c, "ThreadGroupReference", "Parent", group=g.group)
    return by_name


async def scenario(c: JdwpClient, m: dict[str, int]) -> Transcript:
    t = Transcript()
    policy, events = await c.next_event(timeout=30)
    t.add("first event", (policy, events))
    version = await c.command("VirtualMachine", "Version")
    # The first line names the implementation; the rest describes the JVM and must agree.
    t.add("VirtualMachine.Version", attrs.evolve(version, description=version.description.split("\n", 1)[1:]))
    for name in ("IDSizes", "Capabilities", "CapabilitiesNew"):
        await t.cmd(c, "VirtualMachine", name)

    prepare = await t.cmd(c, "EventRequest", "Set", "ClassPrepare Sample", event_kind=EventKind.CLASS_PREPARE,
                          suspend_policy=SuspendPolicy.EVENT_THREAD, modifiers=[M.ClassMatch(class_pattern="Sample")],
                          must=True)
    await t.cmd(c, "VirtualMachine", "Resume")
    t.add("ClassPrepare event", await c.wait_for_event(EventKind.CLASS_PREPARE, timeout=30))
    await t.cmd(c, "EventRequest", "Clear", "ClassPrepare", event_kind=EventKind.CLASS_PREPARE,
                request_id=prepare.request_id)

    sample = (await c.command("VirtualMachine", "ClassesBySignature", signature="LSample;")).classes[0].type_id
    methods = (await c.command("ReferenceType", "Methods", ref_type=sample)).declared
    main = next(x for x in methods if x.name == "main")
    table = await c.command("Method", "LineTable", ref_type=sample, method_id=main.method_id)
    index = next(li.line_code_index for li in table.lines if li.line_number == m["MAIN_LOCALS"])
    where = Location(TypeTag.CLASS, sample, main.method_id, index)
    bp = await t.cmd(c, "EventRequest", "Set", "Breakpoint MAIN_LOCALS", event_kind=EventKind.BREAKPOINT,
                     suspend_policy=SuspendPolicy.ALL, modifiers=[M.LocationOnly(loc=where)], must=True)
    await t.cmd(c, "VirtualMachine", "Resume")
    policy, events = await c.wait_for_event(EventKind.BREAKPOINT, timeout=30)
    t.add("Breakpoint event", (policy, events))
    thread = events[0].thread

    for sig in SAMPLE_CLASSES:
        await class_facts(t, c, sig)
    await modules_and_paths(t, c, sample)
    await threads(t, c)

    frames = await t.cmd(c, "ThreadReference", "Frames", "main", thread=thread, start_frame=0, length=-1, must=True)
    await t.cmd(c, "ThreadReference", "FrameCount", "main", thread=thread)
    frame = frames.frames[0].frame_id
    variables = await c.command("Method", "VariableTable", ref_type=sample, method_id=main.method_id)
    visible = [v for v in variables.slots if v.code_index <= index < v.code_index + v.length]
    values = await t.cmd(c, "StackFrame", "GetValues", "main locals", thread=thread, frame=frame,
                         slots=[(v.slot, ord(v.signature[0])) for v in visible], must=True)
    await t.cmd(c, "StackFrame", "ThisObject", "static main", thread=thread, frame=frame)
    fields = (await c.command("ReferenceType", "Fields", ref_type=sample)).declared
    statics = [f for f in fields if f.mod_bits & 0x0008]
    static_values = await t.cmd(c, "ReferenceType", "GetValues", "Sample statics", ref_type=sample,
                                fields=[f.field_id for f in statics], must=True)
    for f, v in zip(statics, static_values.values, strict=True):
        await object_details(t, c, f.name, v.value)
    sample_obj = next(v.slot_value for var, v in zip(visible, values.values, strict=True) if var.name == "sample")
    instance_fields = [f for f in fields if not f.mod_bits & 0x0008]
    await t.cmd(c, "ObjectReference", "GetValues", "sample fields", object=sample_obj.value,
                fields=[f.field_id for f in instance_fields])
    await t.cmd(c, "ObjectReference", "ReferenceType", "sample", object=sample_obj.value)

    await monitors_and_instances(t, c, sample, sample_obj.value, thread)
    await suspend_counts(t, c, thread)
    lint = next(v for v in visible if v.name == "lInt")
    await t.cmd(c, "StackFrame", "SetValues", "lInt = 5", thread=thread, frame=frame,
                slot_values=[(lint.slot, Value(Tag.INT, 5))])
    await t.cmd(c, "StackFrame", "GetValues", "lInt after SetValues", thread=thread, frame=frame,
                slots=[(lint.slot, Tag.INT)])
    await invocations(t, c, sample, sample_obj.value, thread, methods)
    await error_codes(t, c, sample, thread, main.method_id)

    await t.cmd(c, "EventRequest", "Clear", "Breakpoint", event_kind=EventKind.BREAKPOINT, request_id=bp.request_id)
    await t.cmd(c, "VirtualMachine", "Resume")
    t.add("last event", await c.wait_for_event(EventKind.VM_DEATH, timeout=60))
    return t


async def object_details(t: Transcript, c: JdwpClient, label: str, value) -> None:
    if value.tag == Tag.STRING and value.value:
        await t.cmd(c, "StringReference", "Value", label, string_object=value.value)
    elif value.tag == Tag.ARRAY and value.value:
        length = await t.cmd(c, "ArrayReference", "Length", label, array_object=value.value, must=True)
        await t.cmd(c, "ArrayReference", "GetValues", label, array_object=value.value, first_index=0,
                    length=length.array_length)
        await t.cmd(c, "ArrayReference", "GetValues", f"{label} out of bounds", array_object=value.value,
                    first_index=length.array_length, length=1)


async def monitors_and_instances(t: Transcript, c: JdwpClient, sample: int, obj: int, thread: int) -> None:
    class_object = await t.cmd(c, "ReferenceType", "ClassObject", "Sample", ref_type=sample, must=True)
    await t.cmd(c, "ClassObjectReference", "ReflectedType", "Sample", class_object=class_object.class_object)
    await t.cmd(c, "ObjectReference", "MonitorInfo", "sample", object=obj)
    for name in ("OwnedMonitors", "CurrentContendedMonitor", "OwnedMonitorsStackDepthInfo", "IsVirtual"):
        await t.cmd(c, "ThreadReference", name, "main", thread=thread)
    await t.cmd(c, "ReferenceType", "Instances", "Sample", ref_type=sample, max_instances=10)
    circle = (await c.command("VirtualMachine", "ClassesBySignature", signature="LSample$Circle;")).classes[0]
    await t.cmd(c, "VirtualMachine", "InstanceCounts", "Sample, Circle", ref_types_count=[sample, circle.type_id])
    await t.cmd(c, "ObjectReference", "DisableCollection", "sample", object=obj)
    await t.cmd(c, "ObjectReference", "IsCollected", "sample", object=obj)
    await t.cmd(c, "ObjectReference", "EnableCollection", "sample", object=obj)
    made = await t.cmd(c, "VirtualMachine", "CreateString", "non-ASCII", utf="debugger \u00e9 \U0001F600",
                       must=True)
    await t.cmd(c, "StringReference", "Value", "created", string_object=made.string_object)


async def suspend_counts(t: Transcript, c: JdwpClient, thread: int) -> None:
    """Counts stack: the breakpoint's suspension, a thread suspend, a VM suspend, undone in reverse."""
    async def count(label: str) -> None:
        await t.cmd(c, "ThreadReference", "SuspendCount", label, thread=thread)

    await count("at breakpoint")
    await t.cmd(c, "ThreadReference", "Suspend", "main", thread=thread)
    await count("after thread suspend")
    await t.cmd(c, "VirtualMachine", "Suspend", "all")
    await count("after VM suspend")
    await t.cmd(c, "VirtualMachine", "Resume", "all")
    await t.cmd(c, "ThreadReference", "Resume", "main", thread=thread)
    await count("back to the breakpoint's")
    await t.cmd(c, "ThreadReference", "Status", "at breakpoint", thread=thread)


async def invocations(t: Transcript, c: JdwpClient, sample: int, obj: int, thread: int, methods) -> None:
    """InvokeMethod / NewInstance on the thread parked at the breakpoint (single-threaded)."""
    by_name = {m.name: m.method_id for m in methods}
    single = 1  # INVOKE_SINGLE_THREADED
    await t.cmd(c, "ObjectReference", "InvokeMethod", "sample.compute(3)", object=obj, thread=thread, clazz=sample,
                method_id=by_name["compute"], arguments=[Value(Tag.INT, 3)], options=single)
    await t.cmd(c, "ClassType", "InvokeMethod", "factorial(4)", clazz=sample, thread=thread,
                method_id=by_name["factorial"], arguments=[Value(Tag.INT, 4)], options=single)
    thrown = await t.cmd(c, "ClassType", "InvokeMethod", "thrower(0)", clazz=sample, thread=thread,
                         method_id=by_name["thrower"], arguments=[Value(Tag.INT, 0)], options=single, must=True)
    await t.cmd(c, "ObjectReference", "ReferenceType", "thrown", object=thrown.exception.object_id)
    # Not probed: an argument count that does not match crashes the JDK 17 reference agent (SIGSEGV in JNI).
    # Sample$Circle is loaded by now (Sample's constructor made one); Sample$Square is not yet.
    circle = (await c.command("VirtualMachine", "ClassesBySignature", signature="LSample$Circle;")).classes[0]
    ctor = next(m for m in (await c.command("ReferenceType", "Methods", ref_type=circle.type_id)).declared
                if m.name == "<init>")
    made = await t.cmd(c, "ClassType", "NewInstance", "Circle(2.0)", clazz=circle.type_id, thread=thread,
                       method_id=ctor.method_id, arguments=[Value(Tag.DOUBLE, 2.0)], options=single, must=True)
    await t.cmd(c, "ObjectReference", "InvokeMethod", "circle.area()", object=made.new_object.object_id,
                thread=thread, clazz=circle.type_id,
                method_id=next(m.method_id for m in (await c.command("ReferenceType", "Methods",
                                                                     ref_type=circle.type_id)).declared
                               if m.name == "area"),
                arguments=[], options=single)
    await t.cmd(c, "ThreadReference", "Frames", "main after invokes", thread=thread, start_frame=0, length=-1)


async def error_codes(t: Transcript, c: JdwpClient, sample: int, thread: int, method: int) -> None:
    """Bad and wrongly-typed IDs: each must give the reference's error code."""
    await t.cmd(c, "ReferenceType", "Signature", "null", ref_type=0)
    await t.cmd(c, "ReferenceType", "Signature", "bogus", ref_type=BOGUS_ID)
    await t.cmd(c, "ReferenceType", "Signature", "a thread", ref_type=thread)
    # Not probed: ObjectReference.ReferenceType with the null ID crashes the JDK 17 reference agent (SIGSEGV).
    await t.cmd(c, "ObjectReference", "ReferenceType", "bogus", object=BOGUS_ID)
    await t.cmd(c, "ThreadReference", "Name", "a class", thread=sample)
    await t.cmd(c, "ThreadReference", "Name", "bogus", thread=BOGUS_ID)
    await t.cmd(c, "ThreadGroupReference", "Name", "a thread", group=thread)
    await t.cmd(c, "StringReference", "Value", "a thread", string_object=thread)
    await t.cmd(c, "ArrayReference", "Length", "a class", array_object=sample)
    await t.cmd(c, "ClassType", "Superclass", "bogus", clazz=BOGUS_ID)
    await t.cmd(c, "StackFrame", "GetValues", "bogus frame", thread=thread, frame=BOGUS_ID, slots=[])
    await t.cmd(c, "ThreadReference", "Frames", "bad start", thread=thread, start_frame=1000, length=1)
    await t.cmd(c, "EventRequest", "Set", "bad kind", event_kind=77, suspend_policy=0, modifiers=[])
    await t.cmd(c, "EventRequest", "Clear", "unknown id", event_kind=EventKind.BREAKPOINT, request_id=4242)
    # A command set that does not exist.
    pid = await c.send_packet(99, 1)
    t.add("unknown command set 99", {"error": (await c.reply(pid)).error_code})
    pid = await c.send_packet(1, 99)
    t.add("unknown command VirtualMachine 99", {"error": (await c.reply(pid)).error_code})


async def run_session(kind: str, classes, markers: dict[str, int]) -> list:
    async with debuggee_session(kind, classes, "Sample") as c:
        t = await scenario(c, markers)
    return t.steps


@pytest.fixture(scope="module")
def reference_steps(sample_classes, sample_markers) -> list:
    return trio.run(run_session, "reference", sample_classes, sample_markers)


def test_reference_transcript_is_sane(reference_steps, sample_markers):
    steps = dict(reference_steps)
    assert steps["first event"][1][0]["event_kind"] == "VM_START"
    assert steps["VirtualMachine.IDSizes"] == {"field_idsize": 8, "method_idsize": 8, "object_idsize": 8,
                                               "reference_type_idsize": 8, "frame_idsize": 8,
                                               "bytes": "00000008" * 5}
    event = steps["Breakpoint event"][1][0]
    assert event["event_kind"] == "BREAKPOINT" and event["location"].startswith("loc(1,")
    assert steps["ReferenceType.Signature LSample;"] == {"signature": "LSample;", "bytes": b"\0\0\0\x08LSample;".hex()}
    assert steps["ReferenceType.SourceFile LSample;"]["source_file"] == "Sample.java"
    names = [f["name"] for f in steps["ReferenceType.Fields LSample;"]["declared"]]
    assert names[:3] == ["sBoolean", "sByte", "sChar"] and "fList" in names
    lines = [x["line_number"] for x in steps["Method.LineTable LSample;.main([Ljava/lang/String;)V"]["lines"]]
    assert sample_markers["MAIN_LOCALS"] in lines
    supplementary = steps["StringReference.Value sSupplementary"]
    assert supplementary["string_value"] == "clef \U0001D11E smile \U0001F600"
    # The reference converts the JVM's modified UTF-8 to standard UTF-8 on the wire (4-byte sequences).
    assert "f09d849e" in supplementary["bytes"]
    assert steps["ArrayReference.GetValues sInts"] == {"values": {"tag": "I", "values": [1, 2, 3, -4]}}
    assert steps["ReferenceType.Signature bogus"] == {"error": 20}  # INVALID_OBJECT
    assert steps["ThreadReference.Name a class"] == {"error": 10}  # INVALID_THREAD
    assert steps["unknown command set 99"] == {"error": 99}  # NOT_IMPLEMENTED
    assert steps["last event"][1][-1]["event_kind"] == "VM_DEATH"
    assert "thread main" in steps and "thread Signal Dispatcher" in steps
    assert "java.base" in steps["module names (sorted)"]
    assert steps["ModuleReference.Name String's"]["name"] == "java.base"
    assert steps["ModuleReference.Name Sample's"]["name"] == ""  # the unnamed module
    assert steps["ThreadReference.SuspendCount after VM suspend"]["suspend_count"] == 3
    assert steps["StackFrame.GetValues lInt after SetValues"] == {"values": [{"slot_value": "I:5"}]}
    assert steps["ObjectReference.InvokeMethod sample.compute(3)"] == {"return_value": "I:123462", "exception": "L:0"}
    assert steps["ClassType.InvokeMethod factorial(4)"]["return_value"] == "I:24"
    assert steps["ClassType.InvokeMethod thrower(0)"]["exception"].startswith("L:obj#")
    assert steps["ObjectReference.InvokeMethod circle.area()"]["return_value"] == "D:12.0"


def test_raw_core_matches_reference(server_kind_vs_recording, reference_steps, sample_classes, sample_markers):
    """Against the reference itself this checks that the transcript is deterministic."""
    ours = trio.run(run_session, server_kind_vs_recording, sample_classes, sample_markers)
    for (label, expected), (our_label, got) in zip(reference_steps, ours, strict=False):
        assert our_label == label
        assert got == expected, label
    assert len(ours) == len(reference_steps)
