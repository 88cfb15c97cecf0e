"""Types: ReferenceType, ClassType, ArrayType, InterfaceType, Method, ClassLoader, ClassObject and Module sets."""

from __future__ import annotations

from protocol.constants import EventKind, InvokeOptions, ModKind, StepDepth, StepSize, SuspendPolicy, Tag
from tests.conformance.registry import scenario

BAD = 0x7EADBEEF
STOP = "TOTAL_AREA_LOOP"  # every nested class of Sample is loaded there, lambdas not yet
TYPES = ["LSample;", "LSample$Circle;", "LSample$Shape;", "LSample$Inner;", "Ljava/lang/String;",
         "Ljava/util/List;", "Ljava/util/ArrayList;", "Ljava/lang/Thread;", "[I", "[Ljava/lang/String;", "[[I",
         "Ljava/lang/Enum;", "Ljava/util/Map$Entry;"]
PER_TYPE = ["Signature", "SignatureWithGeneric", "ClassLoader", "Modifiers", "Fields", "FieldsWithGeneric",
            "Methods", "MethodsWithGeneric", "SourceFile", "Status", "Interfaces", "ClassObject",
            "SourceDebugExtension", "ClassFileVersion", "Module"]
METHOD_CMDS = ["LineTable", "VariableTable", "VariableTableWithGeneric", "Bytecodes", "IsObsolete"]


async def _string_id(t, sample: int) -> int:
    f = (await t.fields(sample))["sAscii"].field_id
    r = await t.client.command("ReferenceType", "GetValues", ref_type=sample, fields=[{"field_id": f}])
    return r.values[0].value.value


@scenario(commands=[
    "ReferenceType.Signature", "ReferenceType.SignatureWithGeneric", "ReferenceType.ClassLoader",
    "ReferenceType.Modifiers", "ReferenceType.Fields", "ReferenceType.FieldsWithGeneric", "ReferenceType.Methods",
    "ReferenceType.MethodsWithGeneric", "ReferenceType.SourceFile", "ReferenceType.Status",
    "ReferenceType.Interfaces", "ReferenceType.ClassObject", "ReferenceType.SourceDebugExtension",
    "ReferenceType.ClassFileVersion", "ReferenceType.Module", "ReferenceType.NestedTypes",
    "ReferenceType.ConstantPool", "ReferenceType.GetValues", "ClassType.Superclass",
    "ClassObjectReference.ReflectedType",
])
async def reference_types_every_query(t):
    """Every ReferenceType query on classes, interfaces, enums, arrays; strings and unknown ids as types."""
    sample = await t.start("Sample")
    await t.run_to(sample, STOP)
    string_id = await _string_id(t, sample)
    for sig in TYPES:
        ref = await t.class_id(sig)
        for name in PER_TYPE:
            await t.cmd("ReferenceType", name, ref_type=ref, note=sig)
        code, nested = await t.cmd("ReferenceType", "NestedTypes", ref_type=ref, record=False)
        # HotSpot's class dictionary decides the order, which differs from run to run.
        sigs = sorted([(await t.client.command("ReferenceType", "Signature", ref_type=c.type_id)).signature
                       for c in nested.classes] if nested else [])
        t.note("ReferenceType.NestedTypes", sig, (code, sigs))
        await t.cmd("ClassObjectReference", "ReflectedType", class_object=ref, note=sig)
        await t.cmd("ClassType", "Superclass", clazz=ref, note=sig)
    for sig in ("LSample$Circle;", "[I", "Ljava/lang/Runnable;"):
        await t.cmd("ReferenceType", "ConstantPool", ref_type=await t.class_id(sig), note=sig)
    await t.cmd("ClassType", "Superclass", clazz=await t.class_id("Ljava/lang/Object;"), note="Object")
    for bad, note in ((string_id, "a string"), (BAD, "unknown")):
        for name in [*PER_TYPE, "NestedTypes", "ConstantPool"]:
            await t.cmd("ReferenceType", name, ref_type=bad, note=note)
        await t.cmd("ClassType", "Superclass", clazz=bad, note=note)
        await t.cmd("ReferenceType", "GetValues", ref_type=bad, fields=[], note=note)
    await t.cmd("ClassObjectReference", "ReflectedType", class_object=BAD, note="unknown")
    # (The null class kills the reference's VM in most ReferenceType commands: see
    # test_conformance_differences.)
    await t.cmd("ReferenceType", "Signature", ref_type=0, note="null")
    # Static values of every type; a field of another class; an instance field; an unknown one.
    fields = await t.fields(sample)
    statics = [f for f in fields.values() if f.mod_bits & 0x8]
    await t.ok("ReferenceType", "GetValues", ref_type=sample, fields=[{"field_id": f.field_id} for f in statics])
    await t.cmd("ReferenceType", "GetValues", ref_type=sample, fields=[], note="none")
    inherited = [f.field_id for f in (await t.fields(await t.class_id("Ljava/lang/Object;"))).values()]
    await t.cmd("ReferenceType", "GetValues", ref_type=sample, fields=[{"field_id": BAD}], note="unknown field")
    # (An instance field kills the reference's VM: see test_conformance_differences.)
    await t.cmd("ReferenceType", "GetValues", ref_type=sample, fields=[{"field_id": fields["sInt"].field_id}] * 3,
                note="one field thrice")
    t.note("ReferenceType.GetValues", "Object has no fields", inherited)


