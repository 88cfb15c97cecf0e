"""VirtualMachine: facts, suspension, strings, holding events, instance counts, redefinition, Dispose, Exit."""

from __future__ import annotations

import functools
import struct
from pathlib import Path

from jdwpd.testing import debuggees
from protocol.constants import EventKind, SuspendPolicy
from tests.conformance.registry import scenario

BAD = 0x7EADBEEF  # an ID no server handed out


@scenario(commands=[
    "VirtualMachine.Version", "VirtualMachine.IDSizes", "VirtualMachine.Capabilities",
    "VirtualMachine.CapabilitiesNew", "VirtualMachine.ClassPaths", "VirtualMachine.AllThreads",
    "VirtualMachine.TopLevelThreadGroups", "VirtualMachine.ClassesBySignature", "VirtualMachine.AllClasses",
    "VirtualMachine.AllClassesWithGeneric", "VirtualMachine.AllModules", "VirtualMachine.Suspend",
    "VirtualMachine.Resume", "VirtualMachine.CreateString", "VirtualMachine.DisposeObjects",
    "VirtualMachine.HoldEvents", "VirtualMachine.ReleaseEvents", "VirtualMachine.SetDefaultStratum",
    "VirtualMachine.Dispose", "ThreadReference.SuspendCount", "StringReference.Value",
], events=["VM_START"])
async def vm_facts_strings_and_dispose(t):
    """VM facts at VMStart, suspend counting, strings, DisposeObjects, then Dispose lets the VM run."""
    await t.event_of(EventKind.VM_START, "start")
    for name in ("Version", "IDSizes", "Capabilities", "CapabilitiesNew", "ClassPaths", "AllThreads",
                 "TopLevelThreadGroups"):
        await t.ok("VirtualMachine", name)
    for sig in ("Ljava/lang/String;", "[I", "I", "V", "Ljava/lang/Runnable;", "Lno/Such;", "[[Ljava/lang/Object;",
                "", "java.lang.String", "LSample;"):
        await t.cmd("VirtualMachine", "ClassesBySignature", signature=sig, note=repr(sig))
    wanted = {"Ljava/lang/String;", "Ljava/util/List;", "[I", "Ljava/lang/Thread;", "Ljava/util/HashMap;"}
    for name in ("AllClasses", "AllClassesWithGeneric"):
        classes = (await t.ok("VirtualMachine", name, record=False)).classes
        # The whole list depends on what each agent loaded for itself; well-known classes do not.
        t.note(f"VirtualMachine.{name}", "well-known", sorted(
            (c.signature, int(c.ref_type_tag), c.status, getattr(c, "generic_signature", None))
            for c in classes if c.signature in wanted))
        t.note(f"VirtualMachine.{name}", "no primitives", [c.signature for c in classes if len(c.signature) == 1])
    modules = (await t.ok("VirtualMachine", "AllModules", record=False)).modules
    names = []
    for m in modules:
        r = await t.client.command("ModuleReference", "Name", module=m.module)
        names.append(r.name)
    t.note("VirtualMachine.AllModules", "names", sorted(names))
    main = (await t.ok("VirtualMachine", "AllThreads")).threads[0].thread
    # Suspension counts: VMStart's suspension, then two more, then back.
    await t.ok("ThreadReference", "SuspendCount", thread=main, note="at start")
    await t.ok("VirtualMachine", "Suspend")
    await t.ok("VirtualMachine", "Suspend", note="twice")
    await t.ok("ThreadReference", "SuspendCount", thread=main, note="suspended twice more")
    await t.ok("VirtualMachine", "Resume")
    await t.ok("ThreadReference", "SuspendCount", thread=main, note="resumed once")
    await t.ok("VirtualMachine", "Resume", note="second")
    await t.cmd("ThreadReference", "SuspendCount", thread=BAD, note="unknown thread")
    # Strings: round trip of every kind of character, then disposed.
    texts = ["", "ascii", "h\u00e9llo w\u00f6rld \u2713", "nul\x00inside", "clef \U0001d11e smile \U0001f600"]
    for text in texts:
        s = (await t.ok("VirtualMachine", "CreateString", utf=text, note=repr(text))).string_object
        await t.ok("StringReference", "Value", string_object=s, note=repr(text))
        await t.ok("VirtualMachine", "DisposeObjects", requests=[(s, 1)], note=repr(text))
        await t.cmd("StringReference", "Value", string_object=s, note=f"{text!r} disposed")
    # (More disposals than the ID was sent kill the reference's VM: see test_conformance_differences.)
    await t.cmd("VirtualMachine", "DisposeObjects", requests=[(BAD, 1)], note="unknown")
    await t.cmd("VirtualMachine", "DisposeObjects", requests=[], note="none")
    await t.cmd("StringReference", "Value", string_object=BAD, note="unknown")
    await t.cmd("StringReference", "Value", string_object=main, note="a thread")
    await t.ok("VirtualMachine", "HoldEvents")
    await t.ok("VirtualMachine", "HoldEvents", note="twice")
    await t.ok("VirtualMachine", "ReleaseEvents")
    await t.ok("VirtualMachine", "ReleaseEvents", note="not held")
    for stratum in ("Java", "", "JSP"):
        await t.ok("VirtualMachine", "SetDefaultStratum", stratum_id=stratum, note=repr(stratum))
    await t.ok("VirtualMachine", "Dispose")
    await t.client.wait_closed(10)
    t.note("VirtualMachine.Dispose", "connection closed after", t.client.closed.is_set())


