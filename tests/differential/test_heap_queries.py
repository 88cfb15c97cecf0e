"""Heap queries as the reference answers them (issue 22, item 3).

(a) InstanceCounts after the instances of a class became unreachable and its class was unloaded
with its loader: the reference counts 0; jdwpd answered an error (JDI: ObjectCollectedException)
because the class id it had checked was collected by the time of the walk.
(b) ReferringObjects of class loaders, of a class object and of an ordinary object: the same
referrers as the reference's (class -> loader, loader -> parent, protection domains, static fields,
constant pools, ...), described by their types.  Raw client, reference and jdwpd.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, Tag

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "heap_java"
TIMEOUT = 30


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(SOURCES)


async def stop_at(c, class_id: int, method: str, marker: str) -> None:
    await c.break_once(class_id, method, debuggees.marker_line(SOURCES / "Heap.java", marker))


async def describe(c, tag: int, obj: int) -> str:
    if tag == Tag.CLASS_OBJECT:
        r = await c.command("ClassObjectReference", "ReflectedType", class_object=obj)
        return "class " + (await c.command("ReferenceType", "Signature", ref_type=r.type_id)).signature
    r = await c.command("ObjectReference", "ReferenceType", object=obj)
    return (await c.command("ReferenceType", "Signature", ref_type=r.type_id)).signature


async def referrers(c, obj: int) -> list[str]:
    code, r = await c.command_raw("ObjectReference", "ReferringObjects", object=obj, max_referrers=0)
    if code:
        return [f"error {code}"]
    return sorted([await describe(c, i.instance.tag, i.instance.object_id) for i in r.referring_objects])


async def static_value(c, class_id: int, name: str):
    fields = (await c.command("ReferenceType", "Fields", ref_type=class_id)).declared
    field = next(f.field_id for f in fields if f.name == name)
    return (await c.command("ReferenceType", "GetValues", ref_type=class_id, fields=[field])).values[0].value.value


async def class_of(c, signature: str) -> int:
    return (await c.command("VirtualMachine", "ClassesBySignature", signature=signature)).classes[0].type_id


async def heap_queries(kind: str, classes: Path) -> dict:
    facts: dict = {}
    async with jvm.open_jvm(kind, classes, "Heap") as vm:
        try:
            async with open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
                await c.wait_for_event(EventKind.VM_START, TIMEOUT)
                ev = await c.run_to_prepare("Heap", TIMEOUT)
                heap = ev.type_id
                await stop_at(c, heap, "made", "MADE")
                await stop_at(c, heap, "dropped", "DROPPED")
                await c.command("VirtualMachine", "Resume")
                await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
                loaded, item = await class_of(c, "LLoaded;"), await class_of(c, "LHeap$Item;")
                facts["counts at MADE"] = [x.instance_count for x in (await c.command(
                    "VirtualMachine", "InstanceCounts", ref_types_count=[loaded, item])).counts]
                own_loader = await static_value(c, heap, "loader")
                app_loader = (await c.command("ReferenceType", "ClassLoader", ref_type=heap)).class_loader
                loaded_class = (await c.command("ReferenceType", "ClassObject", ref_type=loaded)).class_object
                one = await static_value(c, heap, "one")
                facts["referrers of its own loader"] = await referrers(c, own_loader)
                # Less the threads (their context class loader): each server has threads of its own.
                facts["referrers of the app loader"] = [r for r in await referrers(c, app_loader)
                                                        if r != "Ljava/lang/Thread;"]
                facts["referrers of class Loaded"] = await referrers(c, loaded_class)
                facts["referrers of an Item"] = await referrers(c, one)
                await c.command("VirtualMachine", "Resume")
                await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
                code, r = await c.command_raw("VirtualMachine", "InstanceCounts", ref_types_count=[loaded, item])
                facts["counts at DROPPED"] = code or [x.instance_count for x in r.counts]
                await c.command("VirtualMachine", "Resume")
                await c.wait_for_event(EventKind.VM_DEATH, TIMEOUT)
            facts["exit"] = await vm.wait_exit(TIMEOUT)
        except BaseException as e:
            e.add_note(f"debuggee ({kind}) output:\n{vm.output.describe()}")
            raise
    return facts


async def test_heap_queries_answer_as_the_reference(classes):
    reference = await heap_queries("reference", classes)
    assert reference["counts at MADE"] == [5, 4]
    assert reference["counts at DROPPED"] == [0, 0]
    assert reference["exit"] == 0
    jdwpd = await heap_queries("jdwpd", classes)
    assert jdwpd == reference
