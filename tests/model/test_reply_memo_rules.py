"""The reply memo (jdwpd/daemon/fast/memo.py) and the thread table's "held" questions, without a JVM.

The live behaviour is tests/differential/test_reply_memo.py; here each rule on its own: what is
kept, under which suspension, and what drops it.
"""

from __future__ import annotations

import types

from jdwpd.daemon.fast.memo import FACT_COMMANDS, FRAME_COUNT, MEMO_COMMANDS, NO_THAW, THREAD_NAME, ReplyMemo
from jdwpd.daemon.model.threads import ThreadTable
from protocol import link, spec
from protocol.wire import IDSizes

A, B = "session-a", "session-b"
T1, T2 = 0x101, 0x102


def vm() -> types.SimpleNamespace:
    return types.SimpleNamespace(threads=ThreadTable(), id_sizes=IDSizes(8, 8, 8, 8, 8))


def thread_key(command: tuple[int, int], thread: int) -> tuple[int, int, bytes]:
    return (*command, thread.to_bytes(8, "big"))


SIGNATURE = (2, 1, (0x55).to_bytes(8, "big"))


def test_the_memo_commands_are_the_documented_ones():
    names = {(spec.COMMANDS[key].set_name, spec.COMMANDS[key].name) for key in MEMO_COMMANDS}
    assert names == {
        ("ReferenceType", n) for n in ("Signature", "Modifiers", "Fields", "Methods", "SourceFile",
                                       "SourceDebugExtension", "SignatureWithGeneric", "FieldsWithGeneric",
                                       "MethodsWithGeneric", "ClassFileVersion", "ConstantPool")
    } | {("Method", n) for n in ("LineTable", "VariableTable", "Bytecodes", "IsObsolete",
                                 "VariableTableWithGeneric")} | {("ThreadReference", "Name"),
                                                                 ("ThreadReference", "FrameCount")}
    assert THREAD_NAME not in FACT_COMMANDS and FRAME_COUNT not in FACT_COMMANDS


def test_no_thaw_names_are_link_messages_and_leave_out_everything_that_runs_or_changes():
    assert NO_THAW <= set(link.BY_NAME)
    for name in ("RESUME_ALL", "THREAD_RESUME", "INVOKE", "THREAD_POP_FRAMES", "FRAME_SET_LOCALS",
                 "OBJECT_SET_FIELDS", "CLASS_SET_STATICS", "ARRAY_SET", "REDEFINE_CLASSES", "THREAD_STOP",
                 "THREAD_INTERRUPT", "THREAD_FORCE_EARLY_RETURN", "RELEASE_START", "EXIT"):
        assert name in link.BY_NAME and name not in NO_THAW, name


def test_facts_are_kept_until_dropped_and_never_across_a_drop():
    m, v = ReplyMemo(), vm()
    began = m.epochs()
    m.offer(SIGNATURE, b"sig", began, v)
    assert m.get(SIGNATURE) == b"sig" and len(m) == 1
    m.thaw()  # a resume does not change a class
    assert m.get(SIGNATURE) == b"sig"
    m.drop_facts()  # unload or redefinition
    assert m.get(SIGNATURE) is None
    m.offer(SIGNATURE, b"old", began, v)  # computed before the drop
    assert m.get(SIGNATURE) is None
    m.offer(SIGNATURE, b"new", m.epochs(), v)
    assert m.get(SIGNATURE) == b"new"


def test_a_disabled_memo_keeps_nothing():
    m, v = ReplyMemo(enabled=False), vm()
    v.threads.suspended_all(A)
    m.offer(SIGNATURE, b"sig", m.epochs(), v)
    m.offer(thread_key(THREAD_NAME, T1), b"name", m.epochs(), v)
    assert len(m) == 0 and m.get(SIGNATURE) is None


def test_a_name_is_kept_only_while_the_whole_vm_is_held():
    m, v = ReplyMemo(), vm()
    key = thread_key(THREAD_NAME, T1)
    v.threads.suspended(A, T1)  # the thread alone: others run and may rename it
    m.offer(key, b"n1", m.epochs(), v)
    assert m.get(key) is None
    v.threads.suspended_all(A)
    m.offer(key, b"n1", m.epochs(), v)
    assert m.get(key) == b"n1"
    m.link_message("THREAD_INFO")  # reads: nothing thaws
    m.link_message("SUSPEND_ALL")
    assert m.get(key) == b"n1"
    m.link_message("RESUME_ALL")
    assert m.get(key) is None


