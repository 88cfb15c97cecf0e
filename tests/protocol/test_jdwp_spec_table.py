"""The command table against a list written by hand from jdwp.spec, and its naming rules."""

from __future__ import annotations

import keyword

import pytest

from protocol import messages, spec
from protocol.constants import CommandSet
from protocol.spec import Field, Group, Repeat, Select

# (set id, set name, command id, command name), copied by hand from the spec's
# CommandSet/Command headers.  ObjectReference has no command 4.
EXPECTED = [
    (1, "VirtualMachine", 1, "Version"),
    (1, "VirtualMachine", 2, "ClassesBySignature"),
    (1, "VirtualMachine", 3, "AllClasses"),
    (1, "VirtualMachine", 4, "AllThreads"),
    (1, "VirtualMachine", 5, "TopLevelThreadGroups"),
    (1, "VirtualMachine", 6, "Dispose"),
    (1, "VirtualMachine", 7, "IDSizes"),
    (1, "VirtualMachine", 8, "Suspend"),
    (1, "VirtualMachine", 9, "Resume"),
    (1, "VirtualMachine", 10, "Exit"),
    (1, "VirtualMachine", 11, "CreateString"),
    (1, "VirtualMachine", 12, "Capabilities"),
    (1, "VirtualMachine", 13, "ClassPaths"),
    (1, "VirtualMachine", 14, "DisposeObjects"),
    (1, "VirtualMachine", 15, "HoldEvents"),
    (1, "VirtualMachine", 16, "ReleaseEvents"),
    (1, "VirtualMachine", 17, "CapabilitiesNew"),
    (1, "VirtualMachine", 18, "RedefineClasses"),
    (1, "VirtualMachine", 19, "SetDefaultStratum"),
    (1, "VirtualMachine", 20, "AllClassesWithGeneric"),
    (1, "VirtualMachine", 21, "InstanceCounts"),
    (1, "VirtualMachine", 22, "AllModules"),
    (2, "ReferenceType", 1, "Signature"),
    (2, "ReferenceType", 2, "ClassLoader"),
    (2, "ReferenceType", 3, "Modifiers"),
    (2, "ReferenceType", 4, "Fields"),
    (2, "ReferenceType", 5, "Methods"),
    (2, "ReferenceType", 6, "GetValues"),
    (2, "ReferenceType", 7, "SourceFile"),
    (2, "ReferenceType", 8, "NestedTypes"),
    (2, "ReferenceType", 9, "Status"),
    (2, "ReferenceType", 10, "Interfaces"),
    (2, "ReferenceType", 11, "ClassObject"),
    (2, "ReferenceType", 12, "SourceDebugExtension"),
    (2, "ReferenceType", 13, "SignatureWithGeneric"),
    (2, "ReferenceType", 14, "FieldsWithGeneric"),
    (2, "ReferenceType", 15, "MethodsWithGeneric"),
    (2, "ReferenceType", 16, "Instances"),
    (2, "ReferenceType", 17, "ClassFileVersion"),
    (2, "ReferenceType", 18, "ConstantPool"),
    (2, "ReferenceType", 19, "Module"),
    (3, "ClassType", 1, "Superclass"),
    (3, "ClassType", 2, "SetValues"),
    (3, "ClassType", 3, "InvokeMethod"),
    (3, "ClassType", 4, "NewInstance"),
    (4, "ArrayType", 1, "NewInstance"),
    (5, "InterfaceType", 1, "InvokeMethod"),
    (6, "Method", 1, "LineTable"),
    (6, "Method", 2, "VariableTable"),
    (6, "Method", 3, "Bytecodes"),
    (6, "Method", 4, "IsObsolete"),
    (6, "Method", 5, "VariableTableWithGeneric"),
    (9, "ObjectReference", 1, "ReferenceType"),
    (9, "ObjectReference", 2, "GetValues"),
    (9, "ObjectReference", 3, "SetValues"),
    (9, "ObjectReference", 5, "MonitorInfo"),
    (9, "ObjectReference", 6, "InvokeMethod"),
    (9, "ObjectReference", 7, "DisableCollection"),
    (9, "ObjectReference", 8, "EnableCollection"),
    (9, "ObjectReference", 9, "IsCollected"),
    (9, "ObjectReference", 10, "ReferringObjects"),
    (10, "StringReference", 1, "Value"),
    (11, "ThreadReference", 1, "Name"),
    (11, "ThreadReference", 2, "Suspend"),
    (11, "ThreadReference", 3, "Resume"),
    (11, "ThreadReference", 4, "Status"),
    (11, "ThreadReference", 5, "ThreadGroup"),
    (11, "ThreadReference", 6, "Frames"),
    (11, "ThreadReference", 7, "FrameCount"),
    (11, "ThreadReference", 8, "OwnedMonitors"),
    (11, "ThreadReference", 9, "CurrentContendedMonitor"),
    (11, "ThreadReference", 10, "Stop"),
    (11, "ThreadReference", 11, "Interrupt"),
    (11, "ThreadReference", 12, "SuspendCount"),
    (11, "ThreadReference", 13, "OwnedMonitorsStackDepthInfo"),
    (11, "ThreadReference", 14, "ForceEarlyReturn"),
    (11, "ThreadReference", 15, "IsVirtual"),
    (12, "ThreadGroupReference", 1, "Name"),
    (12, "ThreadGroupReference", 2, "Parent"),
    (12, "ThreadGroupReference", 3, "Children"),
    (13, "ArrayReference", 1, "Length"),
    (13, "ArrayReference", 2, "GetValues"),
    (13, "ArrayReference", 3, "SetValues"),
    (14, "ClassLoaderReference", 1, "VisibleClasses"),
    (15, "EventRequest", 1, "Set"),
    (15, "EventRequest", 2, "Clear"),
    (15, "EventRequest", 3, "ClearAllBreakpoints"),
    (16, "StackFrame", 1, "GetValues"),
    (16, "StackFrame", 2, "SetValues"),
    (16, "StackFrame", 3, "ThisObject"),
    (16, "StackFrame", 4, "PopFrames"),
    (17, "ClassObjectReference", 1, "ReflectedType"),
    (18, "ModuleReference", 1, "Name"),
    (18, "ModuleReference", 2, "ClassLoader"),
    (64, "Event", 100, "Composite"),
    # jdwpd's vendor set (docs/extensions.md)
    (1, "VirtualMachine", 100, "JdwpdHello"),
    (128, "Jdwpd", 2, "CompileCondition"),
    (128, "Jdwpd", 3, "DefineCapture"),
    (128, "Jdwpd", 4, "DefineBudget"),
    (128, "Jdwpd", 5, "Forget"),
    (128, "Jdwpd", 6, "RequestStats"),
    (128, "Jdwpd", 7, "CompileExpression"),
    (128, "Jdwpd", 8, "DefineCatchFilter"),
    (128, "Jdwpd", 9, "PushStops"),
]