@scenario(commands=[
    "Method.LineTable", "Method.VariableTable", "Method.VariableTableWithGeneric", "Method.Bytecodes",
    "Method.IsObsolete",
])
async def method_tables(t):
    """Line and variable tables, bytecodes of methods with and without debug info, native and abstract ones."""
    sample = await t.start("Sample")
    await t.run_to(sample, STOP)
    for sig in ("LSample;", "LSample$Circle;", "LSample$Shape;", "Ljava/lang/Object;", "Ljava/util/ArrayList;"):
        ref = await t.class_id(sig)
        for m in (await t.ok("ReferenceType", "MethodsWithGeneric", ref_type=ref, note=sig)).declared:
            for name in METHOD_CMDS:
                await t.cmd("Method", name, ref_type=ref, method_id=m.method_id, note=f"{sig}.{m.name}{m.signature}")
    string_id = await _string_id(t, sample)
    circle = await t.class_id("LSample$Circle;")
    factorial = (await t.methods(sample))["factorial"].method_id
    for name in ("LineTable", "VariableTable", "VariableTableWithGeneric", "Bytecodes"):
        await t.cmd("Method", name, ref_type=string_id, method_id=factorial, note="a string as class")
        await t.cmd("Method", name, ref_type=BAD, method_id=factorial, note="unknown class")
        # A method of another class: the reference answers from the method id alone.
        await t.cmd("Method", name, ref_type=circle, method_id=factorial, note="another class's method")
    await t.cmd("Method", "IsObsolete", ref_type=circle, method_id=factorial, note="another class's method")