def test_a_name_is_not_kept_once_one_thread_is_let_out_of_the_vm_suspension():
    m, v = ReplyMemo(), vm()
    v.threads.get(T1), v.threads.get(T2)
    v.threads.suspended_all(A)
    assert v.threads.world_frozen()
    v.threads.resumed(A, T2)  # T2 runs (and may rename T1)
    assert not v.threads.world_frozen()
    m.offer(thread_key(THREAD_NAME, T1), b"n1", m.epochs(), v)
    assert len(m) == 0
    v.threads.suspended(A, T2)
    assert v.threads.world_frozen()
    v.threads.suspended_all(B)
    v.threads.resumed_all(A)
    assert v.threads.world_frozen()  # B still holds everything
    v.threads.resumed_all(B)
    assert not v.threads.world_frozen()


def test_a_frame_count_is_kept_while_its_thread_is_held_and_thawed_by_anything_that_runs():
    m, v = ReplyMemo(), vm()
    k1, k2 = thread_key(FRAME_COUNT, T1), thread_key(FRAME_COUNT, T2)
    m.offer(k1, b"\0\0\0\5", m.epochs(), v)
    assert m.get(k1) is None  # nobody holds it: it runs
    v.threads.suspended(A, T1)
    assert v.threads.held(T1) and not v.threads.held(T2) and v.threads.held_alone_by(A, T1)
    m.offer(k1, b"\0\0\0\5", m.epochs(), v)
    m.offer(k2, b"\0\0\0\7", m.epochs(), v)
    assert m.get(k1) == b"\0\0\0\5" and m.get(k2) is None
    for name in ("THREAD_RESUME", "THREAD_POP_FRAMES", "FRAME_SET_LOCALS", "THREAD_FORCE_EARLY_RETURN"):
        m.offer(k1, b"\0\0\0\5", m.epochs(), v)
        m.offer(SIGNATURE, b"sig", m.epochs(), v)
        m.link_message(name)
        assert m.get(k1) is None, name
        assert m.get(SIGNATURE) == b"sig", name


def test_a_reply_computed_across_a_thaw_is_not_kept():
    m, v = ReplyMemo(), vm()
    v.threads.suspended_all(A)
    key = thread_key(FRAME_COUNT, T1)
    began = m.epochs()
    m.link_message("RESUME_ALL")  # the thread ran while the count was on its way
    m.offer(key, b"\0\0\0\5", began, v)
    assert m.get(key) is None


def test_nothing_of_a_thread_is_kept_while_an_invoke_runs():
    m, v = ReplyMemo(), vm()
    v.threads.suspended_all(A)
    m.offer(thread_key(THREAD_NAME, T1), b"n1", m.epochs(), v)
    m.invoke_started()
    assert m.get(thread_key(THREAD_NAME, T1)) is None
    m.offer(thread_key(THREAD_NAME, T1), b"n2", m.epochs(), v)
    m.offer(thread_key(FRAME_COUNT, T1), b"\0\0\0\5", m.epochs(), v)
    m.offer(SIGNATURE, b"sig", m.epochs(), v)
    assert m.get(thread_key(THREAD_NAME, T1)) is None and m.get(thread_key(FRAME_COUNT, T1)) is None
    assert m.get(SIGNATURE) == b"sig"
    began = m.epochs()
    m.invoke_ended()
    m.offer(thread_key(THREAD_NAME, T1), b"n2", began, v)  # read while the invoke ran
    assert m.get(thread_key(THREAD_NAME, T1)) is None
    m.offer(thread_key(THREAD_NAME, T1), b"n3", m.epochs(), v)
    assert m.get(thread_key(THREAD_NAME, T1)) == b"n3"


def test_clear_drops_everything():
    m, v = ReplyMemo(), vm()
    v.threads.suspended_all(A)
    m.offer(SIGNATURE, b"sig", m.epochs(), v)
    m.offer(thread_key(THREAD_NAME, T1), b"n1", m.epochs(), v)
    m.clear()
    assert len(m) == 0


def test_a_name_read_before_the_vm_was_held_is_not_kept_as_the_held_name():
    """Debugger A's Name is on its way (THREAD_INFO answered: the name then) when debugger B's
    VirtualMachine.Suspend completes; SUSPEND_ALL does not thaw, so the epochs match and, if the
    Name's task runs after the Suspend's, the world is frozen at its offer.  The name it carries
    was read while the VM ran (the renaming thread may have renamed since, before SUSPEND_ALL
    took hold), so it is not the held name and must not be repeated for the rest of the hold."""
    m, v = ReplyMemo(), vm()
    key = thread_key(THREAD_NAME, T1)
    began = m.epochs()  # A's Name begins: the VM runs
    m.link_message("THREAD_INFO")  # A's read goes out, answered "n41"
    m.link_message("SUSPEND_ALL")  # B's suspension; the renamer made it "n42" in between
    v.threads.suspended_all(B)
    m.offer(key, b"n41", began, v)  # A's task runs last
    assert m.get(key) is None

