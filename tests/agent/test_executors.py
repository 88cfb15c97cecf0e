"""Executors against a real JVM: answers checked against the Java source of tests/agent/java."""

from __future__ import annotations

import pytest
import trio
from agent_support import run_jvm

from jdwpd.errors import AgentError
from protocol import link as L

pytestmark = pytest.mark.jvm
ACC_STATIC = 0x0008


async def test_classes_methods_fields(agent_so, classes, lines):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        all_classes = (await jvm.request("ALL_CLASSES"))["classes"]
        by_sig = {c["signature"]: c for c in all_classes}
        target = by_sig["LTarget;"]
        assert target["ref_kind"] == L.RefKind.CLASS
        assert target["status"] & 0x4  # JVMTI_CLASS_STATUS_INITIALIZED
        assert by_sig["Ljava/lang/Runnable;"]["ref_kind"] == L.RefKind.INTERFACE
        assert by_sig["[I"]["ref_kind"] == L.RefKind.ARRAY
        # java.util.List<E> extends Collection<E> (SequencedCollection<E> from 21 on).
        assert by_sig["Ljava/util/List;"]["generic"].startswith("<E:Ljava/lang/Object;>Ljava/lang/Object;Ljava/util/")
        ref = target["ref"]
        assert await jvm.request("CLASS_SIGNATURE", ref=ref) == {"ref_kind": 1, "signature": "LTarget;", "generic": ""}
        assert (await jvm.request("CLASS_MODIFIERS", ref=ref))["modifiers"] & 0x0001  # public
        assert (await jvm.request("CLASS_SOURCE_FILE", ref=ref))["source_file"] == "Target.java"
        sup = (await jvm.request("CLASS_SUPERCLASS", ref=ref))["superclass"]
        assert (await jvm.request("CLASS_SIGNATURE", ref=sup))["signature"] == "Ljava/lang/Object;"
        assert (await jvm.request("CLASS_SUPERCLASS", ref=sup))["superclass"] == 0
        assert (await jvm.request("CLASS_INTERFACES", ref=ref))["interfaces"] == []
        loader = (await jvm.request("CLASS_LOADER", ref=ref))["loader"]
        assert loader != 0
        assert (await jvm.request("OBJECT_TYPE", object=loader))["kind"] == L.ObjectKind.CLASS_LOADER
        assert (await jvm.request("CLASS_LOADER", ref=sup))["loader"] == 0  # bootstrap
        assert (await jvm.request("CLASS_VERSION", ref=ref))["major"] >= 61
        # The same class always has the same id.
        assert (await jvm.request("METHOD_DECLARING_CLASS",
                                  method=(await jvm.method(ref, "add"))["method"]))["ref"] == ref

        fields = {f["name"]: f for f in (await jvm.request("CLASS_FIELDS", ref=ref))["fields"]}
        assert list(fields) == ["counter", "greeting", "value", "big", "ratio", "name", "numbers", "words",
                                "seqs"]
        assert fields["counter"]["signature"] == "I" and fields["counter"]["modifiers"] & ACC_STATIC
        assert fields["words"]["signature"] == "[Ljava/lang/String;"
        statics = await jvm.request("CLASS_GET_STATICS", ref=ref, fields=[
            {"field": fields["counter"]["field"], "tag": ord("I")},
            {"field": fields["greeting"]["field"], "tag": ord("L")}])
        counter, greeting = statics["values"]
        assert counter["value"] == L.LinkValue(ord("I"), 7)
        assert greeting["value"].tag == ord("s")
        assert (await jvm.request("STRING_VALUE", string=greeting["value"].value))["utf"] == "hello"
        with pytest.raises(AgentError) as e:  # a static read as an instance field of a String: refused
            await jvm.request("OBJECT_GET_FIELDS", object=greeting["value"].value,
                              fields=[{"field": fields["value"]["field"], "tag": ord("I")}])
        assert e.value.status == L.LinkStatus.INVALID_FIELD

        methods = {m["name"]: m for m in (await jvm.request("CLASS_METHODS", ref=ref))["methods"]}
        assert {"<init>", "add", "twice", "fail", "run", "catcher", "main"} <= set(methods)
        assert methods["add"]["signature"] == "(II)I"
        assert methods["twice"]["modifiers"] & ACC_STATIC
        table = await jvm.request("METHOD_LINE_TABLE", method=methods["add"]["method"])
        assert [e["line"] for e in table["lines"]] == [lines["ADD_1"], lines["ADD_2"]]
        assert table["start"] == 0 and table["end"] > 0
        variables = await jvm.request("METHOD_VARIABLE_TABLE", method=methods["add"]["method"])
        assert variables["arg_slots"] == 3
        assert {(v["name"], v["signature"], v["slot"]) for v in variables["variables"]} == {
            ("this", "LTarget;", 0), ("a", "I", 1), ("b", "I", 2), ("sum", "I", 3)}
        code = (await jvm.request("METHOD_BYTECODES", method=methods["twice"]["method"]))["bytecodes"]
        assert code == bytes([0x1A, 0x05, 0x68, 0xAC])  # iload_0 iconst_2 imul ireturn
        assert (await jvm.request("METHOD_IS_OBSOLETE", method=methods["add"]["method"]))["obsolete"] is False
        # Stable ids: asking again hands out the same method and field ids.
        again = {m["name"]: m["method"] for m in (await jvm.request("CLASS_METHODS", ref=ref))["methods"]}
        assert again["add"] == methods["add"]["method"]
        await jvm.send("exit")
        await jvm.expect("bye")


