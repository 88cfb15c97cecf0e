"""JDWP's constant sets, with the numbers of the current jdwp.spec.

Member names are the spec's, upper-cased where the spec writes them in camel case
(command sets, modifier kinds), so that ``gen_c_header.py`` can print them as C
enumerators.  Aliases the spec keeps for old front ends (THREAD_END, VM_INIT)
are kept too: a debugger may still send them.
"""

from __future__ import annotations

import enum


class CommandSet(enum.IntEnum):
    VIRTUAL_MACHINE = 1
    REFERENCE_TYPE = 2
    CLASS_TYPE = 3
    ARRAY_TYPE = 4
    INTERFACE_TYPE = 5
    METHOD = 6
    FIELD = 8
    OBJECT_REFERENCE = 9
    STRING_REFERENCE = 10
    THREAD_REFERENCE = 11
    THREAD_GROUP_REFERENCE = 12
    ARRAY_REFERENCE = 13
    CLASS_LOADER_REFERENCE = 14
    EVENT_REQUEST = 15
    STACK_FRAME = 16
    CLASS_OBJECT_REFERENCE = 17
    MODULE_REFERENCE = 18
    EVENT = 64
    JDWPD = 128  # jdwpd's vendor extension (docs/extensions.md)


class ErrorCode(enum.IntEnum):
    NONE = 0
    INVALID_THREAD = 10
    INVALID_THREAD_GROUP = 11
    INVALID_PRIORITY = 12
    THREAD_NOT_SUSPENDED = 13
    THREAD_SUSPENDED = 14
    THREAD_NOT_ALIVE = 15
    INVALID_OBJECT = 20
    INVALID_CLASS = 21
    CLASS_NOT_PREPARED = 22
    INVALID_METHODID = 23
    INVALID_LOCATION = 24
    INVALID_FIELDID = 25
    INVALID_FRAMEID = 30
    NO_MORE_FRAMES = 31
    OPAQUE_FRAME = 32
    NOT_CURRENT_FRAME = 33
    TYPE_MISMATCH = 34
    INVALID_SLOT = 35
    DUPLICATE = 40
    NOT_FOUND = 41
    INVALID_MODULE = 42
    INVALID_MONITOR = 50
    NOT_MONITOR_OWNER = 51
    INTERRUPT = 52
    INVALID_CLASS_FORMAT = 60
    CIRCULAR_CLASS_DEFINITION = 61
    FAILS_VERIFICATION = 62
    ADD_METHOD_NOT_IMPLEMENTED = 63
    SCHEMA_CHANGE_NOT_IMPLEMENTED = 64
    INVALID_TYPESTATE = 65
    HIERARCHY_CHANGE_NOT_IMPLEMENTED = 66
    DELETE_METHOD_NOT_IMPLEMENTED = 67
    UNSUPPORTED_VERSION = 68
    NAMES_DONT_MATCH = 69
    CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED = 70
    METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED = 71
    CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED = 72
    NOT_IMPLEMENTED = 99
    NULL_POINTER = 100
    ABSENT_INFORMATION = 101
    INVALID_EVENT_TYPE = 102
    ILLEGAL_ARGUMENT = 103
    OUT_OF_MEMORY = 110
    ACCESS_DENIED = 111
    VM_DEAD = 112
    INTERNAL = 113
    UNATTACHED_THREAD = 115
    INVALID_TAG = 500
    ALREADY_INVOKING = 502
    INVALID_INDEX = 503
    INVALID_LENGTH = 504
    INVALID_STRING = 506
    INVALID_CLASS_LOADER = 507
    INVALID_ARRAY = 508
    TRANSPORT_LOAD = 509
    TRANSPORT_INIT = 510
    NATIVE_METHOD = 511
    INVALID_COUNT = 512


