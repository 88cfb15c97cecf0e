"""Command layouts of jdwpd's vendor command set (128, "Jdwpd") and its event kinds.

The JDWP specification leaves command sets 128-255 to vendors; docs/extensions.md defines this
one as the specification defines a command set.  Pure data in the layout notation of spec.py.
The probe is VirtualMachine command 100 (JdwpdHello), not a command of set 128: the reference
agent (OpenJDK 17 and 25) indexes its command tables with the set and command bytes read as signed
numbers, so set 128 or 255 crashes its JVM (SIGSEGV in debugDispatch_getHandler) and others answer
at random, while an unassigned command below 128 of a standard set is bounds-checked and answered
NOT_IMPLEMENTED.  A client sends set 128 only to a server that answered JdwpdHello.
"""

# fmt: off
SETS = [
    (1, "VirtualMachine", [
        (100, "JdwpdHello", "int clientVersion", "int version, int features"),
    ]),
    (128, "Jdwpd", [
        # 1 is not assigned: the hello is VirtualMachine.JdwpdHello (above)
        (2, "CompileCondition", "referenceType refType, method methodID, long index, string expression",
         "int exprID, int status, int column, string message"),
        (3, "DefineCapture",
         "int frames, int localsFrames, int depth, int maxString, int maxItems, int maxBytes, int maxMicros,"
         " boolean thisObject, boolean objectIds, repeat watches: int exprID",
         "int captureID"),
        (4, "DefineBudget", "int hitCap, long expiresMillis, int ratePerSecond, int cpuPpm, int flags",
         "int budgetID"),
        (5, "Forget", "int id", ""),
        (6, "RequestStats", "int requestID",
         "long evaluations, long trues, long nullErrors, long indexErrors, long arithmeticErrors,"
         " long typeErrors, long otherErrors, long costNanos, long hits, int disabledReason,"
         " long droppedCaptures, long localsWalked, long localsByJvmti, long localsInFrame"),
        (7, "CompileExpression", "referenceType refType, method methodID, long index, string expression",
         "int exprID, int status, int column, string message, string signature"),
        (8, "DefineCatchFilter", "repeat caughtIn: string classPattern, repeat notCaughtIn: string classPattern",
         "int filterID"),
        (9, "PushStops", "boolean enabled", ""),
    ]),
]

# Extension events: delivered in Event.Composite (64, 100) only to a session that said Hello, for
# requests that session made with the extension's ids.
EVENTS = [
    (200, "JdwpdCapture", "int requestID, threadObject thread, location location, byte sourceKind,"
                          " repeat data: byte octet"),
    (201, "JdwpdDisabled", "int requestID, int reason"),
    (202, "JdwpdConditionError", "int requestID, threadObject thread, location location, int reason"),
    (203, "JdwpdStop", "int requestID, threadObject thread, repeat data: byte octet"),
]
# fmt: on