async def test_threads_groups_and_suspension(agent_so, classes):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        threads = (await jvm.request("ALL_THREADS"))["threads"]
        names = {(await jvm.request("THREAD_INFO", thread=t["thread"]))["name"] for t in threads}
        assert "main" in names
        assert not any(n.startswith("jdwpd") for n in names)  # the agent's own threads are hidden
        main = await jvm.thread_named("main")
        info = await jvm.request("THREAD_INFO", thread=main)
        assert info["daemon"] is False and info["priority"] == 5
        group = await jvm.request("GROUP_INFO", group=info["group"])
        assert group["name"] == "main"
        top = (await jvm.request("TOP_THREAD_GROUPS"))["groups"]
        assert [(await jvm.request("GROUP_INFO", group=g["group"]))["name"] for g in top] == ["system"]
        assert group["parent"] == top[0]["group"]
        children = await jvm.request("GROUP_CHILDREN", group=info["group"])
        assert main in [t["thread"] for t in children["threads"]]
        sys_children = await jvm.request("GROUP_CHILDREN", group=top[0]["group"])
        for t in sys_children["threads"]:
            assert not (await jvm.request("THREAD_INFO", thread=t["thread"]))["name"].startswith("jdwpd")

        # Frames need a suspended thread.
        with pytest.raises(AgentError) as e:
            await jvm.request("THREAD_FRAMES", thread=main, start=0, length=-1)
        assert e.value.status == L.LinkStatus.NOT_SUSPENDED
        status = await jvm.request("THREAD_STATUS", thread=main)
        assert status["suspend_count"] == 0 and status["state"] & 0x1  # alive

        await jvm.request("THREAD_SUSPEND", thread=main)
        await jvm.request("THREAD_SUSPEND", thread=main)
        status = await jvm.request("THREAD_STATUS", thread=main)
        assert status["suspend_count"] == 2 and status["state"] & 0x100000 and status["at_event"] is False
        frames = (await jvm.request("THREAD_FRAMES", thread=main, start=0, length=-1))["frames"]
        count = (await jvm.request("THREAD_FRAME_COUNT", thread=main))["count"]
        assert len(frames) == count > 1
        target = await jvm.class_id("LTarget;")
        assert frames[-1]["ref"] == target
        main_method = await jvm.method(target, "main")
        assert frames[-1]["method"] == main_method["method"]
        assert (await jvm.request("THREAD_FRAMES", thread=main, start=count - 1, length=1))["frames"] == frames[-1:]
        with pytest.raises(AgentError):
            await jvm.request("THREAD_FRAMES", thread=main, start=count + 1, length=1)
        # main's locals: args (slot 0) is a String[], t (slot 1) a Target
        depth = count - 1
        values = (await jvm.request("FRAME_GET_LOCALS", thread=main, depth=depth,
                                    slots=[{"slot": 0, "tag": ord("[")}, {"slot": 1, "tag": ord("L")}]))["values"]
        args, t = (v["value"] for v in values)
        assert args.tag == ord("[") and (await jvm.request("ARRAY_LENGTH", array=args.value))["length"] == 0
        assert (await jvm.request("OBJECT_TYPE", object=t.value))["ref"] == target
        assert (await jvm.request("FRAME_THIS", thread=main, depth=depth))["object"].object == 0  # static main

        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.send("run 1")
        with pytest.raises(trio.TooSlowError):  # still suspended once: the command is not processed
            await jvm.expect("ok run", timeout=0.5)
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.expect("ok run")
        assert (await jvm.request("THREAD_STATUS", thread=main))["suspend_count"] == 0

        await jvm.request("SUSPEND_ALL")
        await jvm.send("run 1")
        assert (await jvm.request("THREAD_STATUS", thread=main))["suspend_count"] == 1
        await jvm.request("RESUME_ALL")
        await jvm.expect("ok run")
        await jvm.send("exit")
        await jvm.expect("bye")


