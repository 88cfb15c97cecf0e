"""Constant sets: spot checks of the spec's numbers."""

from protocol.constants import (
    OBJECT_TAGS,
    ClassStatus,
    ErrorCode,
    EventKind,
    InvokeOptions,
    ModKind,
    StepDepth,
    StepSize,
    SuspendPolicy,
    SuspendStatus,
    Tag,
    ThreadStatus,
    TypeTag,
)


def test_error_codes():
    assert len(ErrorCode) == 59
    assert ErrorCode.NONE == 0
    assert ErrorCode.INVALID_MODULE == 42
    assert ErrorCode.CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED == 72
    assert ErrorCode.VM_DEAD == 112
    assert ErrorCode.UNATTACHED_THREAD == 115
    assert ErrorCode.INVALID_COUNT == 512


def test_event_kinds_and_aliases():
    assert EventKind.VM_DISCONNECTED == 100
    assert EventKind.THREAD_END is EventKind.THREAD_DEATH
    assert EventKind.VM_INIT is EventKind.VM_START == 90
    assert EventKind.METHOD_EXIT_WITH_RETURN_VALUE == 42
    assert EventKind.MONITOR_WAITED == 46
    assert len(EventKind) == 27  # canonical members (jdwpd's four extension kinds among them); two aliases
    assert len(EventKind.__members__) == 29
    assert EventKind.JDWPD_CAPTURE == 200 and EventKind.JDWPD_DISABLED == 201
    assert EventKind.JDWPD_CONDITION_ERROR == 202
    assert EventKind.JDWPD_STOP == 203


def test_mod_kinds():
    assert [m.value for m in ModKind] == list(range(1, 14))
    assert ModKind.PLATFORM_THREADS_ONLY == 13
    assert ModKind.CONDITIONAL == 2


def test_tags_are_ascii():
    assert Tag.ARRAY == 91 == ord("[")
    assert Tag.BYTE == 66
    assert Tag.OBJECT == ord("L")
    assert Tag.LONG == ord("J")
    assert Tag.CLASS_OBJECT == ord("c")
    assert len(Tag) == 16
    assert len(OBJECT_TAGS) == 7


def test_small_sets():
    assert ClassStatus.VERIFIED | ClassStatus.PREPARED | ClassStatus.INITIALIZED == 7
    assert ClassStatus.ERROR == 8
    assert [t.value for t in TypeTag] == [1, 2, 3]
    assert [t.value for t in ThreadStatus] == [0, 1, 2, 3, 4]
    assert SuspendStatus.SUSPEND_STATUS_SUSPENDED == 1
    assert [p.value for p in SuspendPolicy] == [0, 1, 2]
    assert (StepSize.MIN, StepSize.LINE) == (0, 1)
    assert (StepDepth.INTO, StepDepth.OVER, StepDepth.OUT) == (0, 1, 2)
    assert InvokeOptions.INVOKE_SINGLE_THREADED == 1 and InvokeOptions.INVOKE_NONVIRTUAL == 2
