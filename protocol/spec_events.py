"""Command layouts: EventRequest (15) and Event (64), with the modifier and event alternatives.

Pure data in the layout notation described in spec.py.  ``select Modifier`` and
``select Events`` refer to the alternative tables below: a selector byte
(modKind / eventKind) followed by the chosen alternative's fields.
"""

# fmt: off
SETS = [
    (15, "EventRequest", [
        (1, "Set", "byte eventKind, byte suspendPolicy, repeat modifiers: select Modifier", "int requestID",
         "mutating inline_after_reply"),
        (2, "Clear", "byte eventKind, int requestID", "", "mutating inline_after_reply"),
        (3, "ClearAllBreakpoints", "", "", "mutating"),
    ]),
    (64, "Event", [
        (100, "Composite", "byte suspendPolicy, repeat events: select Events", ""),
    ]),
]

# (selector field, [(kind, name, fields)])
MODIFIER = ("byte modKind", [
    (1, "Count", "int count"),
    (2, "Conditional", "int exprID"),
    (3, "ThreadOnly", "threadObject thread"),
    (4, "ClassOnly", "referenceType clazz"),
    (5, "ClassMatch", "string classPattern"),
    (6, "ClassExclude", "string classPattern"),
    (7, "LocationOnly", "location loc"),
    (8, "ExceptionOnly", "referenceType exceptionOrNull, boolean caught, boolean uncaught"),
    (9, "FieldOnly", "referenceType declaring, field fieldID"),
    (10, "Step", "threadObject thread, int size, int depth"),
    (11, "InstanceOnly", "object instance"),
    (12, "SourceNameMatch", "string sourceNamePattern"),
    (13, "PlatformThreadsOnly", ""),
])

_AT = "int requestID, threadObject thread, location location"
_MONITOR = "int requestID, threadObject thread, tagged-object object, location location"
_FIELD = (
    "int requestID, threadObject thread, location location, byte refTypeTag, referenceTypeID typeID,"
    " field fieldID, tagged-object object"
)

EVENTS = ("byte eventKind", [
    (90, "VMStart", "int requestID, threadObject thread"),
    (1, "SingleStep", _AT),
    (2, "Breakpoint", _AT),
    (40, "MethodEntry", _AT),
    (41, "MethodExit", _AT),
    (42, "MethodExitWithReturnValue", _AT + ", value value"),
    (43, "MonitorContendedEnter", _MONITOR),
    (44, "MonitorContendedEntered", _MONITOR),
    (45, "MonitorWait", _MONITOR + ", long timeout"),
    (46, "MonitorWaited", _MONITOR + ", boolean timed_out"),
    (4, "Exception", _AT + ", tagged-object exception, location catchLocation"),
    (6, "ThreadStart", "int requestID, threadObject thread"),
    (7, "ThreadDeath", "int requestID, threadObject thread"),
    (8, "ClassPrepare",
     "int requestID, threadObject thread, byte refTypeTag, referenceTypeID typeID, string signature, int status"),
    (9, "ClassUnload", "int requestID, string signature"),
    (20, "FieldAccess", _FIELD),
    (21, "FieldModification", _FIELD + ", value valueToBe"),
    (99, "VMDeath", "int requestID"),
])
# fmt: on
