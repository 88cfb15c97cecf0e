"""Command layouts: the object, thread, array, frame and module command sets (9-14, 16-18).

Pure data in the layout notation described in spec.py.  ObjectReference has no
command 4: the spec skips that number.
"""

_OBJ = "object object"
_T = "threadObject thread"
_G = "threadGroupObject group"
_FRAME = "threadObject thread, frame frame"

# fmt: off
SETS = [
    (9, "ObjectReference", [
        (1, "ReferenceType", _OBJ, "byte refTypeTag, referenceTypeID typeID"),
        (2, "GetValues", "object object, repeat fields: Field(field fieldID)", "repeat values: value value"),
        (3, "SetValues", "object object, repeat values: FieldValue(field fieldID, untagged-value value)", "",
         "mutating changes_state"),
        (5, "MonitorInfo", _OBJ, "threadObject owner, int entryCount, repeat waiters: threadObject thread"),
        (6, "InvokeMethod",
         "object object, threadObject thread, classType clazz, method methodID, repeat arguments: value arg,"
         " int options",
         "value returnValue, tagged-object exception", "invokes changes_state"),
        (7, "DisableCollection", _OBJ, "", "mutating"),
        (8, "EnableCollection", _OBJ, "", "mutating"),
        (9, "IsCollected", _OBJ, "boolean isCollected"),
        (10, "ReferringObjects", "object object, int maxReferrers",
         "repeat referringObjects: tagged-object instance"),
    ]),
    (10, "StringReference", [
        (1, "Value", "object stringObject", "string stringValue"),
    ]),
    (11, "ThreadReference", [
        (1, "Name", _T, "string threadName", "inline_after_reply memo=frozen"),
        (2, "Suspend", _T, "", "mutating"),
        (3, "Resume", _T, "", "mutating inline_after_reply"),
        (4, "Status", _T, "int threadStatus, int suspendStatus", "inline_after_reply"),
        (5, "ThreadGroup", _T, "threadGroupObject group"),
        (6, "Frames", "threadObject thread, int startFrame, int length",
         "repeat frames: Frame(frame frameID, location location)"),
        (7, "FrameCount", _T, "int frameCount", "inline_after_reply memo=frozen"),
        (8, "OwnedMonitors", _T, "repeat owned: tagged-object monitor"),
        (9, "CurrentContendedMonitor", _T, "tagged-object monitor"),
        (10, "Stop", "threadObject thread, object throwable", "", "mutating changes_state"),
        (11, "Interrupt", _T, "", "mutating changes_state"),
        (12, "SuspendCount", _T, "int suspendCount", "inline_after_reply"),
        (13, "OwnedMonitorsStackDepthInfo", _T, "repeat owned: Monitor(tagged-object monitor, int stack_depth)"),
        (14, "ForceEarlyReturn", "threadObject thread, value value", "", "mutating changes_state"),
        (15, "IsVirtual", _T, "boolean isVirtual"),
    ]),
    (12, "ThreadGroupReference", [
        (1, "Name", _G, "string groupName"),
        (2, "Parent", _G, "threadGroupObject parentGroup"),
        (3, "Children", _G,
         "repeat childThreads: threadObject childThread, repeat childGroups: threadGroupObject childGroup"),
    ]),
    (13, "ArrayReference", [
        (1, "Length", "arrayObject arrayObject", "int arrayLength"),
        (2, "GetValues", "arrayObject arrayObject, int firstIndex, int length", "typed-sequence values"),
        (3, "SetValues", "arrayObject arrayObject, int firstIndex, repeat values: untagged-value value", "",
         "mutating changes_state"),
    ]),
    (14, "ClassLoaderReference", [
        (1, "VisibleClasses", "classLoaderObject classLoaderObject",
         "repeat classes: ClassInfo(byte refTypeTag, referenceTypeID typeID)"),
    ]),
    (16, "StackFrame", [
        (1, "GetValues", "threadObject thread, frame frame, repeat slots: SlotInfo(int slot, byte sigbyte)",
         "repeat values: value slotValue"),
        (2, "SetValues", "threadObject thread, frame frame, repeat slotValues: SlotInfo(int slot, value slotValue)",
         "", "mutating changes_state"),
        (3, "ThisObject", _FRAME, "tagged-object objectThis"),
        (4, "PopFrames", _FRAME, "", "mutating changes_state"),
    ]),
    (17, "ClassObjectReference", [
        (1, "ReflectedType", "classObject classObject", "byte refTypeTag, referenceTypeID typeID"),
    ]),
    (18, "ModuleReference", [
        (1, "Name", "moduleID module", "string name"),
        (2, "ClassLoader", "moduleID module", "classLoaderObject classLoader"),
    ]),
]
# fmt: on
