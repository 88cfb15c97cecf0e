"""The command table and the dispatcher's error rules, without a VM behind them."""

import attrs
import pytest
import trio

from jdwpd.daemon import dispatch
from jdwpd.daemon.model.objects import ObjectRefs
from jdwpd.daemon.model.requests import RequestTable
from jdwpd.daemon.model.threads import ThreadTable
from protocol import spec
from protocol.constants import ErrorCode
from protocol.packets import CommandPacket
from protocol.wire import IDSizes


def test_every_command_of_the_spec_is_routed():
    table = dispatch.build_table()
    missing = [cs.label for key, cs in spec.COMMANDS.items() if cs.set_name != "Event" and key not in table]
    assert missing == []


@attrs.define
class LinklessVM:
    """Just enough VM for commands that never reach the agent."""

    dead: bool = False
    id_sizes: IDSizes = IDSizes(8, 8, 8, 8, 8)
    properties: dict = attrs.Factory(dict)
    threads: ThreadTable = attrs.Factory(ThreadTable)
    requests: RequestTable = attrs.Factory(RequestTable)
    objects: ObjectRefs = attrs.Factory(ObjectRefs)
    read_only: bool = False


async def _reply(vm, set_id, cmd_id, data=b""):
    return await dispatch.dispatch(vm, object(), CommandPacket(7, 0, set_id, cmd_id, data))


async def test_unknown_commands_answer_not_implemented():
    vm = LinklessVM()
    assert (await _reply(vm, 1, 99)).error_code == ErrorCode.NOT_IMPLEMENTED
    assert (await _reply(vm, 77, 1)).error_code == ErrorCode.NOT_IMPLEMENTED
    assert (await _reply(vm, 64, 100)).error_code == ErrorCode.NOT_IMPLEMENTED  # events go the other way


async def test_short_body_is_internal_and_trailing_bytes_are_ignored():
    vm = LinklessVM()
    short = await _reply(vm, 11, 1, b"\0\0")
    assert short.error_code == ErrorCode.INTERNAL
    idsizes = await _reply(vm, 1, 7, b"junk")
    assert idsizes.error_code == 0 and len(idsizes.data) == 20
    assert idsizes.id == 7 and idsizes.flags == 0x80


async def test_dead_vm_answers_vm_dead_except_where_the_reference_does_not():
    vm = LinklessVM(dead=True)
    assert (await _reply(vm, 11, 1, bytes(8))).error_code == ErrorCode.VM_DEAD
    assert (await _reply(vm, 1, 1)).error_code == ErrorCode.VM_DEAD  # Version
    assert (await _reply(vm, 1, 7)).error_code == 0  # IDSizes
    assert (await _reply(vm, 1, 13)).error_code == 0  # ClassPaths
    assert (await _reply(vm, 1, 19, b"\0\0\0\0")).error_code == 0  # SetDefaultStratum: quietly ignored


async def test_class_paths_split_like_the_reference():
    vm = LinklessVM(properties={"user.dir": "/w", "java.class.path": "a:b::c", "path.separator": ":"})
    r = await _reply(vm, 1, 13)
    cs = spec.by_name("VirtualMachine", "ClassPaths")
    from protocol.messages import decode_reply
    d = decode_reply(cs, r.data)
    assert d.base_dir == "/w" and [p.path for p in d.classpaths] == ["a", "b", "", "c"] and d.bootclasspaths == ()


@pytest.mark.parametrize("set_id,cmd_id", [(1, 6), (1, 8), (15, 1), (11, 3), (16, 4)])
def test_changes_are_ordered(set_id, cmd_id):
    from jdwpd.daemon.session.ordering import MUTATING
    assert (set_id, cmd_id) in MUTATING


def test_queries_are_not_ordered():
    from jdwpd.daemon.session.ordering import MUTATING
    for key in [(1, 1), (11, 6), (16, 1), (2, 1), (9, 6), (3, 3)]:
        assert key not in MUTATING
    assert trio  # the module is importable without a VM


async def test_read_only_refuses_state_changes_but_not_questions():
    vm = LinklessVM(read_only=True)
    assert (await _reply(vm, 1, 10, bytes(4))).error_code == ErrorCode.NOT_IMPLEMENTED  # Exit
    assert (await _reply(vm, 16, 2, bytes(20))).error_code == ErrorCode.NOT_IMPLEMENTED  # StackFrame.SetValues
    assert (await _reply(vm, 1, 7)).error_code == 0  # IDSizes