class EventKind(enum.IntEnum):
    SINGLE_STEP = 1
    BREAKPOINT = 2
    FRAME_POP = 3
    EXCEPTION = 4
    USER_DEFINED = 5
    THREAD_START = 6
    THREAD_DEATH = 7
    THREAD_END = 7  # the spec's obsolete JVMDI alias
    CLASS_PREPARE = 8
    CLASS_UNLOAD = 9
    CLASS_LOAD = 10
    FIELD_ACCESS = 20
    FIELD_MODIFICATION = 21
    EXCEPTION_CATCH = 30
    METHOD_ENTRY = 40
    METHOD_EXIT = 41
    METHOD_EXIT_WITH_RETURN_VALUE = 42
    MONITOR_CONTENDED_ENTER = 43
    MONITOR_CONTENDED_ENTERED = 44
    MONITOR_WAIT = 45
    MONITOR_WAITED = 46
    VM_START = 90
    VM_INIT = 90  # the spec's obsolete JVMDI alias
    VM_DEATH = 99
    JDWPD_CAPTURE = 200  # extension events (docs/extensions.md): never sent to a standard client
    JDWPD_DISABLED = 201
    JDWPD_CONDITION_ERROR = 202
    JDWPD_STOP = 203
    VM_DISCONNECTED = 100  # never on the wire; front ends use it internally


class ModKind(enum.IntEnum):
    COUNT = 1
    CONDITIONAL = 2
    THREAD_ONLY = 3
    CLASS_ONLY = 4
    CLASS_MATCH = 5
    CLASS_EXCLUDE = 6
    LOCATION_ONLY = 7
    EXCEPTION_ONLY = 8
    FIELD_ONLY = 9
    STEP = 10
    INSTANCE_ONLY = 11
    SOURCE_NAME_MATCH = 12
    PLATFORM_THREADS_ONLY = 13


class ThreadStatus(enum.IntEnum):
    ZOMBIE = 0
    RUNNING = 1
    SLEEPING = 2
    MONITOR = 3
    WAIT = 4


class SuspendStatus(enum.IntFlag):
    SUSPEND_STATUS_SUSPENDED = 0x1


class ClassStatus(enum.IntFlag):
    VERIFIED = 1
    PREPARED = 2
    INITIALIZED = 4
    ERROR = 8


class TypeTag(enum.IntEnum):
    CLASS = 1
    INTERFACE = 2
    ARRAY = 3


class Tag(enum.IntEnum):
    """Value tags: the ASCII code of the spec's signature character."""

    ARRAY = ord("[")
    BYTE = ord("B")
    CHAR = ord("C")
    OBJECT = ord("L")
    FLOAT = ord("F")
    DOUBLE = ord("D")
    INT = ord("I")
    LONG = ord("J")
    SHORT = ord("S")
    VOID = ord("V")
    BOOLEAN = ord("Z")
    STRING = ord("s")
    THREAD = ord("t")
    THREAD_GROUP = ord("g")
    CLASS_LOADER = ord("l")
    CLASS_OBJECT = ord("c")


# Tags whose payload is an object ID: what a tagged-object may carry and what
# makes an array region tagged.
OBJECT_TAGS = frozenset(
    {Tag.ARRAY, Tag.OBJECT, Tag.STRING, Tag.THREAD, Tag.THREAD_GROUP, Tag.CLASS_LOADER, Tag.CLASS_OBJECT}
)
PRIMITIVE_TAGS = frozenset({Tag.BYTE, Tag.CHAR, Tag.FLOAT, Tag.DOUBLE, Tag.INT, Tag.LONG, Tag.SHORT, Tag.BOOLEAN})


class StepDepth(enum.IntEnum):
    INTO = 0
    OVER = 1
    OUT = 2


class StepSize(enum.IntEnum):
    MIN = 0
    LINE = 1


class SuspendPolicy(enum.IntEnum):
    NONE = 0
    EVENT_THREAD = 1
    ALL = 2


class InvokeOptions(enum.IntFlag):
    INVOKE_SINGLE_THREADED = 0x01
    INVOKE_NONVIRTUAL = 0x02


class JdwpdFeature(enum.IntFlag):
    """What a jdwpd server offers, in its VirtualMachine.JdwpdHello reply's ``features`` (docs/extensions.md)."""

    CONDITIONS = 1
    BUDGETS = 2
    CAPTURES = 4
    STOP_ON_ERROR = 8
    CATCH_FILTERS = 16
    PUSHED_STOPS = 32