async def test_objects_strings_arrays(agent_so, classes):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        main = await jvm.thread_named("main")
        await jvm.request("THREAD_SUSPEND", thread=main)
        count = (await jvm.request("THREAD_FRAME_COUNT", thread=main))["count"]
        t = (await jvm.request("FRAME_GET_LOCALS", thread=main, depth=count - 1,
                               slots=[{"slot": 1, "tag": ord("L")}]))["values"][0]["value"].value
        target = await jvm.class_id("LTarget;")
        fields = {f["name"]: f["field"] for f in (await jvm.request("CLASS_FIELDS", ref=target))["fields"]}
        asked = [("value", "I"), ("big", "J"), ("ratio", "D"), ("name", "L"), ("numbers", "["), ("words", "[")]
        values = (await jvm.request("OBJECT_GET_FIELDS", object=t, fields=[
            {"field": fields[n], "tag": ord(tag)} for n, tag in asked]))["values"]
        got = [v["value"] for v in values]
        assert got[0] == L.LinkValue(ord("I"), 42)
        assert got[1] == L.LinkValue(ord("J"), 1 << 40)
        assert got[2] == L.LinkValue(ord("D"), 2.5)
        assert got[3].tag == ord("s")
        assert (await jvm.request("STRING_VALUE", string=got[3].value))["utf"] == "target"
        numbers, words = got[4].value, got[5].value
        assert (await jvm.request("ARRAY_LENGTH", array=numbers))["length"] == 3
        region = await jvm.request("ARRAY_GET", array=numbers, first=1, length=2)
        assert region["tag"] == ord("I") and [v["value"].value for v in region["values"]] == [2, 3]
        region = await jvm.request("ARRAY_GET", array=words, first=0, length=2)
        assert region["tag"] == ord("L")
        assert [(await jvm.request("STRING_VALUE", string=v["value"].value))["utf"] for v in region["values"]] == \
            ["a", "b"]
        with pytest.raises(AgentError):
            await jvm.request("ARRAY_GET", array=numbers, first=2, length=5)
        # Setters, then read back.
        await jvm.request("OBJECT_SET_FIELDS", object=t, values=[
            {"field": fields["value"], "value": L.LinkValue(ord("I"), -5)}])
        await jvm.request("ARRAY_SET", array=numbers, first=0, values=[{"value": L.LinkValue(ord("I"), 9)}])
        with pytest.raises(AgentError) as e:  # an int into a long field: refused, nothing written
            await jvm.request("OBJECT_SET_FIELDS", object=t, values=[
                {"field": fields["big"], "value": L.LinkValue(ord("I"), 1)}])
        assert e.value.status == 34  # TYPE_MISMATCH
        # Objects of the wrong type are refused before JNI (which would store them unchecked).
        for field, value in (("numbers", got[3]), ("name", got[4]), ("words", got[4]), ("numbers", got[5])):
            with pytest.raises(AgentError) as e:
                await jvm.request("OBJECT_SET_FIELDS", object=t, values=[{"field": fields[field], "value": value}])
            assert e.value.status == 34, field
        # Arrays are covariant for references only: a String[] is a CharSequence[], an int[] is not.
        await jvm.request("OBJECT_SET_FIELDS", object=t, values=[{"field": fields["seqs"], "value": got[5]}])
        with pytest.raises(AgentError) as e:
            await jvm.request("OBJECT_SET_FIELDS", object=t, values=[{"field": fields["seqs"], "value": got[4]}])
        assert e.value.status == 34
        with pytest.raises(AgentError) as e:
            await jvm.request("CLASS_SET_STATICS", ref=target, values=[
                {"field": fields["greeting"], "value": L.LinkValue(ord("L"), t)}])
        assert e.value.status == 34
        await jvm.request("CLASS_SET_STATICS", ref=target, values=[{"field": fields["greeting"], "value": got[3]}])
        values = (await jvm.request("OBJECT_GET_FIELDS", object=t, fields=[
            {"field": fields["value"], "tag": ord("I")}, {"field": fields["big"], "tag": ord("J")}]))["values"]
        assert [v["value"].value for v in values] == [-5, 1 << 40]
        assert (await jvm.request("ARRAY_GET", array=numbers, first=0, length=1))["values"][0]["value"].value == 9
        # Strings created by the daemon, and object identity.
        s = (await jvm.request("CREATE_STRING", utf="héllo \U0001F600"))["string"]
        assert (await jvm.request("OBJECT_TYPE", object=s))["kind"] == L.ObjectKind.STRING
        # The link carries standard UTF-8 both ways (the JVM's modified UTF-8 is converted).
        assert (await jvm.request("STRING_VALUE", string=s))["utf"] == "héllo \U0001F600"
        nul = (await jvm.request("CREATE_STRING", utf="a\x00b"))["string"]
        assert (await jvm.request("STRING_VALUE", string=nul))["utf"] == "a\x00b"
        again = (await jvm.request("OBJECT_GET_FIELDS", object=t, fields=[
            {"field": fields["numbers"], "tag": ord("[")}]))["values"][0]["value"].value
        assert again == numbers
        # Pins keep an object; released ids are forgotten.
        await jvm.request("OBJECT_PIN", object=s)
        await jvm.request("GC")
        assert (await jvm.request("OBJECT_IS_COLLECTED", object=s))["collected"] is False
        await jvm.request("OBJECT_UNPIN", object=s)
        await jvm.request("GC")
        assert (await jvm.request("OBJECT_IS_COLLECTED", object=s))["collected"] is True
        with pytest.raises(AgentError) as e:
            await jvm.request("STRING_VALUE", string=s)
        assert e.value.status == L.LinkStatus.COLLECTED
        await jvm.request("RELEASE_IDS", ids=[{"id": s}])
        with pytest.raises(AgentError) as e:
            await jvm.request("STRING_VALUE", string=s)
        assert e.value.status == L.LinkStatus.INVALID_ID
        # Heap queries.
        assert (await jvm.request("INSTANCE_COUNTS", refs=[{"ref": target}]))["counts"] == [{"count": 1}]
        inst = (await jvm.request("CLASS_INSTANCES", ref=target, max=0))["instances"]
        assert [i["object"].object for i in inst] == [t]
        referrers = (await jvm.request("OBJECT_REFERRERS", object=numbers, max=0))["referrers"]
        assert t in [r["object"].object for r in referrers]
        arr_type = await jvm.class_id("[I")
        new = (await jvm.request("ARRAY_NEW", ref=arr_type, length=4))["array"]
        assert new.kind == L.ObjectKind.ARRAY
        assert (await jvm.request("ARRAY_LENGTH", array=new.object))["length"] == 4
        stats = {c["name"]: c["value"] for c in (await jvm.request("AGENT_STATS"))["counters"]}
        assert stats["ids"] > 0 and stats["pins"] == 0
        await jvm.request("THREAD_RESUME", thread=main)
        await jvm.send("exit")
        await jvm.expect("bye")