def test_table_matches_the_hand_written_list():
    assert len(EXPECTED) == 104
    actual = sorted((c.set_id, c.set_name, c.cmd_id, c.name) for c in spec.COMMANDS.values())
    assert actual == sorted(EXPECTED)


def test_all_18_command_sets_including_field():
    assert len(spec.COMMAND_SETS) == 19  # the specification's 18 and jdwpd's vendor set 128
    assert spec.COMMAND_SETS[8] == "Field"
    assert {int(s) for s in CommandSet} == set(spec.COMMAND_SETS)
    for s in CommandSet:
        camel = "".join(w.capitalize() for w in s.name.split("_"))
        assert spec.COMMAND_SETS[s] == camel


def test_lookup_and_by_name():
    assert spec.lookup(1, 7) is spec.by_name("VirtualMachine", "IDSizes")
    assert spec.lookup(64, 100) is spec.by_name("Event", "Composite")
    assert spec.lookup(9, 4) is None
    assert spec.lookup(8, 1) is None
    with pytest.raises(KeyError):
        spec.by_name("VirtualMachine", "Nope")


def _walk(layout):
    for el in layout:
        yield el
        if isinstance(el, Repeat):
            item = el.item
            if isinstance(item, Group):
                yield from _walk(item.fields)
            elif isinstance(item, Select):
                for alt in item.alts:
                    yield from _walk(alt.fields)
            else:
                yield item


