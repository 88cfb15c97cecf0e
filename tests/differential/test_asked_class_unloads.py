"""A class whose methods and fields a debugger asked about still unloads, as with the reference
(issue 22: no deliberate difference may cost the debugged program memory).

The program loads Plugin through a class loader of its own and stops; the debugger asks for
Plugin's methods, fields, line and variable tables, static and instance values, sets a breakpoint
in it and a watch on one of its fields, and clears both (a ClassUnload request stays).  The program
drops the loader and runs GCs until a WeakReference to the loader clears, and says whether it did.
With the reference the class unloads (ClassUnload event, gone from ClassesBySignature, the loader
collected); jdwpd's agent held the declaring class of every method and field id it handed out with
a global reference, so Plugin and its loader could never unload.  Then the ids the debugger still
holds are used again: the answers must be the reference's.  Raw client, reference and jdwpd.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from jdwpd.testing import debuggees, jvm
from jdwpd.testing.client import open_jdwp_client
from protocol.constants import EventKind, ModKind, SuspendPolicy, TypeTag

pytestmark = pytest.mark.jvm

SOURCES = Path(__file__).resolve().parent / "unload_java"
TIMEOUT = 30
ANSWERED_BY_THE_REFERENCE = frozenset({"Method.IsObsolete"})
NOT_ANSWERED_BY_THE_REFERENCE = frozenset({
    "Method.LineTable", "Method.VariableTable", "ReferenceType.GetValues", "ObjectReference.GetValues",
    "EventRequest.Set breakpoint", "EventRequest.Set field watch"})


@pytest.fixture(scope="module")
def classes() -> Path:
    return debuggees.compile_sources(SOURCES)


async def stop_at(c, class_id: int, method: str, marker: str) -> None:
    await c.break_once(class_id, method, debuggees.marker_line(SOURCES / "Unload.java", marker))


async def class_of(c, signature: str) -> list[int]:
    return [k.type_id for k in (await c.command("VirtualMachine", "ClassesBySignature", signature=signature)).classes]


def answer(code, reply, what):
    return code or what(reply)


async def program_says(vm) -> list[str]:
    """The program's verdict on its loader, printed just before the stop at DROPPED."""
    with trio.move_on_after(TIMEOUT):
        while not (said := [ln.strip() for ln in vm.output.lines("stdout") if ln.startswith("loader collected")]):
            await trio.sleep(0.05)
    return said