async def test_ids_are_strong_while_every_thread_is_suspended(agent_so, classes):
    """As the reference (commonRef pinAll): a suspended VM's objects do not vanish under the debugger."""
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        before = (await jvm.request("CREATE_STRING", utf="made before"))["string"]
        await jvm.request("SUSPEND_ALL")
        during = (await jvm.request("CREATE_STRING", utf="made during"))["string"]
        await jvm.request("GC")
        for s in (before, during):
            assert (await jvm.request("OBJECT_IS_COLLECTED", object=s))["collected"] is False
        await jvm.request("SUSPEND_ALL")
        await jvm.request("RESUME_ALL")  # still suspended once: still strong
        await jvm.request("GC")
        assert (await jvm.request("OBJECT_IS_COLLECTED", object=during))["collected"] is False
        await jvm.request("OBJECT_PIN", object=during)
        await jvm.request("RESUME_ALL")
        await jvm.request("GC")
        assert (await jvm.request("OBJECT_IS_COLLECTED", object=before))["collected"] is True
        assert (await jvm.request("OBJECT_IS_COLLECTED", object=during))["collected"] is False  # pinned
        await jvm.request("OBJECT_UNPIN", object=during)
        await jvm.request("GC")
        assert (await jvm.request("OBJECT_IS_COLLECTED", object=during))["collected"] is True


async def test_modules(agent_so, classes):
    async with run_jvm(agent_so, classes) as jvm:
        await jvm.expect("ready")
        modules = [m["module"] for m in (await jvm.request("ALL_MODULES"))["modules"]]
        names = {(await jvm.request("MODULE_INFO", module=m))["name"] for m in modules}
        assert {"java.base", ""} <= names  # "" is the unnamed module of the class path
        string = await jvm.class_id("Ljava/lang/String;")
        base = (await jvm.request("CLASS_MODULE", ref=string))["module"]
        info = await jvm.request("MODULE_INFO", module=base)
        assert info == {"name": "java.base", "loader": 0}
        target = await jvm.class_id("LTarget;")
        unnamed = (await jvm.request("CLASS_MODULE", ref=target))["module"]
        assert unnamed in modules
        assert (await jvm.request("MODULE_INFO", module=unnamed))["loader"] == \
            (await jvm.request("CLASS_LOADER", ref=target))["loader"]