@scenario(commands=[
    "ClassType.SetValues", "ClassType.InvokeMethod", "ClassType.NewInstance", "ArrayType.NewInstance",
    "InterfaceType.InvokeMethod", "ArrayReference.Length", "StringReference.Value",
], events=["BREAKPOINT"])
async def class_invocations_and_statics(t):
    """Static writes, static and interface invocations, constructors, new arrays; wrong arguments of each."""
    sample = await t.start("Sample")
    bp = await t.run_to(sample, STOP)
    thread = bp.thread
    opts = InvokeOptions.INVOKE_SINGLE_THREADED
    fields = {n: f.field_id for n, f in (await t.fields(sample)).items()}
    methods = await t.methods(sample)
    string_id = await _string_id(t, sample)
    # ClassType.SetValues: every primitive, an object, null; then read back.
    writes = [("sBoolean", (Tag.BOOLEAN, False)), ("sByte", (Tag.BYTE, 5)), ("sChar", (Tag.CHAR, 0x4E2D)),
              ("sShort", (Tag.SHORT, 7)), ("sInt", (Tag.INT, -5)), ("sLong", (Tag.LONG, 1 << 50)),
              ("sFloat", (Tag.FLOAT, -0.5)), ("sDouble", (Tag.DOUBLE, 6.5)), ("sAscii", (Tag.OBJECT, string_id)),
              ("sNull", (Tag.OBJECT, 0))]
    await t.ok("ClassType", "SetValues", clazz=sample,
               values=[{"field_id": fields[n], "value": v} for n, v in writes])
    await t.ok("ReferenceType", "GetValues", ref_type=sample, fields=[{"field_id": fields[n]} for n, _ in writes],
               note="after SetValues")
    # (An unknown or instance field id kills the reference's VM: see test_conformance_differences.)
    await t.cmd("ClassType", "SetValues", clazz=sample, values=[], note="none")
    await t.cmd("ClassType", "SetValues", clazz=BAD, values=[], note="unknown class")
    await t.cmd("ClassType", "SetValues", clazz=string_id, values=[], note="a string as class")
    # ClassType.InvokeMethod
    call = {"thread": thread, "options": opts}
    await t.ok("ClassType", "InvokeMethod", clazz=sample, method_id=methods["factorial"].method_id,
               arguments=[(Tag.INT, 5)], **call)
    await t.ok("ClassType", "InvokeMethod", clazz=sample, method_id=methods["thrower"].method_id,
               arguments=[(Tag.INT, 1)], **call, note="throws")
    await t.ok("ClassType", "InvokeMethod", clazz=sample, method_id=methods["factorial"].method_id,
               arguments=[(Tag.INT, 3)], thread=thread, options=0, note="all threads run")
    for options, note in ((InvokeOptions.INVOKE_NONVIRTUAL | opts, "nonvirtual static"), (0x80 | opts, "bit 0x80")):
        await t.cmd("ClassType", "InvokeMethod", clazz=sample, method_id=methods["factorial"].method_id,
                    arguments=[(Tag.INT, 2)], thread=thread, options=options, note=note)
    string_class = await t.class_id("Ljava/lang/String;")
    value_of = (await t.methods(string_class))["valueOf(I)Ljava/lang/String;"].method_id
    code, r = await t.cmd("ClassType", "InvokeMethod", clazz=string_class, method_id=value_of,
                          arguments=[(Tag.INT, 42)], **call, note="String.valueOf")
    await t.ok("StringReference", "Value", string_object=r.return_value.value, note="String.valueOf")
    await t.cmd("ClassType", "InvokeMethod", clazz=sample, method_id=methods["factorial"].method_id,
                arguments=[(Tag.INT, 5)], thread=BAD, options=opts, note="unknown thread")
    await t.cmd("ClassType", "InvokeMethod", clazz=sample, method_id=methods["factorial"].method_id,
                arguments=[(Tag.INT, 5)], thread=string_id, options=opts, note="a string as thread")
    await t.cmd("ClassType", "InvokeMethod", clazz=BAD, method_id=methods["factorial"].method_id,
                arguments=[(Tag.INT, 5)], **call, note="unknown class")
    # ClassType.NewInstance
    circle = await t.class_id("LSample$Circle;")
    ctor = (await t.methods(circle))["<init>"].method_id
    code, made = await t.cmd("ClassType", "NewInstance", clazz=circle, method_id=ctor, arguments=[(Tag.DOUBLE, 1.5)],
                             **call)
    await t.ok("ObjectReference", "ReferenceType", object=made.new_object.object_id, record=False)
    await t.cmd("ClassType", "NewInstance", clazz=string_class,
                method_id=(await t.methods(string_class))["<init>()V"].method_id, arguments=[], **call,
                note="String()")
    shape = await t.class_id("LSample$Shape;")
    await t.cmd("ClassType", "NewInstance", clazz=BAD, method_id=ctor, arguments=[(Tag.DOUBLE, 1.5)], **call,
                note="unknown class")
    await t.cmd("ClassType", "NewInstance", clazz=circle, method_id=ctor, arguments=[(Tag.DOUBLE, 1.5)],
                thread=BAD, options=opts, note="unknown thread")
    # ArrayType.NewInstance of primitive, object and nested arrays; lengths; wrong types.
    for sig, length in (("[I", 3), ("[Ljava/lang/String;", 2), ("[[I", 0), ("[D", 1)):
        arr = (await t.ok("ArrayType", "NewInstance", arr_type=await t.class_id(sig), length=length,
                          note=sig)).new_array
        await t.ok("ArrayReference", "Length", array_object=arr.object_id, note=sig)
    await t.cmd("ArrayType", "NewInstance", arr_type=await t.class_id("[I"), length=-1, note="negative length")
    # (A class that is no array type: the reference makes an array of whatever its signature's second
    # character names: see test_conformance_differences.)
    await t.cmd("ArrayType", "NewInstance", arr_type=BAD, length=1, note="unknown")
    await t.cmd("ArrayType", "NewInstance", arr_type=string_id, length=1, note="a string")
    # InterfaceType.InvokeMethod: a static interface method of the JDK, errors.
    list_class = await t.class_id("Ljava/util/List;")
    list_methods = await t.methods(list_class)
    await t.ok("InterfaceType", "InvokeMethod", clazz=list_class, method_id=list_methods["of()Ljava/util/List;"]
               .method_id, arguments=[], **call)
    await t.ok("InterfaceType", "InvokeMethod", clazz=list_class,
               method_id=list_methods["of(Ljava/lang/Object;)Ljava/util/List;"].method_id,
               arguments=[(Tag.OBJECT, string_id)], **call, note="List.of(s)")
    await t.cmd("InterfaceType", "InvokeMethod", clazz=sample, method_id=methods["factorial"].method_id,
                arguments=[(Tag.INT, 2)], **call, note="a class")
    await t.cmd("InterfaceType", "InvokeMethod", clazz=BAD, method_id=list_methods["of()Ljava/util/List;"]
                .method_id, arguments=[], **call, note="unknown")
    await t.cmd("InterfaceType", "InvokeMethod", clazz=shape, method_id=list_methods["of()Ljava/util/List;"]
                .method_id, arguments=[], thread=BAD, options=opts, note="unknown thread")


