"""ClassLoaderReference, ModuleReference, ClassObjectReference; and what jdwpd refuses where the reference crashes."""

from __future__ import annotations

import pytest
import trio
from types_support import TIMEOUT, Transcript, differential, method_ids

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import ErrorCode, InvokeOptions, Tag

pytestmark = pytest.mark.jvm


async def test_loaders_modules_and_class_objects(sample_classes, sample_markers):
    async def scenario(t):
        await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        all_classes = (await t.client.command("VirtualMachine", "AllClasses", timeout=TIMEOUT)).classes
        signature_of = {c.type_id: c.signature for c in all_classes}
        sample = await t.class_id("LSample;")
        loader = (await t.ok("ReferenceType", "ClassLoader", ref_type=sample)).class_loader
        code, visible = await t.cmd("ClassLoaderReference", "VisibleClasses", class_loader_object=loader,
                                    record=False)
        assert code == 0
        seen = sorted(signature_of.get(c.type_id, "?") for c in visible.classes)
        assert "LSample;" in seen and "LSample$Circle;" in seen
        t.note("app loader sees", [s for s in seen if "Sample" in s])
        code, boot = await t.cmd("ClassLoaderReference", "VisibleClasses", class_loader_object=0, record=False)
        assert code == 0 and len(boot.classes) > 100
        await t.cmd("ClassLoaderReference", "VisibleClasses", class_loader_object=sample, note="a class")
        await t.cmd("ClassLoaderReference", "VisibleClasses", class_loader_object=0x7EADBEEF, note="unknown")
        for sig in ("LSample;", "Ljava/lang/String;", "[I"):
            module = (await t.ok("ReferenceType", "Module", ref_type=await t.class_id(sig))).module
            await t.cmd("ModuleReference", "Name", module=module, note=sig)
            await t.cmd("ModuleReference", "ClassLoader", module=module, note=sig)
        modules = (await t.client.command("VirtualMachine", "AllModules", timeout=TIMEOUT)).modules
        names = []
        for m in modules:
            code, r = await t.cmd("ModuleReference", "Name", module=m.module, record=False)
            names.append((code, r.name if r else None))
        t.note("module names", sorted(names))
        for sig in ("LSample;", "LSample$Shape;", "[[I"):
            ref = await t.class_id(sig)
            await t.cmd("ClassObjectReference", "ReflectedType", class_object=ref, note=sig)

    await differential(sample_classes, "Sample", scenario)


async def test_jdwpd_refuses_what_crashes_the_reference(sample_classes, sample_markers):
    """Requests JDI never sends, which take the reference agent's VM down: jdwpd answers an error.

    No differential here (the reference has no answer); the VM must still answer afterwards.
    """
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jdwpd_jvm(sample_classes, "Sample") as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as client:
                t = Transcript(client, "jdwpd")
                thread, sample = await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
                fields = {f.name: f.field_id for f in (await t.ok("ReferenceType", "Fields", ref_type=sample)).declared}
                ascii_id = (await t.ok("ReferenceType", "GetValues", ref_type=sample,
                                       fields=[{"field_id": fields["sAscii"]}])).values[0].value.value
                obj = (await t.ok("ReferenceType", "Instances", ref_type=sample, max_instances=1)
                       ).instances[0].instance.object_id
                methods = method_ids(await t.ok("ReferenceType", "Methods", ref_type=sample))
                factorial = methods[("factorial", "(I)I")]
                invoke = {"thread": thread, "options": InvokeOptions.INVOKE_SINGLE_THREADED}
                expectations = [
                    (("ClassObjectReference", "ReflectedType"), {"class_object": ascii_id}, ErrorCode.INVALID_CLASS),
                    (("StringReference", "Value"), {"string_object": 0}, ErrorCode.INVALID_OBJECT),
                    (("ObjectReference", "ReferenceType"), {"object": 0}, ErrorCode.INVALID_OBJECT),
                    (("ReferenceType", "Signature"), {"ref_type": 0}, ErrorCode.INVALID_CLASS),
                    (("ReferenceType", "GetValues"), {"ref_type": sample, "fields": [{"field_id": fields["fInt"]}]},
                     ErrorCode.INVALID_FIELDID),
                    (("ClassType", "InvokeMethod"),
                     {"clazz": sample, "method_id": factorial, "arguments": [], **invoke}, ErrorCode.ILLEGAL_ARGUMENT),
                    (("ClassType", "InvokeMethod"),
                     {"clazz": sample, "method_id": factorial, "arguments": [(Tag.LONG, 5)], **invoke},
                     ErrorCode.TYPE_MISMATCH),
                    (("ClassType", "InvokeMethod"),
                     {"clazz": sample, "method_id": methods[("compute", "(I)I")], "arguments": [(Tag.INT, 1)],
                      **invoke}, ErrorCode.INVALID_METHODID),
                    (("ObjectReference", "InvokeMethod"),
                     {"object": ascii_id, "clazz": sample, "method_id": methods[("compute", "(I)I")],
                      "arguments": [(Tag.INT, 1)], **invoke}, ErrorCode.ILLEGAL_ARGUMENT),
                    (("ClassType", "InvokeMethod"),
                     {"clazz": sample, "method_id": methods[("totalArea", "([LSample$Shape;)D")],
                      "arguments": [(Tag.STRING, ascii_id)], **invoke}, ErrorCode.TYPE_MISMATCH),
                    (("ClassType", "NewInstance"),
                     {"clazz": sample, "method_id": factorial, "arguments": [(Tag.INT, 1)], **invoke},
                     ErrorCode.INVALID_METHODID),
                    (("Method", "LineTable"), {"ref_type": sample, "method_id": 0x7EADBEEF},
                     ErrorCode.INVALID_METHODID),
                    # a String into an int[] field: JNI would store it
                    (("ClassType", "SetValues"),
                     {"clazz": sample, "values": [{"field_id": fields["sInts"], "value": (Tag.STRING, ascii_id)}]},
                     ErrorCode.TYPE_MISMATCH),
                    (("ObjectReference", "SetValues"),
                     {"object": obj, "values": [{"field_id": fields["fShape"], "value": (Tag.STRING, ascii_id)}]},
                     ErrorCode.TYPE_MISMATCH),
                ]
                for (set_name, cmd_name), fields_, want in expectations:
                    code, _ = await t.cmd(set_name, cmd_name, **fields_)
                    assert code == want, f"{set_name}.{cmd_name} {fields_}: {code}, want {want}"
                # ...and the VM is fine: an ordinary invoke still works.
                r = await t.ok("ObjectReference", "InvokeMethod", object=obj, clazz=sample,
                               method_id=methods[("compute", "(I)I")], arguments=[(Tag.INT, 1)], **invoke)
                assert r.return_value.value == 2 + 123456