@scenario(commands=[
    "VirtualMachine.InstanceCounts", "VirtualMachine.RedefineClasses", "VirtualMachine.Exit",
    "ReferenceType.Instances", "Method.IsObsolete",
], events=["CLASS_PREPARE", "BREAKPOINT"])
async def vm_instance_counts_redefinition_and_exit(t):
    """InstanceCounts and Instances with bad arguments; RedefineClasses refusals and success; Exit."""
    sample = await t.start("Sample")
    bp = await t.run_to(sample, "TOTAL_AREA_LOOP")
    thread = bp.thread
    circle = await t.class_id("LSample$Circle;")
    await t.ok("VirtualMachine", "InstanceCounts", ref_types_count=[sample, circle])
    await t.ok("VirtualMachine", "InstanceCounts", ref_types_count=[])
    # One walk counts them all: an interface (no instances of its own), arrays; a class asked twice.
    shape, ints = await t.class_id("LSample$Shape;"), await t.class_id("[I")
    await t.ok("VirtualMachine", "InstanceCounts", ref_types_count=[shape, sample, circle, ints],
               note="interface, arrays")
    await t.ok("VirtualMachine", "InstanceCounts", ref_types_count=[circle, sample, circle], note="asked twice")
    for bad, note in ((BAD, "unknown"), (thread, "a thread"), (0, "null")):
        await t.cmd("VirtualMachine", "InstanceCounts", ref_types_count=[sample, bad], note=note)
        await t.cmd("ReferenceType", "Instances", ref_type=bad, max_instances=0, note=note)
    await t.raw(1, 21, struct.pack(">i", -1), "VirtualMachine.InstanceCounts", "negative count")
    for limit in (0, 1, 2, -1):
        code, r = await t.cmd("ReferenceType", "Instances", ref_type=circle, max_instances=limit, note=str(limit))
    await t.ok("ReferenceType", "Instances", ref_type=await t.class_id("[I"), max_instances=0, note="arrays")
    await t.ok("ReferenceType", "Instances", ref_type=await t.class_id("LSample$Shape;"), max_instances=0,
               note="interface")
    own = (t.classes / "Sample$Circle.class").read_bytes()
    area = (await t.methods(circle))["area"].method_id
    await t.ok("Method", "IsObsolete", ref_type=circle, method_id=area, note="before")
    for classes, note in (([], "none"), ([(circle, b"")], "empty file"), ([(circle, b"\xca\xfe\xba\xbe")], "cut"),
                          ([(circle, own)], "own bytes"), ([(BAD, own)], "unknown class"),
                          ([(thread, own)], "a thread"),
                          ([(sample, own)], "another class's bytes"),
                          ([(await t.class_id("[I"), own)], "an array class"),
                          ([(circle, own), (circle, own)], "twice in one")):
        await t.cmd("VirtualMachine", "RedefineClasses", classes=classes, note=note)
    await t.ok("Method", "IsObsolete", ref_type=circle, method_id=area, note="after")
    # (An unknown method id kills the reference's VM: see test_conformance_differences.)
    await t.cmd("Method", "IsObsolete", ref_type=BAD, method_id=area, note="unknown class")
    await t.ok("ReferenceType", "Signature", ref_type=circle)
    await t.ok("StackFrame", "ThisObject", thread=thread, frame=(await t.frames(thread))[0].frame_id, record=False)
    await t.ok("VirtualMachine", "Exit", exit_code=3)
    await t.client.wait_closed(10)
    t.note("VirtualMachine.Exit", "connection closed after", t.client.closed.is_set())


# Variants of Conf for RedefineClasses, made from its source by replacing one piece of text.
CONF_SOURCE = Path(__file__).resolve().parents[1] / "java" / "conformance" / "Conf.java"
VARIANTS = {
    "new body of twice": ("return x * 2; // @marker C_TWICE", "return x * 3;"),
    "a method added": ("    static int outer(int x) {", "    static int added() {\n        return 7;\n    }\n\n"
                       "    static int outer(int x) {"),
    "a method deleted": ("    static void parked() {\n        counter += 1000; // @marker C_PARKED\n    }\n", "",
                         "        parked();\n", ""),
    "a field added": ("    static int counter;", "    static int counter;\n    static int added;"),
    "the class made final": ("public class Conf {", "public final class Conf {"),
    "another superclass": ("public class Conf {", "public class Conf extends Thread {"),
}


