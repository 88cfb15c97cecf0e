"""Command layouts: VirtualMachine, ReferenceType, ClassType, ArrayType, InterfaceType, Method, Field.

Pure data in the layout notation described in spec.py: (command id, name, out, reply[, traits]);
the traits are the trait columns of spec.CommandSpec.
Names and types are jdwp.spec's, so each line can be checked against it by eye.
"""

_CAPS7 = (
    "boolean canWatchFieldModification, boolean canWatchFieldAccess, boolean canGetBytecodes,"
    " boolean canGetSyntheticAttribute, boolean canGetOwnedMonitorInfo,"
    " boolean canGetCurrentContendedMonitor, boolean canGetMonitorInfo"
)
_CAPS_NEW = (
    _CAPS7 + ", boolean canRedefineClasses, boolean canAddMethod, boolean canUnrestrictedlyRedefineClasses,"
    " boolean canPopFrames, boolean canUseInstanceFilters, boolean canGetSourceDebugExtension,"
    " boolean canRequestVMDeathEvent, boolean canSetDefaultStratum, boolean canGetInstanceInfo,"
    " boolean canRequestMonitorEvents, boolean canGetMonitorFrameInfo, boolean canUseSourceNameFilters,"
    " boolean canGetConstantPool, boolean canForceEarlyReturn, "
    + ", ".join(f"boolean reserved{n}" for n in range(22, 33))
)

_RT = "referenceType refType"
_METHOD = "referenceType refType, method methodID"
_INVOKE_REPLY = "value returnValue, tagged-object exception"

# fmt: off
SETS = [
    (1, "VirtualMachine", [
        (1, "Version", "", "string description, int jdwpMajor, int jdwpMinor, string vmVersion, string vmName"),
        (2, "ClassesBySignature", "string signature",
         "repeat classes: ClassInfo(byte refTypeTag, referenceTypeID typeID, int status)"),
        (3, "AllClasses", "",
         "repeat classes: ClassInfo(byte refTypeTag, referenceTypeID typeID, string signature, int status)"),
        (4, "AllThreads", "", "repeat threads: threadObject thread"),
        (5, "TopLevelThreadGroups", "", "repeat groups: threadGroupObject group"),
        (6, "Dispose", "", "", "mutating"),
        (7, "IDSizes", "",
         "int fieldIDSize, int methodIDSize, int objectIDSize, int referenceTypeIDSize, int frameIDSize"),
        (8, "Suspend", "", "", "mutating"),
        (9, "Resume", "", "", "mutating inline_after_reply"),
        (10, "Exit", "int exitCode", "", "mutating changes_state"),
        (11, "CreateString", "string utf", "stringObject stringObject", "changes_state"),
        (12, "Capabilities", "", _CAPS7),
        (13, "ClassPaths", "", "string baseDir, repeat classpaths: string path, repeat bootclasspaths: string path"),
        (14, "DisposeObjects", "repeat requests: Request(object object, int refCnt)", "", "mutating"),
        (15, "HoldEvents", "", "", "mutating"),
        (16, "ReleaseEvents", "", "", "mutating"),
        (17, "CapabilitiesNew", "", _CAPS_NEW),
        (18, "RedefineClasses",
         "repeat classes: ClassDef(referenceType refType, repeat classfile: byte classbyte)", "",
         "mutating changes_state"),
        (19, "SetDefaultStratum", "string stratumID", "", "mutating"),
        (20, "AllClassesWithGeneric", "",
         "repeat classes: ClassInfo(byte refTypeTag, referenceTypeID typeID, string signature,"
         " string genericSignature, int status)"),
        (21, "InstanceCounts", "repeat refTypesCount: referenceType refType", "repeat counts: long instanceCount"),
        (22, "AllModules", "", "repeat modules: moduleID module"),
    ]),
    (2, "ReferenceType", [
        (1, "Signature", _RT, "string signature", "memo=fact"),
        (2, "ClassLoader", _RT, "classLoaderObject classLoader"),
        (3, "Modifiers", _RT, "int modBits", "memo=fact"),
        (4, "Fields", _RT, "repeat declared: FieldInfo(field fieldID, string name, string signature, int modBits)",
         "memo=fact"),
        (5, "Methods", _RT, "repeat declared: MethodInfo(method methodID, string name, string signature, int modBits)",
         "memo=fact"),
        (6, "GetValues", "referenceType refType, repeat fields: Field(field fieldID)", "repeat values: value value"),
        (7, "SourceFile", _RT, "string sourceFile", "memo=fact"),
        (8, "NestedTypes", _RT, "repeat classes: TypeInfo(byte refTypeTag, referenceTypeID typeID)"),
        (9, "Status", _RT, "int status"),
        (10, "Interfaces", _RT, "repeat interfaces: interfaceType interfaceType"),
        (11, "ClassObject", _RT, "classObject classObject"),
        (12, "SourceDebugExtension", _RT, "string extension", "memo=fact"),
        (13, "SignatureWithGeneric", _RT, "string signature, string genericSignature", "memo=fact"),
        (14, "FieldsWithGeneric", _RT,
         "repeat declared: FieldInfo(field fieldID, string name, string signature, string genericSignature,"
         " int modBits)", "memo=fact"),
        (15, "MethodsWithGeneric", _RT,
         "repeat declared: MethodInfo(method methodID, string name, string signature, string genericSignature,"
         " int modBits)", "memo=fact"),
        (16, "Instances", "referenceType refType, int maxInstances", "repeat instances: tagged-object instance"),
        (17, "ClassFileVersion", _RT, "int majorVersion, int minorVersion", "memo=fact"),
        (18, "ConstantPool", _RT, "int count, repeat bytes: byte cpbytes", "memo=fact"),
        (19, "Module", _RT, "moduleID module"),
    ]),
    (3, "ClassType", [
        (1, "Superclass", "classType clazz", "classType superclass"),
        (2, "SetValues", "classType clazz, repeat values: FieldValue(field fieldID, untagged-value value)", "",
         "mutating changes_state"),
        (3, "InvokeMethod",
         "classType clazz, threadObject thread, method methodID, repeat arguments: value arg, int options",
         _INVOKE_REPLY, "invokes changes_state"),
        (4, "NewInstance",
         "classType clazz, threadObject thread, method methodID, repeat arguments: value arg, int options",
         "tagged-object newObject, tagged-object exception", "invokes changes_state"),
    ]),
    (4, "ArrayType", [
        (1, "NewInstance", "arrayType arrType, int length", "tagged-object newArray", "changes_state"),
    ]),
    (5, "InterfaceType", [
        (1, "InvokeMethod",
         "interfaceType clazz, threadObject thread, method methodID, repeat arguments: value arg, int options",
         _INVOKE_REPLY, "invokes changes_state"),
    ]),
    (6, "Method", [
        (1, "LineTable", _METHOD, "long start, long end, repeat lines: LineInfo(long lineCodeIndex, int lineNumber)",
         "memo=fact"),
        (2, "VariableTable", _METHOD,
         "int argCnt, repeat slots: SlotInfo(long codeIndex, string name, string signature, int length, int slot)",
         "memo=fact"),
        (3, "Bytecodes", _METHOD, "repeat bytes: byte bytecode", "memo=fact"),
        (4, "IsObsolete", _METHOD, "boolean isObsolete", "memo=fact"),
        (5, "VariableTableWithGeneric", _METHOD,
         "int argCnt, repeat slots: SlotInfo(long codeIndex, string name, string signature,"
         " string genericSignature, int length, int slot)", "memo=fact"),
    ]),
    (8, "Field", []),
]
# fmt: on
