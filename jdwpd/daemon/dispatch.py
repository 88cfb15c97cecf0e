"""The command table: (command set, command) -> handler, and the reference's error rules.

Handlers come from every ``jdwpd/daemon/commands/*.py`` module's ``HANDLERS``; a command
no module handles answers NOT_IMPLEMENTED, as the reference does for commands it
does not know.  Error replies carry no body.
"""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from jdwpd.errors import AgentError, AgentLinkClosed, JdwpError, jdwp_code_for
from protocol import spec as jdwp_spec
from protocol.constants import CommandSet, ErrorCode
from protocol.messages import decode_command, encode_reply
from protocol.object_ids import reply_ids
from protocol.packets import CommandPacket, ReplyPacket
from protocol.wire import DecodeError, EncodeError, IDSizes

from .commands import CommandSession, Context, Encoded, Handler
from .fast.memo import MEMO_COMMANDS

if TYPE_CHECKING:  # pragma: no cover
    from .vm import VM

log = logging.getLogger(__name__)

COMMAND_MODULES = (
    "virtual_machine", "reference_type", "class_type", "array_type", "interface_type", "method", "field",
    "object_reference", "string_reference", "thread_reference", "thread_group_reference", "array_reference",
    "class_loader_reference", "event_request", "stack_frame", "class_object_reference", "module_reference",
    "jdwpd_ext", "jdwpd_probe",  # the vendor extension (docs/extensions.md)
)

_TRAILING = re.compile(r"^(\d+) trailing bytes$")

# What a read-only daemon refuses: the command table's changes_state column (protocol/spec*.py).
# Refused as NOT_IMPLEMENTED, which JDI turns into an UnsupportedOperationException that debuggers
# show politely.
CHANGES_STATE = jdwp_spec.having("changes_state")


# (set, cmd) -> async fn(ctx, data, error): what a command answers when its body does not
# decode, for the few commands whose reference implementation looks at a prefix first.
DecodeFallback = Callable[[Context, bytes, int], Awaitable[Any]]
DECODE_FALLBACKS: dict[tuple[int, int], DecodeFallback] = {}


def build_table(modules: tuple[str, ...] = COMMAND_MODULES) -> dict[tuple[int, int], Handler]:
    table: dict[tuple[int, int], Handler] = {}
    for name in modules:
        try:
            module = importlib.import_module(f"jdwpd.daemon.commands.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"jdwpd.daemon.commands.{name}":
                raise
            continue  # that command set is not written yet: its commands answer NOT_IMPLEMENTED
        for cmd_name, handler in module.HANDLERS.items():
            cs = jdwp_spec.by_name(module.SET_NAME, cmd_name)
            table[(cs.set_id, cs.cmd_id)] = handler
        for cmd_name, fallback in getattr(module, "DECODE_FALLBACKS", {}).items():
            cs = jdwp_spec.by_name(module.SET_NAME, cmd_name)
            DECODE_FALLBACKS[(cs.set_id, cs.cmd_id)] = fallback
    return table


_TABLE: dict[tuple[int, int], Handler] | None = None


def table() -> dict[tuple[int, int], Handler]:
    global _TABLE
    if _TABLE is None:
        _TABLE = build_table()
    return _TABLE


def _fallback_handler(fallback: DecodeFallback, data: bytes, code: int) -> Handler:
    async def run(ctx: Context, cmd: Any) -> Any:
        return await fallback(ctx, data, code)

    return run


def _error(packet: CommandPacket, code: int) -> ReplyPacket:
    return ReplyPacket(packet.id, 0x80, int(code), b"")


def decode(cs: jdwp_spec.CommandSpec, data: bytes, sizes: IDSizes) -> Any:
    """Decode like the reference reads: bytes after the last field are ignored."""
    try:
        return decode_command(cs, data, sizes)
    except DecodeError as e:
        m = _TRAILING.match(e.reason) if e.field == "<end>" else None
        if m is None:
            raise
        return decode_command(cs, data[: len(data) - int(m.group(1))], sizes)


def decode_error_code(e: DecodeError) -> int:
    """The reference's answer to a body it cannot read: INTERNAL for a short read, INVALID_TAG for a bad tag."""
    if "tag" in e.reason and "unknown" in e.reason:
        return ErrorCode.INVALID_TAG
    if e.reason.startswith("unknown modKind"):
        return ErrorCode.ILLEGAL_ARGUMENT  # the reference's answer to a modifier it does not know
    if "negative count" in e.reason:
        return ErrorCode.ILLEGAL_ARGUMENT
    if "negative string length" in e.reason:
        # The reference allocates length + 1 bytes for a string, fails, and reports no memory.
        return ErrorCode.OUT_OF_MEMORY
    return ErrorCode.INTERNAL


async def dispatch(vm: VM, session: CommandSession, packet: CommandPacket) -> ReplyPacket:
    key = (packet.command_set, packet.command)
    cs = jdwp_spec.lookup(*key)
    handler = table().get(key)
    if cs is None or handler is None:
        return _error(packet, ErrorCode.NOT_IMPLEMENTED)
    # VirtualMachine commands decide for themselves (some answer, some are quietly ignored).
    if vm.dead and packet.command_set != CommandSet.VIRTUAL_MACHINE:
        return _error(packet, ErrorCode.VM_DEAD)
    if key in CHANGES_STATE and getattr(vm, "read_only", False):
        return _error(packet, ErrorCode.NOT_IMPLEMENTED)
    ctx = Context(vm, session, packet.id)
    memo = getattr(vm, "memo", None) if key in MEMO_COMMANDS else None
    memo_began = memo.epochs() if memo is not None else None
    try:
        cmd = decode(cs, packet.data, vm.id_sizes)
    except DecodeError as e:
        fallback = DECODE_FALLBACKS.get(key)
        if fallback is None:
            return _error(packet, decode_error_code(e))
        handler = _fallback_handler(fallback, packet.data, decode_error_code(e))
        cmd = None
    try:
        reply = await handler(ctx, cmd)
        if type(reply) is Encoded:
            body, ids = reply.body, reply.object_ids
        else:
            body = encode_reply(cs, reply if reply is not None else (), vm.id_sizes)
            ids = reply_ids(cs, reply)  # free for the replies that can hold none
        if ids:
            vm.objects.sent(session, ids)  # DisposeObjects counts against these
        elif memo is not None and memo_began is not None and cmd is not None:
            memo.offer((*key, packet.data), body, memo_began, vm)
    except JdwpError as e:
        return _error(packet, e.code)
    except AgentError as e:
        return _error(packet, jdwp_code_for(e.status))
    except AgentLinkClosed:
        return _error(packet, ErrorCode.VM_DEAD)
    except EncodeError:
        log.exception("reply to %s does not fit its layout", cs.label)
        return _error(packet, ErrorCode.INTERNAL)
    except Exception:  # a handler bug must not end the debugger's session
        log.exception("%s failed", cs.label)
        return _error(packet, ErrorCode.INTERNAL)
    return ReplyPacket(packet.id, 0x80, 0, body)
