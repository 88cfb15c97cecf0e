"""Invokes (ClassType, InterfaceType, ObjectReference) and ClassType.NewInstance, against the reference."""

from __future__ import annotations

import pytest
from test_object_reference import _sample_object
from types_support import differential, method_ids

from protocol.constants import ErrorCode, InvokeOptions, Tag

pytestmark = pytest.mark.jvm


async def test_invoke_static_instance_interface_and_new_instance(sample_classes, sample_markers):
    async def scenario(t):
        thread, _ = await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        sample, obj = await _sample_object(t)
        methods = method_ids(await t.ok("ReferenceType", "Methods", ref_type=sample))
        invoke = {"thread": thread, "options": InvokeOptions.INVOKE_SINGLE_THREADED}
        code, r = await t.cmd("ClassType", "InvokeMethod", clazz=sample, method_id=methods[("factorial", "(I)I")],
                              arguments=[(Tag.INT, 5)], **invoke)
        assert code == 0 and r.return_value.value == 120
        await t.cmd("ObjectReference", "InvokeMethod", object=obj, clazz=sample,
                    method_id=methods[("compute", "(I)I")], arguments=[(Tag.INT, 3)], **invoke)
        await t.cmd("ClassType", "InvokeMethod", clazz=sample, method_id=methods[("thrower", "(I)V")],
                    arguments=[(Tag.INT, 0)], note="throws", **invoke)
        await t.cmd("ClassType", "InvokeMethod", clazz=sample, method_id=methods[("lateLoad", "()Ljava/lang/Object;")],
                    arguments=[], note="object result", **invoke)
        # Everything threads: all threads run during the invoke.
        await t.cmd("ClassType", "InvokeMethod", clazz=sample, method_id=methods[("factorial", "(I)I")],
                    arguments=[(Tag.INT, 3)], thread=thread, options=0, note="all threads")
        circle = await t.class_id("LSample$Circle;")
        ctor = method_ids(await t.ok("ReferenceType", "Methods", ref_type=circle))[("<init>", "(D)V")]
        code, made = await t.cmd("ClassType", "NewInstance", clazz=circle, method_id=ctor,
                                 arguments=[(Tag.DOUBLE, 1.0)], **invoke)
        assert code == 0 and made.new_object.object_id
        shape = await t.class_id("LSample$Shape;")
        area = method_ids(await t.ok("ReferenceType", "Methods", ref_type=shape))[("area", "()D")]
        await t.cmd("ObjectReference", "InvokeMethod", object=made.new_object.object_id, clazz=circle,
                    method_id=area, arguments=[], note="interface method, virtual", **invoke)
        string = await t.class_id("Ljava/lang/String;")
        value_of = method_ids(await t.ok("ReferenceType", "Methods", ref_type=string))[
            ("valueOf", "(I)Ljava/lang/String;")]
        code, s = await t.cmd("ClassType", "InvokeMethod", clazz=string, method_id=value_of,
                              arguments=[(Tag.INT, 42)], **invoke)
        assert s.return_value.tag == Tag.STRING
        await t.cmd("StringReference", "Value", string_object=s.return_value.value)
        lst = await t.class_id("Ljava/util/List;")
        of = method_ids(await t.ok("ReferenceType", "Methods", ref_type=lst))[("of", "()Ljava/util/List;")]
        await t.cmd("InterfaceType", "InvokeMethod", clazz=lst, method_id=of, arguments=[], **invoke)
        # A static method through a class that does not declare it, nor inherit it.
        code, _ = await t.cmd("ClassType", "InvokeMethod", clazz=string, method_id=methods[("factorial", "(I)I")],
                              arguments=[(Tag.INT, 5)], note="foreign method", **invoke)
        assert code == ErrorCode.INVALID_METHODID
        # A thread that is suspended, but not by an event, cannot invoke.
        threads = (await t.client.command("VirtualMachine", "AllThreads")).threads
        other = next(x.thread for x in threads if x.thread != thread)
        code, _ = await t.cmd("ClassType", "InvokeMethod", clazz=sample, method_id=methods[("factorial", "(I)I")],
                              arguments=[(Tag.INT, 5)], thread=other, options=0, note="not at an event")
        assert code == ErrorCode.INVALID_THREAD

    await differential(sample_classes, "Sample", scenario)


async def test_nonvirtual_invoke_skips_the_override(sample_classes, sample_markers):
    async def scenario(t):
        thread, sample = await t.run_to_line("Sample", sample_markers["TOTAL_AREA_LOOP"])
        fields = {f.name: f.field_id for f in (await t.ok("ReferenceType", "Fields", ref_type=sample)).declared}
        text = (await t.ok("ReferenceType", "GetValues", ref_type=sample,
                           fields=[{"field_id": fields["sAscii"]}])).values[0].value.value
        obj = await t.class_id("Ljava/lang/Object;")
        to_string = method_ids(await t.ok("ReferenceType", "Methods", ref_type=obj))[
            ("toString", "()Ljava/lang/String;")]
        string = await t.class_id("Ljava/lang/String;")
        results = {}
        for options, label in ((InvokeOptions.INVOKE_SINGLE_THREADED, "virtual"),
                               (InvokeOptions.INVOKE_SINGLE_THREADED | InvokeOptions.INVOKE_NONVIRTUAL, "nonvirtual")):
            code, r = await t.cmd("ObjectReference", "InvokeMethod", object=text, thread=thread, clazz=string,
                                  method_id=to_string, arguments=[], options=options, record=False)
            assert code == 0
            reply = await t.client.command("StringReference", "Value", string_object=r.return_value.value)
            value = reply.string_value
            # Object.toString carries the identity hash, which differs from run to run.
            results[label] = value.split("@")[0]
        t.note("toString", results)
        assert results == {"virtual": "hello", "nonvirtual": "java.lang.String"}

    await differential(sample_classes, "Sample", scenario)