async def test_two_debuggers_asking_at_once_get_the_same_answers(sample_classes, sample_markers):
    """The class cache is shared by sessions: concurrent first questions still give each its answer."""
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    sigs = ["LSample;", "LSample$Circle;", "Ljava/lang/String;", "Ljava/util/ArrayList;", "[I"]
    with trio.fail_after(3 * TIMEOUT):
        async with jvm.open_jdwpd_jvm(sample_classes, "Sample") as debuggee:
            async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as first:
                await Transcript(first, "jdwpd").run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
                async with open_jdwp_client(debuggee.host, debuggee.port, timeout=TIMEOUT) as second:
                    results: dict[str, list] = {}

                    async def ask(name, client):
                        t = Transcript(client, name)
                        for sig in sigs:
                            ref = await t.class_id(sig)
                            for cmd in ("SignatureWithGeneric", "FieldsWithGeneric", "MethodsWithGeneric",
                                        "SourceFile", "Interfaces", "ClassLoader"):
                                await t.cmd("ReferenceType", cmd, ref_type=ref, note=sig)
                            if sig.startswith("L"):
                                for m in (await t.ok("ReferenceType", "Methods", ref_type=ref)).declared:
                                    await t.cmd("Method", "LineTable", ref_type=ref, method_id=m.method_id)
                        results[name] = t.entries

                    async with trio.open_nursery() as nursery:
                        nursery.start_soon(ask, "first", first)
                        nursery.start_soon(ask, "second", second)
    assert results["first"] == results["second"]
    assert len(results["first"]) > 100


async def test_the_class_cache_costs_one_round_trip_per_fact_on_a_real_vm(sample_classes):
    """In-process (jdwpd.daemon.vm.VM over a real agent link): concurrent and repeated questions share fetches."""
    from jdwpd.daemon.model.requests import Modifier
    from protocol.constants import EventKind, ModKind, SuspendPolicy
    from tests.commands.script_session import ScriptSession
    from tests.commands.types_support import sample_in_process

    with trio.fail_after(3 * TIMEOUT):
        async with sample_in_process(sample_classes) as (vm, started):
            classes = vm.classes  # exists before the event, as it does once a debugger asked anything
            async with ScriptSession(vm) as s:
                await s.events.receive()  # VMStart
                await s.request(EventKind.CLASS_PREPARE, SuspendPolicy.EVENT_THREAD,
                                [Modifier(ModKind.CLASS_MATCH, {"pattern": "Sample"})])
                await s.resume()
                while True:
                    _, events = await s.events.receive()
                    if events[0].event_kind == EventKind.CLASS_PREPARE:
                        break
                ref = events[0].type_id
                before = classes.round_trips
                results = []

                async def ask():
                    results.append(await classes.methods(ref))

                async with trio.open_nursery() as askers:
                    for _ in range(10):
                        askers.start_soon(ask)
                assert all(r is results[0] for r in results)
                names = {m.name for m in results[0]}
                assert {"main", "factorial", "compute", "<clinit>"} <= names
                # the signature was learned from the ClassPrepare event: one request, CLASS_METHODS_LINES
                assert classes.round_trips - before == 1
                for _ in range(2):
                    async with trio.open_nursery() as askers:
                        for m in results[0]:
                            askers.start_soon(classes.line_table, m.method_id)
                            askers.start_soon(classes.line_table, m.method_id)
                # every line table came with the methods
                assert classes.round_trips - before == 1
                factorial = next(m for m in results[0] if m.name == "factorial")
                assert (await classes.line_table(factorial.method_id)).lines
                await s.resume()
            assert await started.process.wait() == 0
            await vm.wait_dead()