@scenario(commands=[
    "ClassLoaderReference.VisibleClasses", "ModuleReference.Name", "ModuleReference.ClassLoader",
])
async def loaders_and_modules(t):
    """What the application and boot loaders see; modules of app, JDK and array classes; bad ids."""
    sample = await t.start("Sample")
    await t.run_to(sample, STOP)
    all_classes = (await t.client.command("VirtualMachine", "AllClasses")).classes
    signature_of = {c.type_id: c.signature for c in all_classes}
    loader = (await t.ok("ReferenceType", "ClassLoader", ref_type=sample, record=False)).class_loader
    code, visible = await t.cmd("ClassLoaderReference", "VisibleClasses", class_loader_object=loader, record=False)
    seen = sorted(signature_of.get(c.type_id, "?") for c in visible.classes)
    t.note("ClassLoaderReference.VisibleClasses", "app loader: Sample's",
           (code, [s for s in seen if "Sample" in s], "Ljava/lang/String;" in seen))
    code, boot = await t.cmd("ClassLoaderReference", "VisibleClasses", class_loader_object=0, record=False)
    boot_seen = {signature_of.get(c.type_id, "?") for c in boot.classes}
    t.note("ClassLoaderReference.VisibleClasses", "boot loader",
           (code, "LSample;" in boot_seen, "Ljava/lang/String;" in boot_seen, "[I" in boot_seen))
    string_id = await _string_id(t, sample)
    for bad, note in ((sample, "a class"), (BAD, "unknown"), (string_id, "a string")):
        await t.cmd("ClassLoaderReference", "VisibleClasses", class_loader_object=bad, note=note)
    for sig in ("LSample;", "Ljava/lang/String;", "[I", "Ljava/util/List;", "[LSample$Shape;"):
        module = (await t.ok("ReferenceType", "Module", ref_type=await t.class_id(sig), record=False)).module
        await t.cmd("ModuleReference", "Name", module=module, note=sig)
        await t.cmd("ModuleReference", "ClassLoader", module=module, note=sig)
    # (Any other object as a module: the reference answers garbage; see test_conformance_differences.)
    # (The null module: the reference answers on 17 and dies on 25; see test_conformance_differences.)
    for bad, note in ((BAD, "unknown"),):
        await t.cmd("ModuleReference", "Name", module=bad, note=note)
        await t.cmd("ModuleReference", "ClassLoader", module=bad, note=note)