@pytest.mark.parametrize("cs", list(spec.COMMANDS.values()), ids=lambda c: c.label)
def test_field_names_follow_the_snake_case_rule(cs):
    for el in _walk(cs.out + cs.reply):
        assert el.name == spec.snake_case(el.spec_name)
        assert el.name.isidentifier() and not keyword.iskeyword(el.name)
        if isinstance(el, Field):
            assert el.type in spec.TYPES


def test_snake_case_examples():
    cases = {
        "refTypeTag": "ref_type_tag",
        "typeID": "type_id",
        "jdwpMajor": "jdwp_major",
        "classPattern": "class_pattern",
        "frameID": "frame_id",
        "refType": "ref_type",
        "suspendPolicy": "suspend_policy",
        "requestID": "request_id",
        "modKind": "mod_kind",
        "exceptionOrNull": "exception_or_null",
        "stack_depth": "stack_depth",
        "reserved22": "reserved22",
        "fieldIDSize": "field_idsize",
        "class": "class_",
    }
    for given, expected in cases.items():
        assert spec.snake_case(given) == expected


def test_key_layouts():
    ids = spec.by_name("VirtualMachine", "IDSizes")
    assert [f.name for f in ids.reply] == [
        "field_idsize",
        "method_idsize",
        "object_idsize",
        "reference_type_idsize",
        "frame_idsize",
    ]
    caps = spec.by_name("VirtualMachine", "CapabilitiesNew").reply
    assert len(caps) == 32 and all(f.type == "boolean" for f in caps)
    assert caps[-1].name == "reserved32"
    assert [f.name for f in spec.by_name("VirtualMachine", "Capabilities").reply][-1] == "can_get_monitor_info"
    frames = spec.by_name("ThreadReference", "Frames")
    assert [f.name for f in frames.out] == ["thread", "start_frame", "length"]
    assert frames.reply[0].item.fields[1].type == "location"


def test_modifiers_and_events_are_complete():
    mods = spec.MODIFIER_SELECT
    assert [a.kind for a in mods.alts] == list(range(1, 14))
    assert {a.name for a in mods.alts} == {
        "Count", "Conditional", "ThreadOnly", "ClassOnly", "ClassMatch", "ClassExclude", "LocationOnly",
        "ExceptionOnly", "FieldOnly", "Step", "InstanceOnly", "SourceNameMatch", "PlatformThreadsOnly",
    }  # fmt: skip
    events = {a.name: a.kind for a in spec.EVENT_SELECT.alts}
    assert events == {
        "VMStart": 90, "SingleStep": 1, "Breakpoint": 2, "MethodEntry": 40, "MethodExit": 41,
        "MethodExitWithReturnValue": 42, "MonitorContendedEnter": 43, "MonitorContendedEntered": 44,
        "MonitorWait": 45, "MonitorWaited": 46, "Exception": 4, "ThreadStart": 6, "ThreadDeath": 7,
        "ClassPrepare": 8, "ClassUnload": 9, "FieldAccess": 20, "FieldModification": 21, "VMDeath": 99,
        "JdwpdCapture": 200, "JdwpdDisabled": 201, "JdwpdConditionError": 202, "JdwpdStop": 203,  # jdwpd's extension
    }  # fmt: skip
    for alt in spec.EVENT_SELECT.alts:
        cls = getattr(messages.Events, alt.name)
        assert cls.event_kind == alt.kind
        assert [f.name for f in alt.fields][0] == "request_id"
    for alt in mods.alts:
        assert getattr(messages.modifiers, alt.name).mod_kind == alt.kind


def test_message_classes_are_frozen_attrs_with_snake_case_fields():
    import attrs

    cls = messages.VirtualMachine.IDSizes.Reply
    assert attrs.has(cls)
    r = cls(8, 8, 8, 8, 4)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        r.frame_idsize = 8
    assert messages.reply_class(spec.by_name("VirtualMachine", "IDSizes")) is cls
    assert messages.command_class(spec.by_name("Event", "Composite")) is messages.Event.Composite.Command
    bp = messages.Events.Breakpoint(request_id=1, thread=2, location=messages.Location(1, 2, 3, 4))
    assert bp.event_kind == 2
    assert messages.modifiers.ClassOnly(clazz=5).mod_kind == 4
    assert messages.modifiers.Step(1, 1, 0) == messages.Modifiers.Step(thread=1, size=1, depth=0)