@functools.cache
def _variant(name: str) -> bytes:
    source = CONF_SOURCE.read_text(encoding="utf-8")
    edits = VARIANTS[name]
    for old, new in zip(edits[::2], edits[1::2], strict=True):
        assert old in source, name
        source = source.replace(old, new)
    src_dir = debuggees.cache_root() / "conf-variants" / name.replace(" ", "-")
    src_dir.mkdir(parents=True, exist_ok=True)
    (src_dir / "Conf.java").write_text(source, encoding="utf-8")
    strata = CONF_SOURCE.with_name("ConfStrata.java")
    (src_dir / strata.name).write_text(strata.read_text(encoding="utf-8"), encoding="utf-8")
    return (debuggees.compile_sources(src_dir) / "Conf.class").read_bytes()


@scenario(debuggee="conf", main="Conf", commands=[
    "VirtualMachine.RedefineClasses", "Method.IsObsolete", "ThreadReference.Frames",
    "ReferenceType.Methods",
], events=["BREAKPOINT", "VM_DEATH"])
async def vm_redefinition_of_a_running_method(t):
    """Redefinitions JVMTI refuses (schema changes), then a new body for a method on the stack: obsolete."""
    for name in VARIANTS:  # compiled before the clock of the run matters
        _variant(name)
    conf = await t.start("Conf")
    thread = (await t.run_to(conf, "C_TWICE")).thread
    for name in ("a method added", "a method deleted", "a field added", "the class made final",
                 "another superclass"):
        await t.cmd("VirtualMachine", "RedefineClasses", classes=[(conf, _variant(name))], note=name)
    twice = (await t.methods(conf))["twice"].method_id
    await t.ok("Method", "IsObsolete", ref_type=conf, method_id=twice, note="before")
    await t.ok("VirtualMachine", "RedefineClasses", classes=[(conf, _variant("new body of twice"))])
    with t.isolated():
        frames = await t.ok("ThreadReference", "Frames", thread=thread, start_frame=0, length=2, note="after")
    running = frames.frames[0].location.method_id
    await t.ok("Method", "IsObsolete", ref_type=conf, method_id=running, note="the running twice")
    # (The reference names an obsolete method 0 — JDI's ObsoleteMethodImpl —, and Method commands on
    # method 0 kill its VM.)
    await t.ok("ReferenceType", "Methods", ref_type=conf, note="after")
    await t.ok("Method", "IsObsolete", ref_type=conf, method_id=(await t.methods(conf))["twice"].method_id,
               note="the new twice")
    await t.to_the_end()


async def _threads_by_name(t) -> dict[str, int]:
    out = {}
    for th in (await t.client.command("VirtualMachine", "AllThreads")).threads:
        out[(await t.client.command("ThreadReference", "Name", thread=th.thread)).thread_name] = th.thread
    return out


@scenario(debuggee="conf", main="Conf", args=("threads",), commands=[
    "VirtualMachine.Dispose", "VirtualMachine.Suspend", "ThreadReference.SuspendCount", "ThreadReference.Status",
    "ThreadReference.Interrupt",
], events=["BREAKPOINT", "VM_DEATH"])
async def vm_dispose_then_another_debugger(t):
    """A debugger leaves (Dispose) holding suspensions and requests; the next one finds them all undone."""
    conf = await t.start("Conf")
    await t.run_to(conf, "C_PARKED")
    threads = await _threads_by_name(t)
    await t.breakpoint(conf, "C_DONE", SuspendPolicy.ALL)
    await t.ok("VirtualMachine", "Suspend")
    await t.ok("ThreadReference", "Suspend", thread=threads["sleeper"])
    await t.ok("ThreadReference", "SuspendCount", thread=threads["sleeper"], note="before Dispose")
    await t.ok("VirtualMachine", "Dispose")
    await t.client.wait_closed(10)
    async with t.another_debugger() as t2:
        threads = await _threads_by_name(t2)
        for name in sorted(n for n in threads if n in ("main", "sleeper", "victim")):
            await t2.ok("ThreadReference", "SuspendCount", thread=threads[name], note=f"{name}, second debugger")
            await t2.ok("ThreadReference", "Status", thread=threads[name], note=f"{name}, second debugger")
        await t2.breakpoint(await t2.class_id("LConf;"), "C_DONE", SuspendPolicy.ALL)
        for name in ("sleeper", "victim"):
            await t2.ok("ThreadReference", "Interrupt", thread=threads[name], note=name)
        await t2.event("C_DONE, second debugger")
        await t2.to_the_end()