@scenario(debuggee="conf_sde", main="Conf", commands=[
    "ReferenceType.SourceDebugExtension", "VirtualMachine.SetDefaultStratum", "ReferenceType.SourceFile",
    "Method.LineTable",
])
async def source_debug_extension_and_strata(t):
    """A class with a JSR-45 SourceDebugExtension, one without; the default stratum changed in between."""
    conf = await t.start("Conf")
    await t.run_to(conf, "C_CALL_BUMP")
    strata = await t.class_id("LConfStrata;")
    for stratum in (None, "Foo", "Java", "NoSuch", ""):
        if stratum is not None:
            await t.ok("VirtualMachine", "SetDefaultStratum", stratum_id=stratum, note=repr(stratum))
        for ref, who in ((strata, "with SMAP"), (conf, "without")):
            await t.cmd("ReferenceType", "SourceDebugExtension", ref_type=ref, note=f"{who}, {stratum!r}")
            await t.cmd("ReferenceType", "SourceFile", ref_type=ref, note=f"{who}, {stratum!r}")
        touch = (await t.methods(strata))["touch"].method_id
        await t.cmd("Method", "LineTable", ref_type=strata, method_id=touch, note=repr(stratum))
    await t.to_the_end()


STATIC_CALLS = [  # (class, method name + signature, arguments)
    ("Ljava/lang/Math;", "max(JJ)J", [(Tag.LONG, -5), (Tag.LONG, 1 << 40)]),
    ("Ljava/lang/Math;", "sqrt(D)D", [(Tag.DOUBLE, 2.0)]),
    ("Ljava/lang/Float;", "intBitsToFloat(I)F", [(Tag.INT, 0x3FC00000)]),
    ("Ljava/lang/Short;", "reverseBytes(S)S", [(Tag.SHORT, 0x0102)]),
    ("Ljava/lang/Character;", "toUpperCase(C)C", [(Tag.CHAR, ord("q"))]),
    ("Ljava/lang/Boolean;", "logicalXor(ZZ)Z", [(Tag.BOOLEAN, True), (Tag.BOOLEAN, False)]),
    ("Ljava/lang/Byte;", "toUnsignedInt(B)I", [(Tag.BYTE, -1)]),
    ("Ljava/lang/Integer;", "valueOf(I)Ljava/lang/Integer;", [(Tag.INT, 77)]),
    ("Ljava/lang/Integer;", "parseInt(Ljava/lang/String;)I", [(Tag.OBJECT, 0)]),
    ("Ljava/lang/Thread;", "currentThread()Ljava/lang/Thread;", []),
    ("Ljava/lang/Thread;", "yield()V", []),
]
INSTANCE_CALLS = [  # on Sample.sAscii ("hello")
    ("length()I", []), ("isEmpty()Z", []), ("charAt(I)C", [(Tag.INT, 1)]), ("toCharArray()[C", []),
    ("getBytes()[B", []), ("hashCode()I", []), ("intern()Ljava/lang/String;", []), ("notify()V", []),
    ("charAt(I)C", [(Tag.INT, 99)]), ("getClass()Ljava/lang/Class;", []),
]


