"""Deliberate differences: requests that crash the reference's VM (or get an answer read from the wrong
object), which jdwpd answers with an error instead.

Each is proven twice by test_conformance_differences: on the reference (the VM dies, or the answer is
a success where there is nothing to answer) and on jdwpd (the error code below, and the VM still
answers afterwards).  JDI never sends these; hand-written and fuzzing clients do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from protocol.constants import ErrorCode, EventKind, InvokeOptions, ModKind, SuspendPolicy, Tag

BAD = 0x7EADBEEF

CRASH = "crash"  # the reference's VM dies (SIGSEGV or a JNI FatalError)
GARBAGE = "garbage"  # the reference answers success, with what JNI made of the wrong object
EITHER = "crash or garbage"  # varies from run to run (a wild pointer), or from one JDK to the next


@attrs.frozen
class Difference:
    item: str  # "Set.Command"
    case: str  # what is wrong with the request
    reference: str  # CRASH, GARBAGE or EITHER
    jdwpd_code: int
    fields: Callable[[dict], dict]  # the command's fields, from the context (see context())

    @property
    def set_name(self) -> str:
        return self.item.split(".")[0]

    @property
    def cmd_name(self) -> str:
        return self.item.split(".")[1]


def _invoke(ctx: dict) -> dict:
    return {"thread": ctx["thread"], "options": InvokeOptions.INVOKE_SINGLE_THREADED}


DIFFERENCES: tuple[Difference, ...] = (
    Difference("ClassObjectReference.ReflectedType", "a string as the class object", CRASH,
               ErrorCode.INVALID_CLASS, lambda c: {"class_object": c["string"]}),
    Difference("StringReference.Value", "the null string", CRASH, ErrorCode.INVALID_OBJECT,
               lambda c: {"string_object": 0}),
    Difference("ObjectReference.ReferenceType", "the null object", CRASH, ErrorCode.INVALID_OBJECT,
               lambda c: {"object": 0}),
    # jdwpd answers the static's value.
    Difference("ObjectReference.GetValues", "a static field", EITHER, 0,
               lambda c: {"object": c["object"], "fields": [{"field_id": c["fields"]["sInt"]}]}),
    Difference("ReferenceType.Status", "the null class", CRASH, ErrorCode.INVALID_CLASS,
               lambda c: {"ref_type": 0}),
    Difference("ReferenceType.GetValues", "an instance field", CRASH, ErrorCode.INVALID_FIELDID,
               lambda c: {"ref_type": c["sample"], "fields": [{"field_id": c["fields"]["fInt"]}]}),
    # jdwpd stops at the unknown field and answers success, as the reference does when it survives.
    Difference("ClassType.SetValues", "an unknown field id", EITHER, 0,
               lambda c: {"clazz": c["sample"], "values": [{"field_id": BAD, "value": (Tag.INT, 1)}]}),
    Difference("ClassType.SetValues", "a String into an int[] static", GARBAGE, ErrorCode.TYPE_MISMATCH,
               lambda c: {"clazz": c["sample"],
                          "values": [{"field_id": c["fields"]["sInts"], "value": (Tag.STRING, c["string"])}]}),
    Difference("ClassType.InvokeMethod", "an argument missing", CRASH, ErrorCode.ILLEGAL_ARGUMENT,
               lambda c: {"clazz": c["sample"], "method_id": c["methods"]["factorial"], "arguments": [],
                          **_invoke(c)}),
    Difference("ClassType.InvokeMethod", "a long for an int", GARBAGE, ErrorCode.TYPE_MISMATCH,
               lambda c: {"clazz": c["sample"], "method_id": c["methods"]["factorial"],
                          "arguments": [(Tag.LONG, 5)], **_invoke(c)}),
    Difference("ObjectReference.InvokeMethod", "an argument missing", CRASH, ErrorCode.ILLEGAL_ARGUMENT,
               lambda c: {"object": c["object"], "clazz": c["sample"], "method_id": c["methods"]["compute"],
                          "arguments": [], **_invoke(c)}),
    Difference("ObjectReference.InvokeMethod", "a method of another class", CRASH, ErrorCode.ILLEGAL_ARGUMENT,
               lambda c: {"object": c["object"], "clazz": c["sample"], "method_id": c["circle_area"],
                          "arguments": [], **_invoke(c)}),
    Difference("ObjectReference.SetValues", "a String into a Shape field", GARBAGE, ErrorCode.TYPE_MISMATCH,
               lambda c: {"object": c["object"],
                          "values": [{"field_id": c["fields"]["fShape"], "value": (Tag.STRING, c["string"])}]}),
    Difference("Method.IsObsolete", "an unknown method id", CRASH, ErrorCode.INVALID_METHODID,
               lambda c: {"ref_type": c["sample"], "method_id": BAD}),
    Difference("ThreadGroupReference.Name", "the null group", CRASH, ErrorCode.INVALID_OBJECT,
               lambda c: {"group": 0}),
    Difference("ThreadReference.Stop", "a string as the throwable", GARBAGE, ErrorCode.INVALID_OBJECT,
               lambda c: {"thread": c["thread"], "throwable": c["string"]}),
    Difference("VirtualMachine.DisposeObjects", "an ID disposed more times than it was sent", CRASH, 0,
               lambda c: {"requests": [(c["created"], 5)]}),
    Difference("ArrayReference.Length", "the null array", CRASH, ErrorCode.INVALID_OBJECT,
               lambda c: {"array_object": 0}),
    Difference("ArrayType.NewInstance", "a class that is no array type", GARBAGE, ErrorCode.TYPE_MISMATCH,
               lambda c: {"arr_type": c["sample"], "length": 1}),
    Difference("ModuleReference.Name", "a string as the module", GARBAGE, ErrorCode.INVALID_MODULE,
               lambda c: {"module": c["string"]}),
    Difference("ModuleReference.ClassLoader", "a string as the module", EITHER, ErrorCode.INVALID_MODULE,
               lambda c: {"module": c["string"]}),
    # jdwpd answers as the reference on 17: the name "" and the null loader.
    Difference("ModuleReference.Name", "the null module", EITHER, 0, lambda c: {"module": 0}),
    Difference("EventRequest.Set", "a breakpoint in an unknown method", CRASH, ErrorCode.INVALID_METHODID,
               lambda c: {"event_kind": EventKind.BREAKPOINT, "suspend_policy": SuspendPolicy.NONE,
                          "modifiers": [{"mod_kind": ModKind.LOCATION_ONLY,
                                         "loc": {"type_tag": 1, "class_id": c["sample"], "method_id": BAD,
                                                 "index": 0}}]}),
    Difference("EventRequest.Set", "ThreadOnly with the null thread", CRASH, ErrorCode.INVALID_THREAD,
               lambda c: {"event_kind": EventKind.THREAD_START, "suspend_policy": SuspendPolicy.NONE,
                          "modifiers": [{"mod_kind": ModKind.THREAD_ONLY, "thread": 0}]}),
)


async def context(t: Any) -> dict:
    """Stopped at Sample's TOTAL_AREA_LOOP: the ids the differences are built from."""
    sample = await t.start("Sample")
    bp = await t.run_to(sample, "TOTAL_AREA_LOOP")
    fields = {n: f.field_id for n, f in (await t.fields(sample)).items()}
    methods = {n: m.method_id for n, m in (await t.methods(sample)).items()}
    string = (await t.client.command("ReferenceType", "GetValues", ref_type=sample,
                                     fields=[{"field_id": fields["sAscii"]}])).values[0].value.value
    obj = (await t.client.command("ReferenceType", "Instances", ref_type=sample, max_instances=1)
           ).instances[0].instance.object_id
    circle = await t.class_id("LSample$Circle;")
    created = (await t.client.command("VirtualMachine", "CreateString", utf="made")).string_object
    return {"created": created, "sample": sample, "thread": bp.thread, "fields": fields, "methods": methods,
            "string": string, "object": obj, "circle_area": (await t.methods(circle))["area"].method_id}
