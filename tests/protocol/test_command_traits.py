"""The trait columns of the command table (protocol/spec*.py) and of the link table (protocol/link.py)
hold what the number sets they replaced held (jdwpd/session.py, dispatch.py, reply_memo.py before
issue 18): the sets are derived from the columns now, so a row's trait is the one place to change."""

from __future__ import annotations

import pytest

from protocol import link, spec

_VM, _TR, _SF, _ER = 1, 11, 16, 15
OLD_MUTATING = {
    (_VM, 6), (_VM, 8), (_VM, 9), (_VM, 10), (_VM, 14), (_VM, 15), (_VM, 16), (_VM, 18), (_VM, 19),
    (3, 2), (9, 3), (9, 7), (9, 8), (_TR, 2), (_TR, 3), (_TR, 10), (_TR, 11), (_TR, 14), (13, 3),
    (_ER, 1), (_ER, 2), (_ER, 3), (_SF, 2), (_SF, 4),
}
OLD_INVOKES = {(3, 3), (3, 4), (5, 1), (9, 6)}
OLD_GO_ON_INLINE = {(_VM, 9), (_TR, 1), (_TR, 3), (_TR, 4), (_TR, 7), (_TR, 12), (_ER, 1), (_ER, 2)}
OLD_CHANGES_STATE = {(1, 10), (1, 11), (1, 18), (3, 2), (3, 3), (3, 4), (4, 1), (5, 1), (9, 3), (9, 6),
                     (11, 10), (11, 11), (11, 14), (13, 3), (16, 2), (16, 4)}
OLD_FACT_COMMANDS = {(2, 1), (2, 3), (2, 4), (2, 5), (2, 7), (2, 12), (2, 13), (2, 14), (2, 15), (2, 17), (2, 18),
                     (6, 1), (6, 2), (6, 3), (6, 4), (6, 5)}
OLD_FROZEN_COMMANDS = {(11, 1), (11, 7)}
OLD_NO_THAW = {
    "VM_INFO", "ALL_CLASSES", "CLASSES_BY_SIGNATURE", "ALL_THREADS", "TOP_THREAD_GROUPS", "SUSPEND_ALL", "RELEASE_IDS",
    "INSTANCE_COUNTS", "ALL_MODULES", "AGENT_STATS", "CLASS_SIGNATURE", "CLASS_STATUS",
    "CLASS_MODIFIERS", "CLASS_LOADER", "CLASS_SUPERCLASS", "CLASS_INTERFACES", "CLASS_SOURCE_FILE",
    "CLASS_SOURCE_DEBUG_EXTENSION", "CLASS_FIELDS", "CLASS_METHODS", "CLASS_VERSION",
    "CLASS_CONSTANT_POOL", "CLASS_MODULE", "CLASS_INSTANCES", "CLASS_GET_STATICS",
    "LOADER_VISIBLE_CLASSES", "CLASS_OBJECT_KIND", "MODULE_INFO", "METHOD_LINE_TABLE",
    "METHOD_VARIABLE_TABLE", "METHOD_BYTECODES", "METHOD_IS_OBSOLETE", "METHOD_DECLARING_CLASS",
    "OBJECT_TYPE", "OBJECT_GET_FIELDS", "OBJECT_MONITOR_INFO", "OBJECT_PIN", "OBJECT_UNPIN",
    "OBJECT_IS_COLLECTED", "OBJECT_REFERRERS", "STRING_VALUE", "ARRAY_LENGTH", "ARRAY_GET",
    "THREAD_INFO", "THREAD_STATUS", "THREAD_SUSPEND", "THREAD_FRAMES", "THREAD_FRAME_COUNT",
    "THREAD_OWNED_MONITORS", "THREAD_CONTENDED_MONITOR", "GROUP_INFO", "GROUP_CHILDREN",
    "FRAME_GET_LOCALS", "FRAME_THIS", "SET_REQUEST", "CLEAR_REQUEST", "CLEAR_ALL_REQUESTS",
    "CLASS_METHODS_LINES", "SET_DEFAULT_STRATUM", "ARM_READS",
}
OLD_SUSPENDS = {"SUSPEND_ALL", "THREAD_SUSPEND"}


@pytest.mark.parametrize(("trait", "value", "old"), [
    ("mutating", True, OLD_MUTATING), ("invokes", True, OLD_INVOKES),
    ("inline_after_reply", True, OLD_GO_ON_INLINE), ("changes_state", True, OLD_CHANGES_STATE),
    ("memo", "fact", OLD_FACT_COMMANDS), ("memo", "frozen", OLD_FROZEN_COMMANDS),
])
def test_each_command_trait_column_holds_the_old_set(trait, value, old):
    assert spec.having(trait, value) == old


def test_the_link_table_says_which_messages_thaw_and_which_suspend():
    assert {name for name, m in link.BY_NAME.items() if not m.thaws} == OLD_NO_THAW
    assert {name for name, m in link.BY_NAME.items() if m.suspends} == OLD_SUSPENDS


def test_the_daemon_derives_its_sets_from_the_columns():
    from jdwpd.daemon import dispatch
    from jdwpd.daemon.fast import memo
    from jdwpd.daemon.session import ordering as session

    assert (session.MUTATING, session.INVOKES, session.GO_ON_INLINE) == (OLD_MUTATING, OLD_INVOKES, OLD_GO_ON_INLINE)
    assert dispatch.CHANGES_STATE == OLD_CHANGES_STATE
    assert (memo.FACT_COMMANDS, memo.FROZEN_COMMANDS, memo.NO_THAW) == (OLD_FACT_COMMANDS, OLD_FROZEN_COMMANDS,
                                                                          OLD_NO_THAW)


def test_a_trait_the_table_does_not_know_is_refused():
    with pytest.raises(ValueError, match="unknown trait"):
        spec._traits("X.Y", "mutating memo=forever")
    with pytest.raises(ValueError, match="unknown trait"):
        spec._traits("X.Y", "fast")