@scenario(commands=["ClassType.InvokeMethod", "ObjectReference.InvokeMethod", "ClassType.NewInstance"])
async def invocations_of_every_return_type(t):
    """Static and instance invokes returning every primitive, void, arrays, objects, or throwing."""
    sample = await t.start("Sample")
    thread = (await t.run_to(sample, STOP)).thread
    call = {"thread": thread, "options": InvokeOptions.INVOKE_SINGLE_THREADED}
    for sig, method, args in STATIC_CALLS:
        found = (await t.client.command("VirtualMachine", "ClassesBySignature", signature=sig)).classes
        if not found:
            t.note("ClassType.InvokeMethod", f"{sig} not loaded", True)
            continue
        ref = found[0].type_id
        await t.cmd("ClassType", "InvokeMethod", clazz=ref, method_id=(await t.methods(ref))[method].method_id,
                    arguments=args, **call, note=f"{sig}.{method}")
    string = await _string_id(t, sample)
    string_class = await t.class_id("Ljava/lang/String;")
    string_methods = await t.methods(string_class)
    object_methods = await t.methods(await t.class_id("Ljava/lang/Object;"))
    for method, args in INSTANCE_CALLS:
        declared = string_methods if method in string_methods else object_methods
        await t.cmd("ObjectReference", "InvokeMethod", object=string, clazz=string_class,
                    method_id=declared[method].method_id, arguments=args, **call, note=f"{method} {args}")
    array_list = await t.class_id("Ljava/util/ArrayList;")
    ctor = (await t.methods(array_list))["<init>(I)V"].method_id
    for size in (3, -1):
        await t.cmd("ClassType", "NewInstance", clazz=array_list, method_id=ctor, arguments=[(Tag.INT, size)],
                    **call, note=f"ArrayList({size})")
    await t.to_the_end()


@scenario(debuggee="nodebug", main="NoDebug", commands=[
    "ReferenceType.SourceFile", "ReferenceType.SourceDebugExtension", "Method.LineTable", "Method.VariableTable",
    "Method.VariableTableWithGeneric", "Method.Bytecodes", "StackFrame.GetValues", "StackFrame.ThisObject",
    "ThreadReference.Frames",
], events=["SINGLE_STEP", "METHOD_ENTRY"])
async def types_without_debug_information(t):
    """A class compiled with -g:none: no source file, no lines, no variables; stepping and locals there."""
    nodebug = await t.start("NoDebug")
    for name in ("SourceFile", "SourceDebugExtension"):
        await t.cmd("ReferenceType", name, ref_type=nodebug)
    methods = await t.methods(nodebug)
    for m in (await t.client.command("ReferenceType", "Methods", ref_type=nodebug)).declared:
        for name in ("LineTable", "VariableTable", "VariableTableWithGeneric", "Bytecodes"):
            await t.cmd("Method", name, ref_type=nodebug, method_id=m.method_id, note=f"{m.name}{m.signature}")
    # No line to break at: the entry of twice(int), then locals by slot, then steps without lines.
    entry = await t.set_request(EventKind.METHOD_ENTRY, {"mod_kind": ModKind.CLASS_ONLY, "clazz": nodebug})
    await t.ok("VirtualMachine", "Resume")
    ev = await t.event_of(EventKind.METHOD_ENTRY, "twice")
    await t.ok("EventRequest", "Clear", event_kind=EventKind.METHOD_ENTRY, request_id=entry)
    thread = ev.thread
    await t.ok("ThreadReference", "Frames", thread=thread, start_frame=0, length=-1, note="in twice")
    top = (await t.frames(thread))[0].frame_id
    await t.cmd("StackFrame", "GetValues", thread=thread, frame=top, slots=[(0, Tag.INT)], note="x")
    await t.cmd("StackFrame", "GetValues", thread=thread, frame=top, slots=[(1, Tag.INT)], note="y, not yet")
    await t.cmd("StackFrame", "ThisObject", thread=thread, frame=top, note="static")
    for size, why in ((StepSize.LINE, "line over"), (StepSize.MIN, "min over")):
        rid = await t.set_request(EventKind.SINGLE_STEP, {"mod_kind": ModKind.STEP, "thread": thread, "size": size,
                                                          "depth": StepDepth.OVER})
        await t.ok("VirtualMachine", "Resume")
        await t.event(why)
        await t.ok("EventRequest", "Clear", event_kind=EventKind.SINGLE_STEP, request_id=rid)
    bp = {"type_tag": 1, "class_id": nodebug, "method_id": methods["twice"].method_id, "index": 2}
    await t.cmd("EventRequest", "Set", event_kind=EventKind.BREAKPOINT, suspend_policy=SuspendPolicy.ALL,
                modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": bp}], note="by index, no line")
    await t.to_the_end()