async def ask(c, facts: dict, plugin: int, ids: dict) -> None:
    """The questions asked of Plugin, with the ids the debugger was given while it was loaded."""
    work, calls, total = ids["work"], ids["calls"], ids["total"]
    code, r = await c.command_raw("ReferenceType", "Signature", ref_type=plugin)
    facts["ReferenceType.Signature"] = answer(code, r, lambda r: r.signature)
    code, r = await c.command_raw("ReferenceType", "Methods", ref_type=plugin)
    facts["ReferenceType.Methods"] = answer(code, r, lambda r: sorted(m.name for m in r.declared))
    code, r = await c.command_raw("ReferenceType", "Fields", ref_type=plugin)
    facts["ReferenceType.Fields"] = answer(code, r, lambda r: sorted(f.name for f in r.declared))
    code, r = await c.command_raw("Method", "LineTable", ref_type=plugin, method_id=work)
    facts["Method.LineTable"] = answer(code, r, lambda r: sorted({x.line_number for x in r.lines}))
    code, r = await c.command_raw("Method", "VariableTable", ref_type=plugin, method_id=work)
    facts["Method.VariableTable"] = answer(code, r, lambda r: sorted(s.name for s in r.slots))
    code, r = await c.command_raw("ReferenceType", "GetValues", ref_type=plugin, fields=[calls])
    facts["ReferenceType.GetValues"] = answer(code, r, lambda r: [v.value.value for v in r.values])
    code, r = await c.command_raw("ObjectReference", "GetValues", object=ids["plugin object"], fields=[total])
    facts["ObjectReference.GetValues"] = answer(code, r, lambda r: [v.value.value for v in r.values])
    loc = {"type_tag": TypeTag.CLASS, "class_id": plugin, "method_id": work, "index": ids["work index"]}
    code, r = await c.command_raw("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                  suspend_policy=SuspendPolicy.ALL,
                                  modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}])
    facts["EventRequest.Set breakpoint"] = code
    if not code:
        await c.command("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=r.request_id)
    code, r = await c.command_raw("EventRequest", "Set", event_kind=EventKind.FIELD_MODIFICATION,
                                  suspend_policy=SuspendPolicy.ALL,
                                  modifiers=[{"mod_kind": ModKind.FIELD_ONLY, "declaring": plugin, "field_id": calls}])
    facts["EventRequest.Set field watch"] = code
    if not code:
        await c.command("EventRequest", "Clear", event_kind=EventKind.FIELD_MODIFICATION, request_id=r.request_id)


async def ask_with_a_live_class(c, facts: dict, unload: int, ids: dict, probes: frozenset[str]) -> None:
    """Plugin's method and field ids (after the unload) with a class that is alive (Unload) and a live
    object.  The reference answers IsObsolete (true: HotSpot calls a freed method obsolete) and dies on
    the others (a JDWP exit error on INVALID_METHODID for the tables, SIGSEGV on the freed static
    jfieldID and on the breakpoint; ObjectReference.GetValues reads garbage at the field's offset)."""
    work, calls, total = ids["work"], ids["calls"], ids["total"]
    if "Method.IsObsolete" in probes:
        code, r = await c.command_raw("Method", "IsObsolete", ref_type=unload, method_id=work)
        facts["Method.IsObsolete"] = answer(code, r, lambda r: r.is_obsolete)
    if "Method.LineTable" in probes:
        code, r = await c.command_raw("Method", "LineTable", ref_type=unload, method_id=work)
        facts["Method.LineTable"] = answer(code, r, lambda r: sorted({x.line_number for x in r.lines}))
    if "Method.VariableTable" in probes:
        code, r = await c.command_raw("Method", "VariableTable", ref_type=unload, method_id=work)
        facts["Method.VariableTable"] = answer(code, r, lambda r: sorted(s.name for s in r.slots))
    if "ReferenceType.GetValues" in probes:
        code, r = await c.command_raw("ReferenceType", "GetValues", ref_type=unload, fields=[calls])
        facts["ReferenceType.GetValues"] = answer(code, r, lambda r: [v.value.value for v in r.values])
    if "ObjectReference.GetValues" in probes:
        code, r = await c.command_raw("ObjectReference", "GetValues", object=ids["live object"], fields=[total])
        facts["ObjectReference.GetValues"] = answer(code, r, lambda r: [v.value.value for v in r.values])
    if "EventRequest.Set breakpoint" in probes:
        loc = {"type_tag": TypeTag.CLASS, "class_id": unload, "method_id": work, "index": ids["work index"]}
        code, r = await c.command_raw("EventRequest", "Set", event_kind=EventKind.BREAKPOINT,
                                      suspend_policy=SuspendPolicy.ALL,
                                      modifiers=[{"mod_kind": ModKind.LOCATION_ONLY, "loc": loc}])
        facts["EventRequest.Set breakpoint"] = code
        if not code:
            await c.command("EventRequest", "Clear", event_kind=EventKind.BREAKPOINT, request_id=r.request_id)
    if "EventRequest.Set field watch" in probes:
        code, r = await c.command_raw("EventRequest", "Set", event_kind=EventKind.FIELD_MODIFICATION,
                                      suspend_policy=SuspendPolicy.ALL,
                                      modifiers=[{"mod_kind": ModKind.FIELD_ONLY, "declaring": unload,
                                                  "field_id": calls}])
        facts["EventRequest.Set field watch"] = code
        if not code:
            await c.command("EventRequest", "Clear", event_kind=EventKind.FIELD_MODIFICATION,
                            request_id=r.request_id)


async def asked_class_unloads(kind: str, classes: Path, probes: frozenset[str], *, unload_request: bool = True) -> dict:
    facts: dict = {}
    async with jvm.open_jvm(kind, classes, "Unload") as vm:
        try:
            async with open_jdwp_client(vm.host, vm.port, timeout=TIMEOUT) as c:
                await c.wait_for_event(EventKind.VM_START, TIMEOUT)
                unload = (await c.run_to_prepare("Unload", TIMEOUT)).type_id
                await stop_at(c, unload, "loaded", "LOADED")
                await stop_at(c, unload, "dropped", "DROPPED")
                await c.command("VirtualMachine", "Resume")
                await c.wait_for_event(EventKind.BREAKPOINT, TIMEOUT)
                [plugin] = await class_of(c, "LPlugin;")
                methods = {m.name: m.method_id for m in
                           (await c.command("ReferenceType", "Methods", ref_type=plugin)).declared}
                fields = {f.name: f.field_id for f in
                          (await c.command("ReferenceType", "Fields", ref_type=plugin)).declared}
                unload_fields = {f.name: f.field_id for f in
                                 (await c.command("ReferenceType", "Fields", ref_type=unload)).declared}
                obj = (await c.command("ReferenceType", "GetValues", ref_type=unload,
                                       fields=[unload_fields["plugin"]])).values[0].value.value
                work_loc = await c.line_location(plugin, "work",
                                                 debuggees.marker_line(SOURCES / "Plugin.java", "WORK"))
                ids = {"work": methods["work"], "calls": fields["calls"], "total": fields["total"],
                       "plugin object": obj, "work index": work_loc["index"]}
                loaded: dict = {}
                await ask(c, loaded, plugin, ids)
                facts["while loaded"] = loaded
                if unload_request:
                    await c.command("EventRequest", "Set", event_kind=EventKind.CLASS_UNLOAD,
                                    suspend_policy=SuspendPolicy.NONE,
                                    modifiers=[{"mod_kind": ModKind.CLASS_MATCH, "class_pattern": "Plugin"}])
                await c.command("VirtualMachine", "Resume")
                unloaded = []
                while True:
                    _, events = await c.next_event(TIMEOUT)
                    unloaded += [e.signature for e in events if int(e.event_kind) == EventKind.CLASS_UNLOAD]
                    if any(int(e.event_kind) == EventKind.BREAKPOINT for e in events):
                        break
                facts["ClassUnload events"] = unloaded
                facts["program says"] = await program_says(vm)
                facts["ClassesBySignature"] = len(await class_of(c, "LPlugin;"))
                dropped: dict = {}
                await ask(c, dropped, plugin, ids)
                facts["after the unload"] = dropped
                ids["live object"] = (await c.command("ReferenceType", "GetValues", ref_type=unload,
                                                      fields=[unload_fields["live"]])).values[0].value.value
                live: dict = {}
                await ask_with_a_live_class(c, live, unload, ids, probes)
                facts["with a live class"] = live
                await c.command("VirtualMachine", "Resume")
                await c.wait_for_event(EventKind.VM_DEATH, TIMEOUT)
            facts["exit"] = await vm.wait_exit(TIMEOUT)
        except BaseException as e:
            e.add_note(f"debuggee ({kind}) output:\n{vm.output.describe()}")
            raise
    return facts


async def test_a_class_asked_about_unloads(classes):
    reference = await asked_class_unloads("reference", classes, ANSWERED_BY_THE_REFERENCE)
    assert reference["program says"] == ["loader collected: true"]
    assert reference["ClassUnload events"] == ["LPlugin;"]
    assert reference["ClassesBySignature"] == 0
    assert reference["exit"] == 0
    assert await asked_class_unloads("jdwpd", classes, ANSWERED_BY_THE_REFERENCE) == reference


async def test_a_class_asked_about_unloads_unwatched(classes):
    """The same without a ClassUnload request (JDI always sets one of its own; a raw client need not).
    The class unloads with jdwpd too; what differs is what its dead ids answer afterwards."""
    reference = await asked_class_unloads("reference", classes, ANSWERED_BY_THE_REFERENCE, unload_request=False)
    assert reference["program says"] == ["loader collected: true"]
    assert reference["ClassesBySignature"] == 0
    jdwpd = await asked_class_unloads("jdwpd", classes, ANSWERED_BY_THE_REFERENCE, unload_request=False)
    assert jdwpd["program says"] == ["loader collected: true"]
    assert jdwpd == reference


async def test_ids_of_an_unloaded_class_where_the_reference_dies(classes):
    """What the reference has no answer for (it dies): jdwpd answers the id invalid, and goes on."""
    facts = await asked_class_unloads("jdwpd", classes, ANSWERED_BY_THE_REFERENCE | NOT_ANSWERED_BY_THE_REFERENCE)
    assert facts["program says"] == ["loader collected: true"]
    assert facts["with a live class"] == {
        "Method.IsObsolete": True,
        "Method.LineTable": 23,  # INVALID_METHODID
        "Method.VariableTable": 23,
        "ReferenceType.GetValues": 25,  # INVALID_FIELDID
        "ObjectReference.GetValues": 25,
        "EventRequest.Set breakpoint": 23,
        "EventRequest.Set field watch": 25,
    }
    assert facts["exit"] == 0
